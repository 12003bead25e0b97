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
    stmt_reads,
)


class _Checker:
    def __init__(
        self,
        fn: Function,
        ctx: PassContext,
        flat_calls: bool,
        definitions: list[tuple[Var, Stmt | None]] | None = None,
    ) -> None:
        self.fn = fn
        self.ctx = ctx
        self.flat_calls = flat_calls
        self.errors = 0
        self.definitions = definitions
        #: Every variable bound in the function and the symbolic dimensions in their types,
        #: found when a use first needs them (most functions use nothing out of scope).
        self.outside: tuple[set[Var], set[Var]] | None = None

    def report(self, code: str, message: str, stmt: Stmt | None) -> None:
        span = stmt.span if stmt is not None and stmt.span.is_known else self.fn.span
        self.ctx.error(code, message, span)
        self.errors += 1

    def run(self) -> None:
        visible: set[Var] = set(self.fn.params)
        for t in self.fn.return_types:
            visible.update(shape_vars(t))
        self.block(self.fn.body, visible)

    def bound_and_symbolic(self) -> tuple[set[Var], set[Var]]:
        if self.outside is None:
            definitions = self.definitions
            if definitions is None:
                definitions = defined_vars(self.fn)
            self.outside = bound_and_symbolic(definitions)
        return self.outside

    # --- uses ---------------------------------------------------------------------------

    def uses(self, expr: Expr, visible: set[Var], stmt: Stmt) -> None:
        self.check_vars(expr_vars(expr), visible, stmt)

    def check_vars(self, used: list[Var], visible: set[Var], stmt: Stmt) -> None:
        reported: set[Var] = set()
        for var in used:
            if var in visible:  # the common case, checked first
                continue
            bound, symbolic = self.bound_and_symbolic()
            if var in symbolic:
                continue
            if var not in bound and isinstance(var.type, ScalarType | UnknownType):
                continue  # a symbolic dimension or closure value, bound outside the function
            if var not in reported:
                reported.add(var)
                self.report(
                    "E200", f"'{var.name}' is used here but not defined at this point", stmt
                )

    def evaluated(self, stmt: AssignStmt | EvalStmt, value: Expr, visible: set[Var]) -> None:
        """The checks of a statement evaluating ``value`` (and binding no loop-carried
        variable): calls nested in it, then its uses, in one walk of the expression."""
        used: list[Var] = []
        if scan_evaluated(value, used) and self.flat_calls:
            self.nested_call(stmt)
        self.check_vars(used, visible, stmt)

    def nested_call(self, stmt: Stmt) -> None:
        self.report(
            "E404",
            "a call is nested inside an expression; FlattenCalls "
            "should have made it a statement of its own",
            stmt,
        )

    def no_nested_calls(self, stmt: Stmt) -> None:
        if not self.flat_calls:
            return
        for expr in direct_exprs(stmt):
            top_call = isinstance(stmt, AssignStmt | EvalStmt) and isinstance(expr, Call)
            inner = expr.args if top_call and isinstance(expr, Call) else (expr,)
            if any(contains_call(e) for e in inner):
                self.nested_call(stmt)
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
        if isinstance(stmt, AssignStmt) and type(stmt.var) is Var:  # most statements
            self.assign(stmt, visible)
            return
        if isinstance(stmt, EvalStmt):
            self.evaluated(stmt, stmt.expr, visible)
            return
        self.no_nested_calls(stmt)
        if isinstance(stmt, AssignStmt):
            self.uses(stmt.value, visible, stmt)
            self.check_assigned_type(stmt)
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

    def assign(self, stmt: AssignStmt, visible: set[Var]) -> None:
        self.evaluated(stmt, stmt.value, visible)
        self.check_assigned_type(stmt)
        visible.add(stmt.var)

    def check_assigned_type(self, stmt: AssignStmt) -> None:
        declared, actual = stmt.var.type, stmt.value.type
        if declared is not actual and not types_compatible(declared, actual):
            self.report(
                "E404",
                f"'{stmt.var.name}' has type {stmt.var.type.short()} but "
                f"its value has type {stmt.value.type.short()}",
                stmt,
            )

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


def scan_expr(expr: Expr, used: list[Var]) -> bool:
    """Append the variables ``expr`` reads to ``used``, in evaluation order (as
    ``expr_vars``); whether ``expr`` is or holds a call."""
    if isinstance(expr, Var):
        used.append(expr)
        return False
    operands = layout(type(expr)).operands
    if not operands:  # constants
        return False
    found = isinstance(expr, Call)
    for name in operands:
        value = getattr(expr, name)
        for item in value if type(value) is tuple else () if value is None else (value,):
            found = scan_expr(item, used) or found
    return found


def scan_evaluated(value: Expr, used: list[Var]) -> bool:
    """``scan_expr`` of the value a statement evaluates, whose own top call is no nesting:
    whether a call is nested in it."""
    if not isinstance(value, Call):
        return scan_expr(value, used)
    nested = False
    for arg in value.args:
        nested = scan_expr(arg, used) or nested
    return nested


def verify_function(fn: Function, ctx: PassContext, *, flat_calls: bool = False) -> int:
    """Check the structural invariants of ``fn``; returns how many problems were reported."""
    checker = _Checker(fn, ctx, flat_calls)
    checker.run()
    return checker.errors


def verify_ssa(fn: Function, ctx: PassContext) -> int:
    """Structural invariants plus single definitions and unique names."""
    definitions = defined_vars(fn)
    checker = _Checker(fn, ctx, False, definitions)
    checker.run()
    errors = checker.errors
    seen: set[Var] = set()
    names: dict[str, Var] = {}
    for var, stmt in definitions:
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


def bound_and_symbolic(
    definitions: list[tuple[Var, Stmt | None]],
) -> tuple[set[Var], set[Var]]:
    """The variables bound, and the symbolic dimensions (pl.dynamic) in their types, which
    appear without a defining statement."""
    bound = {var for var, _ in definitions}
    return bound, {dim for var in bound for dim in shape_vars(var.type)}


def unbound_values(fn: Function) -> list[Var]:
    """Variables ``fn`` reads that it neither binds nor finds in a type it has: a
    ``pl.dynamic`` dimension only a loop bound uses, or a builder function's local ptoc could
    not compute. The checks above accept them (they stand for any value), but code needs the
    value (the generators' internal error before)."""
    bound, typed = bound_and_symbolic(defined_vars(fn))
    for t in fn.return_types:
        typed.update(shape_vars(t))
    found: list[Var] = []
    for var in stmt_reads(fn.body):
        if var not in bound and var not in typed and var not in found:
            found.append(var)
    return found
