"""The UINT8 mask A2/A3's TPRELU takes as its scratch tile (``Lowering.byte_scratch``).

pto-isa's A2/A3 TPRELU compares into its scratch tile (TCMPS writes a bit mask) and selects
with the 32 bytes after the compare's rows, so it asserts a ``uint8_t`` tile of more rows than
the result; its CPU simulator ignores the tile. The call's scratch tile (FP16 / FP32, its
columns whole 32-byte rows) is read as such a mask at its own address: ``rows + 1`` rows of
``cols`` bytes, which fit in the ``rows * cols * 2`` bytes or more it has. The PTO route
makes the same mask (codegen/pto/forms.py ``byte_mask``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.dtype import DataType
from ...ir.expr import Call, Var, const_int
from ...ir.shape import static_shape
from ...ir.types import TileType, TileView
from ...ir.visitor import with_fields
from ..common import CodegenError
from .declarations import emit_tile

if TYPE_CHECKING:
    from ...ops import OpDef
    from .context import FunctionContext

_ROW_BYTES = 32


def emit_with_mask(
    ctx: FunctionContext,
    op: OpDef,
    instruction: str,
    call: Call,
    arguments: list[str],
) -> bool:
    """``{ <mask view of tmp>; INSTR(dst, ..., mask); }`` with the scratch operand (the
    last of ``arguments``) read as the mask; False when the call gives no scratch tile."""
    written = op.written_params
    scratch = op.bind(call.args).get(written[0]) if written else None
    if not isinstance(scratch, Var) or not isinstance(scratch.type, TileType):
        return False
    tile = scratch.type
    dims = static_shape(tile.shape)
    if dims is None or len(dims) != 2 or tile.dtype.bits < 16:
        return False
    rows, cols = dims
    if cols % _ROW_BYTES:
        raise CodegenError(
            "E400",
            f"{op.name}: the scratch tile's {cols} columns are no whole 32-byte rows as the "
            "UINT8 mask A2/A3's TPRELU wants: give it a multiple of 32 columns",
            call.span,
        )
    span = call.span
    shape = (const_int(rows + 1, span=span), const_int(cols, span=span))
    mask = with_fields(tile, dtype=DataType.UINT8, shape=shape, tile_view=TileView())
    with ctx.out.block("{"):
        name = ctx.names.reserve(arguments[-1] + "Mask")
        emit_tile(ctx, name, mask, span)
        ctx.out.emit_line(f"{instruction}({', '.join([*arguments[:-1], name])});")
    return True
