"""InlineCalls: a call between functions inside a kernel becomes the callee's body.

A CCE kernel is one entry point taking its arguments through ``args``; it cannot call another
kernel. So in every function that is not an Orchestration function (whose calls are tasks)
nor a host function (whose calls launch chip programs),
a statement ``y = self.f(a, b)`` (or a bare call) whose callee returns at its end, if at all,
becomes: each parameter bound to its argument (``x = a``), the callee's body with every
variable it defines renamed apart from the caller's, and ``y = <the returned value>`` (for a
tuple, each ``t[i]`` read later becomes the i-th value). Callees are expanded recursively; a
recursive call is left as it is (code generation reports it).
The PTO target keeps its calls (``func.call``): this pass is in the CCE pipeline only.
"""

from __future__ import annotations

from .. import records
from ..ir.expr import Call, Expr, GlobalVar, IterArg, TupleGetItem, Var
from ..ir.function import Function, Program
from ..ir.stmt import AssignStmt, EvalStmt, ReturnStmt, SeqStmts, Stmt
from ..ir.types import TupleType
from ..ir.visitor import IRMutator, with_fields
from .base import Pass, PassContext
from .irutil import NameAllocator, defined_vars, flatten_seq, walk_stmts


def _inlinable(fn: Function) -> bool:
    """At most one return, the last statement."""
    stmts = flatten_seq([fn.body])
    returns = [s for s in walk_stmts(fn.body) if isinstance(s, ReturnStmt)]
    if len(returns) > 1 or not stmts:
        return False
    return not returns or stmts[-1] is returns[0]


class _Renamer(IRMutator):
    """The callee's body with its variables renamed apart and its parameters bound."""

    def __init__(self, callee: Function, names: NameAllocator) -> None:
        super().__init__()
        self.names = names
        self.iter_args: set[Var] = set()
        for var, _ in defined_vars(callee):
            if isinstance(var, IterArg):
                self.iter_args.add(var)
            else:
                self.var_map[var] = with_fields(var, name=names.fresh(var.name))

    def mutate_IterArg(self, var: IterArg) -> Var:
        if var in self.var_map or var not in self.iter_args:
            return super().mutate_IterArg(var)
        init = self.mutate_expr(var.init_value) if var.init_value is not None else None
        new = records.replace(var, name=self.names.fresh(var.name), init_value=init)
        self.var_map[var] = new
        return new


class _Inliner(IRMutator):
    def __init__(self, program: Program, fn: Function, stack: tuple[str, ...]) -> None:
        super().__init__()
        self.program = program
        self.stack = stack
        self.names = NameAllocator()
        self.names.taken.update(v.name for v, _ in defined_vars(fn))
        self.tuples: dict[Var, tuple[Expr, ...]] = {}  # an inlined call's values, by its tuple

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        out: list[Stmt] = []
        for s in stmt.stmts:
            out.extend(self.expand(s))
        return with_fields(stmt, stmts=tuple(out))

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt:
        return self.single(stmt)

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt:
        return self.single(stmt)

    def single(self, stmt: AssignStmt | EvalStmt) -> Stmt:
        """A call that is a body of its own (not in a SeqStmts)."""
        parts = self.expand(stmt)
        return parts[0] if len(parts) == 1 else SeqStmts(tuple(parts), span=stmt.span)

    def callee(self, stmt: Stmt) -> tuple[Call, Function] | None:
        value = (
            stmt.value
            if isinstance(stmt, AssignStmt)
            else (stmt.expr if isinstance(stmt, EvalStmt) else None)
        )
        if not (isinstance(value, Call) and isinstance(value.callee, GlobalVar)):
            return None
        fn = self.program.function(value.callee.name)
        if fn is None or fn.name in self.stack or not _inlinable(fn):
            return None
        if fn.orchestrates:
            return None  # a launch of a program, not code of the caller's
        if len(value.args) != len(fn.params):
            return None
        return value, fn

    def expand(self, stmt: Stmt) -> list[Stmt]:
        if (
            isinstance(stmt, AssignStmt)
            and isinstance(stmt.value, TupleGetItem)
            and stmt.value.tuple_value in self.tuples
        ):
            element = self.tuples[stmt.value.tuple_value][stmt.value.index]  # type: ignore[index]
            return [AssignStmt(stmt.var, element, span=stmt.span)]
        found = self.callee(stmt)
        if found is None:
            if isinstance(stmt, AssignStmt | EvalStmt):
                return [stmt]
            return [self.mutate_stmt(stmt)]
        call, fn = found
        body_fn = _inline_into(self.program, fn, (*self.stack, fn.name))
        renamer = _Renamer(body_fn, self.names)
        out: list[Stmt] = []
        for param, arg in zip(body_fn.params, call.args, strict=True):
            out.append(AssignStmt(renamer.mutate_expr(param), arg, span=stmt.span))  # type: ignore[arg-type]
        stmts = flatten_seq([body_fn.body])
        values: tuple[Expr, ...] = ()
        last = stmts[-1] if stmts else None
        if isinstance(last, ReturnStmt):
            stmts.pop()
            values = tuple(renamer.mutate_expr(v) for v in last.values)
        out.extend(renamer.mutate_stmt(s) for s in stmts)
        if isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, TupleType):
            self.tuples[stmt.var] = values  # its elements are read as t[i] next
        elif isinstance(stmt, AssignStmt) and values:
            out.append(AssignStmt(stmt.var, values[0], span=stmt.span))
        return out


def _calls_a_function(stmt: Stmt) -> bool:
    value = (
        stmt.value
        if isinstance(stmt, AssignStmt)
        else (stmt.expr if isinstance(stmt, EvalStmt) else None)
    )
    return isinstance(value, Call) and isinstance(value.callee, GlobalVar)


def _inline_into(program: Program, fn: Function, stack: tuple[str, ...]) -> Function:
    if not any(_calls_a_function(s) for s in walk_stmts(fn.body)):
        return fn
    body = _Inliner(program, fn, stack).mutate_stmt(fn.body)
    return fn if body is fn.body else with_fields(fn, body=body)


class InlineCalls(Pass):
    name = "InlineCalls"
    description = (
        "a call between functions outside an Orchestration function becomes the callee's "
        "body (a kernel cannot call a kernel); the PTO pipeline keeps calls"
    )

    def run(self, program: Program, ctx: PassContext) -> Program:
        functions = []
        for fn in program.functions:
            ctx.at(fn.span)
            if fn.orchestrates:
                functions.append(fn)  # its calls launch programs and tasks
            else:
                functions.append(_inline_into(program, fn, (fn.name,)))
        if all(n is o for n, o in zip(functions, program.functions, strict=True)):
            return program
        return Program(program.name, tuple(functions), span=program.span)
