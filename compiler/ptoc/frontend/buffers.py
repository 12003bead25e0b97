"""The buffer and view details a printed type may carry: ``pl.MemRef(...)`` and
``pl.TileView(...)`` (the printer writes them after the memory passes)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ir.dtype import DataType
from ..ir.expr import Expr
from ..ir.types import (
    MEMORY_SPACE_BY_NAME,
    BLayout,
    MemorySpace,
    MemRef,
    PadMode,
    TensorLayout,
    TensorType,
    TileType,
    TileView,
    Type,
)

if TYPE_CHECKING:
    from .annotations import ScalarLookup, TypeResolver


def read_memref(
    types: TypeResolver, node: ast.Call, space: MemorySpace | None = None
) -> MemRef | None:
    """2026-03's ``MemRef(space, addr, size[, id])``; 2026-08's ``MemRef("name")`` (a pinned
    allocation) and ``MemRef(base, offset, size)`` take the tile's separate memory space."""
    args = list(node.args)
    if args and isinstance(args[0], ast.Constant | ast.Name) and not _is_space(types, args[0]):
        return _named_memref(types, node, space)
    if len(args) < 3:
        types.error("E101", "MemRef takes (memory_space, addr, size[, id])", node)
        return None
    found = types.enum(args[0])
    if isinstance(args[0], ast.Attribute) and args[0].attr in MEMORY_SPACE_BY_NAME:
        found = MEMORY_SPACE_BY_NAME[args[0].attr]
    if not isinstance(found, MemorySpace):
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
    return MemRef(found, addr, size, ident or 0)  # type: ignore[arg-type]


def _is_space(types: TypeResolver, node: ast.expr) -> bool:
    return isinstance(types.enum(node), MemorySpace)


def _named_memref(types: TypeResolver, node: ast.Call, space: MemorySpace | None) -> MemRef | None:
    if space is None:
        types.error(
            "E101",
            "a MemRef in pl.Tile[...] needs the tile's memory space too, e.g. pl.Mem.Vec",
            node,
        )
        return None
    args = list(node.args)
    if len(args) == 1:  # a pinned, user-declared allocation: placed by the passes
        return None
    offset = types.int_constant(args[1]) if len(args) > 1 else 0
    size = types.int_constant(args[2]) if len(args) > 2 else None
    if size is None:
        return None
    return MemRef(space, offset, size, 0)


def read_tensor_view(types: TypeResolver, node: ast.Call) -> TensorLayout | None:
    """2026-08's ``pl.TensorView(stride=, layout=, valid_shape=, pad=)``: its layout (the
    stride and valid region are not modelled yet)."""
    for keyword in node.keywords:
        if keyword.arg == "layout":
            value = types.enum(keyword.value)
            if isinstance(value, TensorLayout):
                return value
            types.error("E101", f"Unknown layout: {types.source.segment(keyword.value)}", keyword)
        elif keyword.arg not in ("stride", "valid_shape", "pad"):
            types.error("E101", f"Unknown TensorView field '{keyword.arg}'", keyword)
    return None


def read_tile_view(
    types: TypeResolver, node: ast.Call, lookup: ScalarLookup | None = None
) -> TileView | None:
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
            # (a valid extent may be a scalar of the scope, known at run time: spec §11)
            dims = types.shape(value, lookup if key == "valid_shape" else None)
            if dims is None:
                return None
            fields[key] = dims
        elif key == "start_offset":
            dim = types.dim(value, None)
            if dim is None:
                return None
            fields[key] = dim
        elif key == "compact":
            continue  # 2026-08's compact mode: not modelled
        else:
            types.error("E101", f"Unknown TileView field '{key}'", keyword)
            return None
    return TileView(**fields)  # type: ignore[arg-type]


# --- the extra elements of Tensor[...] and Tile[...] annotations ---------------------------


def tensor_extras(
    types: TypeResolver, shape: tuple[Expr, ...], dtype: DataType, extras: list[ast.expr]
) -> Type | None:
    layout: TensorLayout | None = None
    memref: MemRef | None = None
    for extra in extras:
        name = types.call_name(extra) if isinstance(extra, ast.Call) else None
        if name == "MemRef":
            assert isinstance(extra, ast.Call)
            memref = read_memref(types, extra, None)
            continue
        if name == "TensorView":  # 2026-08: stride / layout / valid shape of the view
            assert isinstance(extra, ast.Call)
            layout = read_tensor_view(types, extra) or layout
            continue
        if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
            continue  # a debug dump's "window_buffer=NAME" element
        value = types.enum(extra)
        if isinstance(value, TensorLayout):
            layout = value
        else:
            types.error("E101", f"Unknown layout: {types.source.segment(extra)}", extra)
            return None
    return TensorType(shape, dtype, memref, layout)


def tile_extras(
    types: TypeResolver,
    shape: tuple[Expr, ...],
    dtype: DataType,
    extras: list[ast.expr],
    lookup: ScalarLookup | None = None,
) -> Type | None:
    memref_node: ast.Call | None = None
    view: TileView | None = None
    space: MemorySpace | None = None
    for extra in extras:
        name = types.call_name(extra) if isinstance(extra, ast.Call) else None
        if name == "MemRef":
            assert isinstance(extra, ast.Call)
            memref_node = extra
        elif name == "TileView":
            assert isinstance(extra, ast.Call)
            view = read_tile_view(types, extra, lookup)
        elif isinstance(value := types.enum(extra), MemorySpace):
            space = value  # 2026-08: the tile's memory space, in any position
        else:
            types.error("E102", "Layout is only supported for Tensor", extra)
            return None
    memref = read_memref(types, memref_node, space) if memref_node is not None else None
    return TileType(shape, dtype, memref, view, memory=space)
