"""Loop-carried tiles whose initial tile is read again get a copy to start from (InitMemRef).

A carried tile lives in the buffer of its initial value, and every yield writes that buffer
(the generators copy the yielded tile into it). When the initial tile is also read elsewhere
(in the loop body, after the loop, by another loop), the first yield would overwrite it while
it is still needed: ``acc`` starting as ``x_tile`` in a loop computing ``x_tile + acc``. Such a
loop starts from a copy instead (``acc_init = block.vec_move(x_tile)``), which the carried value
then owns. Only unified-buffer (Vec) tiles are copied: that is where TMOV copies.
"""

from __future__ import annotations

from collections import Counter

from .. import records
from ..ir.expr import Var
from ..ir.function import Function
from ..ir.stmt import AssignStmt, ForStmt, SeqStmts, Stmt, WhileStmt
from ..ir.types import MemorySpace, TileType
from ..ir.visitor import IRMutator, with_fields
from ..ops.registry import Role, op_call
from .irutil import NameAllocator, defined_vars, direct_exprs, expr_vars, walk_stmts
from .op_info import the_first


def _uses(fn: Function) -> Counter[Var]:
    """How many statements (and loop conditions) read each variable."""
    counts: Counter[Var] = Counter()
    for stmt in walk_stmts(fn.body):
        exprs = direct_exprs(stmt)
        if isinstance(stmt, WhileStmt):
            exprs.append(stmt.condition)
        for expr in exprs:
            counts.update(set(expr_vars(expr)))
    return counts


def _in_vec(var: Var) -> bool:
    t = var.type
    return isinstance(t, TileType) and t.memory_space in (None, MemorySpace.Vec)


class _Copier(IRMutator):
    def __init__(self, fn: Function, uses: Counter[Var]) -> None:
        super().__init__()
        self.uses = uses
        self.names = NameAllocator(v.name for v, _ in defined_vars(fn))
        self.copy_op = the_first(Role.MOVE, "block", lambda op: op.result_space_attr is None)

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        out: list[Stmt] = []
        for s in stmt.stmts:
            out.extend(self.expand(s))
        return with_fields(stmt, stmts=tuple(out))

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt:
        return self.single(stmt)

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt:
        return self.single(stmt)

    def single(self, stmt: ForStmt | WhileStmt) -> Stmt:
        """A loop that is a body of its own (not in a SeqStmts)."""
        parts = self.expand(stmt)
        return parts[0] if len(parts) == 1 else SeqStmts(tuple(parts), span=stmt.span)

    def expand(self, stmt: Stmt) -> list[Stmt]:
        if not isinstance(stmt, ForStmt | WhileStmt):
            return [self.mutate_stmt(stmt)]
        copies: list[Stmt] = []
        for arg in stmt.iter_args:
            init = arg.init_value
            if isinstance(init, Var) and _in_vec(init) and self.uses[init] > 1:
                call = op_call(self.copy_op, [self.mutate_expr(init)], (), stmt.span)
                copy = Var(call.type, name=self.names.fresh(f"{arg.name}_init"), span=stmt.span)
                copies.append(AssignStmt(copy, call, span=stmt.span))
                # The loop's iter_arg and every use of it in the body become the new one.
                self.var_map[arg] = records.replace(arg, init_value=copy)
        return [*copies, self.generic_mutate(stmt)]


def copy_shared_loop_inits(fn: Function) -> Function:
    inits = [
        a.init_value
        for s in walk_stmts(fn.body)
        if isinstance(s, ForStmt | WhileStmt)
        for a in s.iter_args
        if isinstance(a.init_value, Var)
    ]
    if not inits:  # no loop carries a variable: counting uses would find nothing to copy
        return fn
    uses = _uses(fn)
    if not any(uses[init] > 1 for init in inits):
        return fn
    body = _Copier(fn, uses).mutate_stmt(fn.body)
    return fn if body is fn.body else with_fields(fn, body=body)
