"""Structural invariants of the IR, checked between passes.

* every variable used is defined before, in a scope that is still open (a body's own
  definitions end with the body; ``with pl.incore()`` scopes do not close anything);
* the yield ending an if branch or loop body matches the construct's results in number and
  type, and loop-carried values keep their type;
* assignment targets have the type of their value; returns match the function's
  declared return types (when it declares any);
* after FlattenCalls, every call is the whole value of a statement.

The SSA check run after ConvertToSSA adds: each variable is bound once, and names are unique
within a function (so the printed IR parses back under strict SSA).
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, Var
from ..ir.fields import layout
from ..ir.function import Function
from ..ir.stmt import AssignStmt, EvalStmt, IfStmt, LoopStmt, ReturnStmt, SeqStmts, Stmt, YieldStmt
from ..ir.types import ScalarType, Type, UnknownType, types_compatible
from .base import FunctionPass, PassContext
from .irutil import (
    bodies,
    conditions,
    contains_call,
    defined_vars,
    direct_exprs,
    expr_vars,
    final_yield,
    shape_vars,
    stmt_binds,
)


class _Checker:
    def __init__(self, fn: Function, ctx: PassContext, flat_calls: bool) -> None:
        self.fn = fn
        self.ctx = ctx
        self.flat_calls = flat_calls
        self.errors = 0
        self.bound: set[Var] = set()

    def report(self, code: str, message: str, stmt: Stmt | None) -> None:
        span = stmt.span if stmt is not None and stmt.span.is_known else self.fn.span
        self.ctx.error(code, message, span)
        self.errors += 1

    def run(self) -> None:
        self.bound = {var for var, _ in defined_vars(self.fn)}
        visible: set[Var] = set(self.fn.params)
        # Symbolic dimensions (pl.dynamic) appear in types without a defining statement.
        for var in self.bound:
            visible.update(shape_vars(var.type))
        for t in self.fn.return_types:
            visible.update(shape_vars(t))
        self.block(self.fn.body, visible)

    # --- uses ---------------------------------------------------------------------------

    def uses(self, expr: Expr, visible: set[Var], stmt: Stmt) -> None:
        reported: set[Var] = set()
        for var in expr_vars(expr):
            if var in visible:  # the common case, checked first
                continue
            if var not in self.bound and isinstance(var.type, ScalarType | UnknownType):
                continue  # a symbolic dimension or closure value, bound outside the function
            if var not in reported:
                reported.add(var)
                self.report(
                    "E200", f"'{var.name}' is used here but not defined at this point", stmt
                )

    def no_nested_calls(self, stmt: Stmt) -> None:
        if not self.flat_calls:
            return
        for expr in direct_exprs(stmt):
            top_call = isinstance(stmt, AssignStmt | EvalStmt) and isinstance(expr, Call)
            inner = expr.args if top_call and isinstance(expr, Call) else (expr,)
            if any(contains_call(e) for e in inner):
                self.report(
                    "E404",
                    "a call is nested inside an expression; FlattenCalls "
                    "should have made it a statement of its own",
                    stmt,
                )
                return

    # --- statements ---------------------------------------------------------------------

    def block(self, stmt: Stmt | None, visible: set[Var]) -> None:
        if stmt is None:
            return
        self.ctx.at(stmt.span)
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                self.block(s, visible)
            return
        self.no_nested_calls(stmt)
        if isinstance(stmt, AssignStmt):
            self.uses(stmt.value, visible, stmt)
            if not types_compatible(stmt.var.type, stmt.value.type):
                self.report(
                    "E404",
                    f"'{stmt.var.name}' has type {stmt.var.type.short()} but "
                    f"its value has type {stmt.value.type.short()}",
                    stmt,
                )
            visible.add(stmt.var)
        elif isinstance(stmt, EvalStmt):
            self.uses(stmt.expr, visible, stmt)
        elif isinstance(stmt, YieldStmt):
            for value in stmt.values:
                self.uses(value, visible, stmt)
        elif isinstance(stmt, ReturnStmt):
            for value in stmt.values:
                self.uses(value, visible, stmt)
            self.check_return(stmt)
        elif isinstance(stmt, IfStmt):
            self.if_stmt(stmt, visible)
        elif isinstance(stmt, LoopStmt):
            self.loop(stmt, visible)
        else:
            for body in bodies(stmt):  # a scope closes nothing
                self.block(body, visible)

    def if_stmt(self, stmt: IfStmt, visible: set[Var]) -> None:
        self.uses(stmt.condition, visible, stmt)
        self.condition_type(stmt.condition.type, stmt)
        for branch in (stmt.then_body, stmt.else_body):
            if branch is None:
                continue
            self.block(branch, set(visible))
            self.check_yield(branch, [v.type for v in stmt.return_vars], stmt, "if branch")
        visible.update(stmt.return_vars)

    def loop(self, stmt: LoopStmt, visible: set[Var]) -> None:
        for bound in layout(type(stmt)).operands:  # a for loop's bounds
            value = getattr(stmt, bound)
            self.uses(value, visible, stmt)
            self.condition_type(value.type, stmt, what="loop bound")
        self.loop_carried(stmt, visible)
        inner = set(visible) | set(stmt_binds(stmt))
        for condition in conditions(stmt):  # a while loop's, read at each iteration's top
            self.uses(condition, inner, stmt)
            self.condition_type(condition.type, stmt)
        self.block(stmt.body, inner)
        self.check_yield(stmt.body, [a.type for a in stmt.iter_args], stmt, "loop body")
        visible.update(stmt.return_vars)

    def loop_carried(self, stmt: LoopStmt, visible: set[Var]) -> None:
        if len(stmt.iter_args) != len(stmt.return_vars):
            self.report(
                "E404",
                f"the loop carries {len(stmt.iter_args)} value(s) but has "
                f"{len(stmt.return_vars)} result(s)",
                stmt,
            )
        for arg in stmt.iter_args:
            if arg.init_value is None:
                self.report("E404", f"loop-carried '{arg.name}' has no initial value", stmt)
                continue
            self.uses(arg.init_value, visible, stmt)
            if not types_compatible(arg.type, arg.init_value.type):
                self.report(
                    "E108",
                    f"loop-carried '{arg.name}' has type {arg.type.short()} "
                    f"but starts as {arg.init_value.type.short()}",
                    stmt,
                )
        for arg, result in zip(stmt.iter_args, stmt.return_vars, strict=False):
            if not types_compatible(arg.type, result.type):
                self.report(
                    "E108",
                    f"loop result '{result.name}' has type "
                    f"{result.type.short()} but the loop carries {arg.type.short()}",
                    stmt,
                )

    # --- checks -------------------------------------------------------------------------

    def condition_type(self, t: Type, stmt: Stmt, what: str = "condition") -> None:
        if not isinstance(t, ScalarType | UnknownType):
            self.report("E110", f"the {what} must be a scalar, got {t.short()}", stmt)

    def check_yield(self, body: Stmt, expected: list[Type], owner: Stmt, where: str) -> None:
        last = final_yield(body)
        if last is None:
            if expected:
                self.report(
                    "E010", f"the {where} must end with a yield of {len(expected)} value(s)", owner
                )
            return
        if len(last.values) != len(expected):
            self.report(
                "E009",
                f"the {where} yields {len(last.values)} value(s) but {len(expected)} are expected",
                last,
            )
            return
        for i, (value, t) in enumerate(zip(last.values, expected, strict=True)):
            if not types_compatible(value.type, t):
                self.report(
                    "E108",
                    f"yielded value {i + 1} has type {value.type.short()} but "
                    f"{t.short()} is expected",
                    last,
                )

    def check_return(self, stmt: ReturnStmt) -> None:
        expected = self.fn.return_types
        if not expected:
            return  # no return annotation: the DSL does not constrain what is returned
        if len(stmt.values) != len(expected):
            self.report(
                "E107",
                f"'{self.fn.name}' returns {len(stmt.values)} value(s) but its "
                f"type declares {len(expected)}",
                stmt,
            )
            return
        for value, t in zip(stmt.values, expected, strict=True):
            if not types_compatible(value.type, t):
                self.report(
                    "E107",
                    f"returned value has type {value.type.short()} but "
                    f"'{self.fn.name}' returns {t.short()}",
                    stmt,
                )


def verify_function(fn: Function, ctx: PassContext, *, flat_calls: bool = False) -> int:
    """Check the structural invariants of ``fn``; returns how many problems were reported."""
    checker = _Checker(fn, ctx, flat_calls)
    checker.run()
    return checker.errors


def verify_ssa(fn: Function, ctx: PassContext) -> int:
    """Structural invariants plus single definitions and unique names."""
    errors = verify_function(fn, ctx)
    seen: set[Var] = set()
    names: dict[str, Var] = {}
    for var, stmt in defined_vars(fn):
        span = stmt.span if stmt is not None and stmt.span.is_known else fn.span
        if var in seen:
            ctx.error("E404", f"'{var.name}' is bound more than once", span)
            errors += 1
            continue
        seen.add(var)
        if var.name in names:
            ctx.error("E404", f"the name '{var.name}' is bound to two different values", span)
            errors += 1
            continue
        names[var.name] = var
    return errors


class Verifier(FunctionPass):
    name = "Verifier"
    description = (
        "Check structural invariants: every variable is defined before use, yields "
        "match results, types agree, every call is a statement of its own."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        verify_function(fn, ctx, flat_calls=True)
        return fn
