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
from ...ir.types import MemorySpace, TileType, TileView, Type
from ...ir.visitor import with_fields
from ...ops import Role
from . import expressions
from .declarations import emit_tile, padded_rows

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


def emit_on_padded_source(
    ctx: FunctionContext,
    instruction: str,
    target: str,
    target_type: Type | None,
    call: Call,
    operands: list[str],
    attr_args: tuple[str, ...],
) -> bool:
    """An instruction whose CPU simulator asserts its source's rows equal its result's
    (``Lowering.same_rows``: TROWSUM) writing a column declared with padded rows (``[4, 1]``
    FP32 is declared ``[8, 1]``, valid ``[4, 1]``) reads its source through a view of as
    many rows at the source's address, valid rows the source's: ``{ <view>; TROWSUM(dst,
    view, tmp); }``. False when the result is not such a column."""
    source = call.args[0] if call.args else None
    if not isinstance(target_type, TileType) or not isinstance(source, Var) or not operands:
        return False
    source_type = source.type
    if not is_column_vector(target_type) or not isinstance(source_type, TileType):
        return False
    rows = static_value(target_type.shape[0]) or 0
    physical = padded_rows(target_type)
    if physical == rows or len(source_type.shape) != 2:
        return False
    cols = source_type.shape[1]
    view_type = with_fields(
        source_type,
        shape=(const_int(physical, span=call.span), cols),
        tile_view=with_fields(source_type.tile_view or TileView(), valid_shape=source_type.shape),
    )
    with ctx.out.block("{"):
        view = ctx.names.reserve(operands[0] + "Rows")
        emit_tile(ctx, view, view_type, call.span)
        arguments = [target, view, *operands[1:], *attr_args]
        ctx.out.emit_line(f"{instruction}({', '.join(arguments)});")
    return True
