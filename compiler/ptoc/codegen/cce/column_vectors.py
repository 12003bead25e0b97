"""Element-wise ops on column vectors, as pto-isa's vector instructions take them.

A ``[M, 1]`` Vec tile is pto-isa's column vector (ColMajor: TROWSUM's result, TROWEXPAND*'s
per-row operand), but its element-wise and scalar instructions (TMULS, TDIVS, TADD, TEXP ...)
assert row-major tiles ("TileType of src and dst tiles must be Row Major"). Such an op, whose
result and tile operands are all column vectors of one element type, runs on their ``[1, M]``
row-major views: tiles at the same addresses (the bytes of one column are one row), declared
in a block of their own (docs/codegen-pto.md: the PTO route does the same with pto.treshape).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Var, const_int
from ...ir.shape import static_value
from ...ir.types import MemorySpace, TileType, Type
from ...ir.visitor import with_fields
from ...ops import Role
from . import expressions
from .declarations import emit_tile

if TYPE_CHECKING:
    from .context import FunctionContext


def is_column_vector(tile: Type | None) -> bool:
    """A ``[M, 1]`` Vec tile (M > 1) with its default view, which the declarer makes
    ColMajor."""
    if not isinstance(tile, TileType) or len(tile.shape) != 2 or tile.memref is None:
        return False
    rows, cols = (static_value(d) for d in tile.shape)
    view = tile.tile_view
    return (
        cols == 1
        and (rows or 0) > 1
        and tile.memref.memory_space is MemorySpace.Vec
        and (view is None or view.valid_shape is None)
    )


def on_row_views(call: Call, role: Role, target_type: Type | None) -> list[Var] | None:
    """The tile operands of an element-wise ``call`` to run on row views, or None when it
    is not one of column vectors of the result's element type."""
    if role is not Role.ELEMENTWISE or not is_column_vector(target_type):
        return None
    assert isinstance(target_type, TileType)
    tiles: list[Var] = []
    for arg in call.args:
        if not isinstance(arg.type, TileType):
            continue
        if not (isinstance(arg, Var) and is_column_vector(arg.type)):
            return None
        if arg.type.dtype is not target_type.dtype:
            return None  # a promoted operand is converted first (ops._convert_promoted_operand)
        tiles.append(arg)
    return tiles or None


def row_view(tile: TileType) -> TileType:
    """The ``[1, M]`` row-major tile over ``tile``'s ``[M, 1]`` buffer."""
    rows = tile.shape[0]
    return with_fields(tile, shape=(const_int(1, span=rows.span), rows))


def emit_on_row_views(
    ctx: FunctionContext,
    instruction: str,
    target: str,
    target_type: TileType,
    tiles: list[Var],
    operands: list[str],
    attr_args: tuple[str, ...],
    call: Call,
) -> None:
    """``{ <row views>; INSTR(dst_row, a_row, ..., scalars); }``."""
    renamed: dict[str, str] = {}
    with ctx.out.block("{"):
        named = [(target, target_type), *((expressions.operand(ctx, t), t.type) for t in tiles)]
        for text, tile in named:
            if text in renamed:
                continue
            view = ctx.names.reserve(text + "Row")
            assert isinstance(tile, TileType)
            emit_tile(ctx, view, row_view(tile), call.span)
            renamed[text] = view
        arguments = [renamed.get(text, text) for text in (target, *operands)]
        ctx.out.emit_line(f"{instruction}({', '.join([*arguments, *attr_args])});")
