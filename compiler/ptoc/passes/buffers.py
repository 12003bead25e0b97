"""Which buffers (MemRefs) a variable may name.

A variable defined by an op names its own MemRef. A loop-carried variable, a loop result and
an if result name the buffer of every value that can flow into them: the initial value and
each yielded value. Yielding rebinds which buffer a carried value lives in; no data moves.
The result of an op updating a tile operand in place (``block.matmul_acc``'s ``acc``) names
the operand's buffers, as a plain copy does.
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, Var
from ..ir.function import Function
from ..ir.stmt import AssignStmt, IfStmt, LoopStmt, Stmt
from ..ir.types import MemRef, ShapedType
from .irutil import defined_vars, final_yield, walk_stmts
from .op_info import accumulator_of


def memref_of(var: Expr) -> MemRef | None:
    t = var.type
    return t.memref if isinstance(t, ShapedType) else None


def _flows(fn: Function) -> list[tuple[Var, Expr]]:
    """(variable, value flowing into it) for every carried value, result and plain copy."""
    flows: list[tuple[Var, Expr]] = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Var):
            flows.append((stmt.var, stmt.value))
        elif isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            updated = accumulator_of(stmt.value)  # the result is that tile, updated
            if updated is not None:
                flows.append((stmt.var, updated))
        elif isinstance(stmt, LoopStmt):
            last = final_yield(stmt.body)
            for i, arg in enumerate(stmt.iter_args):
                if arg.init_value is not None:
                    flows.append((arg, arg.init_value))
                if last is not None and i < len(last.values):
                    flows.append((arg, last.values[i]))
                if i < len(stmt.return_vars):
                    flows.append((stmt.return_vars[i], arg))
        elif isinstance(stmt, IfStmt):
            for branch in (stmt.then_body, stmt.else_body):
                last = final_yield(branch)
                if last is None:
                    continue
                for result, value in zip(stmt.return_vars, last.values, strict=False):
                    flows.append((result, value))
    return flows


def buffer_aliases(
    fn: Function, definitions: list[tuple[Var, Stmt | None]] | None = None
) -> dict[Var, frozenset[int]]:
    """For every variable bound in ``fn`` (``definitions``: its ``defined_vars``, when the
    caller has them already): the ids of the MemRefs it may name."""
    sets: dict[Var, set[int]] = {}
    for var, _ in defined_vars(fn) if definitions is None else definitions:
        memref = memref_of(var)
        sets[var] = {memref.id} if memref is not None else set()
    flows = _flows(fn)
    changed = True
    while changed:
        changed = False
        for target, value in flows:
            if not isinstance(value, Var):
                continue
            source = sets.get(value)
            if source is None:
                memref = memref_of(value)
                source = {memref.id} if memref is not None else set()
            into = sets.setdefault(target, set())
            if not source <= into:
                into |= source
                changed = True
    return {var: frozenset(ids) for var, ids in sets.items()}


def var_buffers(var: Var, aliases: dict[Var, frozenset[int]]) -> frozenset[int]:
    found = aliases.get(var)
    if found is not None:
        return found
    memref = memref_of(var)
    return frozenset({memref.id}) if memref is not None else frozenset()
