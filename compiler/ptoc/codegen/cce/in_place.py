"""An accumulating product, whose result is its accumulator tile updated in place (a matmul-role
op with ``OpDef.aliases``: ``block.matmul_acc`` / ``block.gemv_acc``, whose result is ``acc``).

pto-isa's A2/A3 ``TMATMUL_ACC(out, in, a, b)`` and ``TGEMV_ACC`` pass only ``out`` to the mad
instruction and ignore ``in`` (npu/a2a3/TMatmul.hpp); the CPU simulator reads ``in``, so it
cannot tell the two apart. The instruction therefore names the operand's tile for both: the
result's handle is first re-pointed at the operand (whose buffer memory planning gave the
result, init_memref.py; a carried operand may have been re-pointed by a yield, so the handle,
not the planned address, is what the instruction must write) and the result then names it
in every operand position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Var
from ...ops import OpDef
from ...passes.op_info import accumulator_of
from . import expressions

if TYPE_CHECKING:
    from .context import FunctionContext


def _written_operand(call: Call, op: OpDef) -> Var | None:
    """The accumulator ``call``'s result is, when the instruction takes it as an operand."""
    operand = accumulator_of(call)
    if operand is None or (op.cce.operands is not None and op.aliases not in op.cce.operands):
        return None
    return operand


def write_in_place(
    ctx: FunctionContext, call: Call, op: OpDef, target: str, operands: list[str]
) -> list[str]:
    """``operands`` with the accumulator's text replaced by ``target``, after a line
    re-pointing ``target`` at the accumulator's tile (``acc_2 = acc;``); ``operands``
    unchanged for any other call."""
    operand = _written_operand(call, op)
    if operand is None or not target:
        return operands
    text = expressions.operand(ctx, operand)
    if text != target:
        ctx.out.emit_line(f"{target} = {text};")
    return [target if o == text else o for o in operands]
