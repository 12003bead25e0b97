"""The buffer and view details a printed type may carry: ``pl.MemRef(...)`` and
``pl.TileView(...)`` (the printer writes them after the memory passes)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ir.types import MEMORY_SPACE_BY_NAME, BLayout, MemRef, PadMode, TileView

if TYPE_CHECKING:
    from .annotations import TypeResolver


def read_memref(types: TypeResolver, node: ast.Call) -> MemRef | None:
    args = list(node.args)
    if len(args) < 3:
        types.error("E101", "MemRef takes (memory_space, addr, size[, id])", node)
        return None
    space = types.enum(args[0])
    if isinstance(args[0], ast.Attribute) and args[0].attr in MEMORY_SPACE_BY_NAME:
        space = MEMORY_SPACE_BY_NAME[args[0].attr]
    if space is None or type(space).__name__ != "MemorySpace":
        types.error("E101", "MemRef needs a memory space, e.g. pl.MemorySpace.Vec", args[0])
        return None
    addr = (
        None
        if isinstance(args[1], ast.Constant) and args[1].value is None
        else types.int_constant(args[1])
    )
    size = types.int_constant(args[2])
    ident = types.int_constant(args[3]) if len(args) > 3 else 0
    if size is None:
        return None
    return MemRef(space, addr, size, ident or 0)  # type: ignore[arg-type]


def read_tile_view(types: TypeResolver, node: ast.Call) -> TileView | None:
    fields: dict[str, object] = {}
    for keyword in node.keywords:
        key, value = keyword.arg, keyword.value
        if key in ("blayout", "slayout", "pad"):
            enum, what = (PadMode, "pad mode") if key == "pad" else (BLayout, "block layout")
            name = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
            if name not in enum.__members__:
                types.error("E101", f"Unknown {what}: {types.source.segment(value)}", value)
                return None
            fields[key] = enum[name]
        elif key == "fractal":
            fields[key] = types.int_constant(value)
        elif key in ("valid_shape", "stride"):
            dims = types.shape(value, None)
            if dims is None:
                return None
            fields[key] = dims
        elif key == "start_offset":
            dim = types.dim(value, None)
            if dim is None:
                return None
            fields[key] = dim
        else:
            types.error("E101", f"Unknown TileView field '{key}'", keyword)
            return None
    return TileView(**fields)  # type: ignore[arg-type]
