"""Accumulating products add into their accumulator's buffer: its old value is gone after them.

``c = block.matmul_acc(acc, a, b)`` is ``acc``'s own buffer after the op (``OpDef.aliases``;
InitMemRef gives ``c`` that buffer): A2/A3's TMATMUL_ACC(out, in, a, b) and TGEMV_ACC add into
``out`` and ignore ``in``, and an Acc tile cannot be copied into another (A2/A3's TMOV moves
Acc only to Mat), so the old accumulator is gone once the op ran. A variable naming the
operand's buffer, defined before the op and read after it (``acc`` itself after the op, or in
a later iteration of a loop it was defined outside of) would read the sum instead: E400 at
the op, rather than code that computes something else on the chip.
"""

from __future__ import annotations

from ..ir.expr import Call, Var
from ..ir.function import Function
from ..ir.stmt import AssignStmt
from .base import PassContext
from .buffers import buffer_aliases, var_buffers
from .irutil import walk_stmts
from .memory_reuse import function_lifetimes
from .op_info import accumulator_of, creator_op, op_def


def check_accumulators(fn: Function, ctx: PassContext) -> None:
    """E400 at each accumulating product whose accumulator's old value is read after it."""
    if not any(_accumulates(stmt) for stmt in walk_stmts(fn.body)):
        return
    lifetimes = function_lifetimes(fn)
    # A created tile's contents are not defined on the chip (its buffer is not cleared), so
    # reading it after a product added into its buffer reads no value it had: a created tile
    # a loop carries into a K loop again each outer iteration (a split mixed loop's cube part).
    created = {
        stmt.var
        for stmt in walk_stmts(fn.body)
        if isinstance(stmt, AssignStmt)
        and isinstance(stmt.value, Call)
        and op_def(stmt.value) is creator_op("block")
    }
    aliases: dict[Var, frozenset[int]] | None = None
    for position, stmt in enumerate(lifetimes.statements, start=1):
        if not isinstance(stmt, AssignStmt) or not isinstance(stmt.value, Call):
            continue
        operand = accumulator_of(stmt.value)
        if operand is None:
            continue
        aliases = buffer_aliases(fn) if aliases is None else aliases
        buffers = var_buffers(operand, aliases)
        for var, ids in aliases.items():
            if var is stmt.var or var in created or not ids & buffers:
                continue
            start, end = lifetimes.interval(var)
            if start <= position < end:
                _report(ctx, stmt, operand, var)
                break


def _accumulates(stmt: object) -> bool:
    return (
        isinstance(stmt, AssignStmt)
        and isinstance(stmt.value, Call)
        and accumulator_of(stmt.value) is not None
    )


def _report(ctx: PassContext, stmt: AssignStmt, operand: Var, reader: Var) -> None:
    assert isinstance(stmt.value, Call)
    op = op_def(stmt.value)
    name = op.short_name if op is not None else "the op"
    instruction = op.cce.instruction if op is not None and op.cce.instruction else name
    held = (
        f"'{operand.name}'" if reader is operand else f"'{operand.name}' (held by '{reader.name}')"
    )
    ctx.error(
        "E400",
        f"{name} adds into the buffer of its accumulator {held}, which is read after it: "
        f"A2/A3's {instruction} accumulates in place and an Acc tile cannot be copied; "
        f"use the result '{stmt.var.name}' after {name}, or compute a new accumulator for "
        "each use",
        stmt.span,
    )
