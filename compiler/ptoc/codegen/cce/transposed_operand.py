"""``pl.move(k_mat, target_memory=Right, transpose=True)``: the right operand of ``q @ kᵀ``.

A Mat tile is stored in fractals placed column by column, each row by row ("nZ", pto-isa's
default Mat layout); the same bytes read with the dimensions swapped are the transpose in
fractals placed row by row, each column by column ("zN"), which is the layout TMATMUL wants
in Right. So the transposing move copies a zN view of the source's buffer, shaped like the
result, into the Right tile: ``TMOV(k_right, k_matT)``, the plain copy of one layout into
the same layout (A2/A3's TMOV transposes fractals only between different layouts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Var
from ...ir.span import Span
from ...ir.types import BLayout, TileType, TileView
from ...ir.visitor import with_fields
from ..common import CodegenError
from .declarations import RIGHT_VIEW, emit_tile

if TYPE_CHECKING:
    from .context import FunctionContext

# pto-isa's Mat layout as loads write it: fractals column by column, each row by row.
MAT_VIEW = TileView(blayout=BLayout.col_major, slayout=BLayout.row_major)


def lower(ctx: FunctionContext, source: Var, instruction: str, target: str, span: Span) -> bool:
    """``{ <zN view of source>; TMOV(target, view); }``; E400 for a Mat tile in a layout
    whose transpose is not zN."""
    tile = source.type
    assert isinstance(tile, TileType)
    view = tile.tile_view or TileView()
    if (view.blayout, view.slayout) != (MAT_VIEW.blayout, MAT_VIEW.slayout):
        raise CodegenError(
            "E400",
            f"block.move(transpose=True) into Right reads a Mat tile in the layout loads "
            f"write (fractals column by column, each row by row), not blayout="
            f"{view.blayout.value}, slayout={view.slayout.value}",
            span,
        )
    rows, cols = tile.shape
    valid = view.valid_shape[::-1] if view.valid_shape is not None else None
    layout = {"blayout": RIGHT_VIEW.blayout, "slayout": RIGHT_VIEW.slayout}
    transposed = with_fields(
        tile, shape=(cols, rows), tile_view=with_fields(view, valid_shape=valid, **layout)
    )
    name = ctx.names.reserve(target + "Transposed")
    with ctx.out.block("{"):
        emit_tile(ctx, name, transposed, span)
        ctx.out.emit_line(f"{instruction}({target}, {name});")
    return True
