"""ConvertToSSA: one name per value, and explicit results for values leaving a body.

The DSL lets a name be assigned again (``x = ...; x = f(x)``) and lets names assigned in an
if branch or loop body without ``pl.yield_`` stay visible after it. This pass gives every
definition a name unique within the function, since the code generators name variables after
them (the first definition keeps the name, later ones become ``x_1``, ``x_2``, ..., skipping
names the function already uses), and turns the leaking names into SSA form:

* after an if: a name assigned in a branch and used later becomes a result of the if; each
  branch yields its own latest value, or the value from before the if when it does not
  assign the name (an else branch is created when needed);
* around a loop: a name assigned in the body becomes a loop-carried value when the body reads
  the value from before the loop or the previous iteration, or when it is used after the
  loop. It starts as the value from before the loop and the body yields its latest value.

A name first assigned inside a body and used after it has no value on the paths that skip
the body. A store result starts as the tensor it updates; any other value starts undefined,
as the DSL allows: zero for a scalar, an uninitialised ``block.create_tile`` /
``tensor.create`` (inserted just before the if or loop) for a tile or tensor. When no such
value can be made (e.g. a tile of dynamic shape) it is an E202 diagnostic.

Names are resolved by spelling, as the DSL does: a use of ``x`` means the latest value
bound to ``x`` on the path to it. Liveness is computed on names, on the input IR.
"""

from __future__ import annotations

from typing import Any, TypeVar

from .. import records
from ..ir.expr import (
    AttrValue,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    IterArg,
    Op,
    Var,
    make_tuple,
)
from ..ir.fields import BINDS, OPERAND, layout
from ..ir.function import Function
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    LoopStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    body_stmts,
)
from ..ir.types import ScalarType, ShapedType, TensorType, TileType, types_compatible
from ..ir.visitor import IRMutator, with_fields
from ..ops.registry import OpError
from .base import FunctionPass, PassContext
from .irutil import (
    NameAllocator,
    conditions,
    defined_vars,
    direct_exprs,
    expr_vars,
    flatten_seq,
    seq,
    stmt_binds,
    walk_stmts,
)
from .op_info import creator_op, stored_into, tile_space
from .verifier import verify_ssa

Names = frozenset[str]
#: Statement classes checked per statement (a tuple: ``isinstance`` with a new union costs more).
_EVALUATES = (EvalStmt, YieldStmt)
_BRANCHES = (IfStmt, ForStmt, WhileStmt)
_ENDS_BODY = (YieldStmt, ReturnStmt)
Env = dict[str, Var]
_E = TypeVar("_E", bound=Expr)


def _uses(exprs: list[Expr]) -> set[str]:
    return {v.name for e in exprs for v in expr_vars(e)}


def _ordered(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def assigned_names(stmt: Stmt | None) -> list[str]:
    """Names a statement binds that stay visible after it under the DSL's leaking rules, in
    first-assignment order (loop variables and a loop's own carried names are excluded)."""
    if stmt is None:
        return []
    if isinstance(stmt, AssignStmt):
        return [stmt.var.name]
    if isinstance(stmt, SeqStmts):
        return _ordered([n for s in stmt.stmts for n in assigned_names(s)])
    if isinstance(stmt, ScopeStmt):
        return assigned_names(stmt.body)
    if isinstance(stmt, IfStmt):
        inner = assigned_names(stmt.then_body) + assigned_names(stmt.else_body)
        return _ordered(inner + [v.name for v in stmt.return_vars])
    if isinstance(stmt, LoopStmt):
        own = {v.name for v in stmt_binds(stmt)}
        inner = [n for n in assigned_names(stmt.body) if n not in own]
        return _ordered(inner + [v.name for v in stmt.return_vars])
    return []


class _Liveness:
    """Backward liveness of names over the input IR, with the DSL's leaking semantics."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, Names], Names] = {}
        #: id(expression) -> the variables it reads and their names (a loop's body is
        #: analysed again for each live-out set, and the converter substitutes them after).
        self.read: dict[int, tuple[list[Var], Names]] = {}

    def reads(self, expr: Expr) -> tuple[list[Var], Names]:
        found = self.read.get(id(expr))
        if found is None:
            used = expr_vars(expr)
            found = self.read[id(expr)] = (used, frozenset(v.name for v in used))
        return found

    def live_in(self, stmt: Stmt | None, out: Names) -> Names:
        if stmt is None:
            return out
        key = (id(stmt), out)
        if key not in self.memo:
            self.memo[key] = self._compute(stmt, out)
        return self.memo[key]

    def _compute(self, stmt: Stmt, out: Names) -> Names:
        if isinstance(stmt, SeqStmts):
            live = out
            for s in reversed(stmt.stmts):
                live = self.live_in(s, live)
            return live
        if isinstance(stmt, AssignStmt):
            return (out - {stmt.var.name}) | self.reads(stmt.value)[1]
        if isinstance(stmt, _EVALUATES):
            return out | _uses(direct_exprs(stmt))
        if isinstance(stmt, ReturnStmt):
            return frozenset(_uses(list(stmt.values)))
        if isinstance(stmt, ScopeStmt):
            return self.live_in(stmt.body, out)
        if isinstance(stmt, IfStmt):
            after = out - {v.name for v in stmt.return_vars}
            return (
                self.live_in(stmt.then_body, after)
                | self.live_in(stmt.else_body, after)
                | _uses([stmt.condition])
            )
        if isinstance(stmt, LoopStmt):
            after = out - {v.name for v in stmt.return_vars}
            top = self.loop_top(stmt, after)
            own = {v.name for v in stmt_binds(stmt)}
            return after | (top - own) | _uses(direct_exprs(stmt))
        return out

    def seq_outs(self, stmts: tuple[Stmt, ...], out: Names) -> list[Names]:
        """The live-out set of each statement of a sequence that holds an if or a loop (the
        only statements the converter asks about; the others get ``out``)."""
        outs: list[Names] = [out] * len(stmts)
        first = next((i for i, s in enumerate(stmts) if self.branches(s)), len(stmts))
        live = out
        for i in range(len(stmts) - 1, first - 1, -1):
            outs[i] = live
            if i > first:
                live = self.live_in(stmts[i], live)
        return outs

    def branches(self, stmt: Stmt) -> bool:
        """Whether ``stmt`` is or holds an if or a loop."""
        if isinstance(stmt, _BRANCHES):
            return True
        if isinstance(stmt, SeqStmts):
            return any(self.branches(s) for s in stmt.stmts)
        return isinstance(stmt, ScopeStmt) and self.branches(stmt.body)

    def loop_top(self, loop: LoopStmt, after: Names) -> Names:
        """Names live at the top of the loop body: read by some iteration before being
        assigned in it (a while loop's condition counts as the top of the body)."""
        cond = _uses(conditions(loop))
        top: Names = frozenset()
        while True:
            new = self.live_in(loop.body, after | top) | cond
            if new == top:
                return top
            top = new


class _Subst(IRMutator):
    """Resolve every variable use by name through the current environment."""

    def __init__(self, env: Env) -> None:
        super().__init__()
        self.env = env

    def mutate_Var(self, var: Var) -> Var:
        return self.env.get(var.name, var)

    def mutate_IterArg(self, var: IterArg) -> Var:
        return self.env.get(var.name, var)


def _in_region_of(expr: _E, env: Env) -> _E:
    """``expr`` whose tile type's valid region (2026-08) reads the scalars ``env`` names now:
    an extent computed at run time, e.g. the result of an ``if``, is renamed with the rest."""
    tile = expr.type
    if type(tile) is not TileType or tile.tile_view is None:
        return expr
    valid = tile.tile_view.valid_shape
    if valid is None or all(type(d) is ConstInt for d in valid):
        return expr
    subst = _Subst(env)
    dims = tuple(subst.mutate_expr(d) for d in valid)
    if all(new is old for new, old in zip(dims, valid, strict=True)):
        return expr
    view = records.replace(tile.tile_view, valid_shape=dims)
    return with_fields(expr, type=records.replace(tile, tile_view=view))


def _zero(t: ScalarType, span: Span) -> Expr:
    if t.dtype.is_float:
        return ConstFloat(t, value=0.0, span=span)
    if t.dtype.is_bool:
        return ConstBool(t, value=False, span=span)
    return ConstInt(t, value=0, span=span)


def _create(
    namespace: str, t: ShapedType, kwargs: tuple[tuple[str, AttrValue], ...], span: Span
) -> Call | None:
    """A call creating an uninitialised value of type ``t`` (None if the op refuses it)."""
    op = creator_op(namespace)
    shape = make_tuple(t.shape, span)
    try:
        result = op.deduce({"shape": shape}, dict(kwargs))
    except OpError:
        return None
    if not types_compatible(result, t):
        return None
    return Call(result, callee=Op(op.name), args=(shape,), kwargs=kwargs, span=span)


def _append_yield(body: Stmt | None, values: list[Expr], span: Span) -> Stmt:
    """``body`` with ``values`` added to the yield that ends it (or a new yield)."""
    stmts = flatten_seq(body_stmts(body))
    if stmts and isinstance(stmts[-1], YieldStmt):
        last = stmts[-1]
        stmts[-1] = YieldStmt(last.values + tuple(values), span=last.span)
    else:
        stmts.append(YieldStmt(tuple(values), span=span))
    body_span = body.span if body is not None and body.span.is_known else span
    return seq(stmts, body_span)


class _Converter:
    def __init__(self, fn: Function, ctx: PassContext) -> None:
        self.fn = fn
        self.ctx = ctx
        self.names = NameAllocator(v.name for v, _ in defined_vars(fn))
        self.live = _Liveness()
        self.failed = False

    def convert(self) -> Function:
        env: Env = {}
        params = tuple(self.define(p, env) for p in self.fn.params)
        body = self.stmt(self.fn.body, env, frozenset())
        return with_fields(self.fn, params=params, body=body)

    # --- names ----------------------------------------------------------------------------

    def define(self, var: Var, env: Env) -> Var:
        name = self.names.fresh(var.name)
        new = var if name == var.name else with_fields(var, name=name)
        env[var.name] = new
        return new

    def expr(self, expr: Expr, env: Env) -> Expr:
        used, _ = self.live.reads(expr)
        if all(env.get(var.name, var) is var for var in used):
            return expr  # what substitution would give, without rebuilding anything
        return _Subst(env).mutate_expr(expr)

    def entry_value(self, name: str, construct: Stmt, env: Env, prefix: list[Stmt]) -> Expr | None:
        """A value for ``name`` on the paths that skip ``construct``, where it is first
        assigned. A store result starts as the tensor it updates. Otherwise the value is
        undefined there (the DSL lets it leak anyway), and any value of the right type will
        do: zero for a scalar, a new uninitialised tile or tensor (created by a statement
        appended to ``prefix``, placed before the construct). None when neither applies."""
        first = next(
            (s for s in walk_stmts(construct) if isinstance(s, AssignStmt) and s.var.name == name),
            None,
        )
        if first is None:
            return None
        target = stored_into(first.value) if isinstance(first.value, Call) else None
        if isinstance(target, Var) and target.name in env:
            return env[target.name]
        t, span = first.var.type, first.span
        if isinstance(t, ScalarType):
            return _zero(t, span)
        if isinstance(t, TileType):
            space = tile_space(first.value)
            call = _create("block", t, (("dtype", t.dtype), ("target_memory", space)), span)
        elif isinstance(t, TensorType):
            call = _create("tensor", t, (("dtype", t.dtype),), span)
        else:
            return None
        if call is None:
            return None
        var = Var(call.type, name=self.names.fresh(name), span=span)
        prefix.append(AssignStmt(var, call, span=span))
        return var

    def first_assignment_span(self, name: str, construct: Stmt) -> Span:
        for s in walk_stmts(construct):
            if isinstance(s, AssignStmt) and s.var.name == name and s.span.is_known:
                return s.span
        return construct.span

    def fail(self, message: str, span: Span) -> None:
        self.ctx.error("E202", message, span)
        self.failed = True

    # --- statements -------------------------------------------------------------------------

    def stmt(self, stmt: Stmt, env: Env, out: Names) -> Stmt:
        """Convert one statement; ``env`` is updated to the names bound after it."""
        self.ctx.at(stmt.span)
        if isinstance(stmt, SeqStmts):
            outs = self.live.seq_outs(stmt.stmts, out)
            converted = [self.stmt(s, env, o) for s, o in zip(stmt.stmts, outs, strict=True)]
            return SeqStmts(tuple(flatten_seq(converted)), span=stmt.span)
        if isinstance(stmt, AssignStmt):
            value = _in_region_of(self.expr(stmt.value, env), env)
            var = self.define(_in_region_of(stmt.var, env), env)
            if var is stmt.var and value is stmt.value:
                return stmt
            return AssignStmt(var, value, span=stmt.span)
        if isinstance(stmt, EvalStmt):
            expr = self.expr(stmt.expr, env)
            return stmt if expr is stmt.expr else with_fields(stmt, expr=expr)
        if isinstance(stmt, _ENDS_BODY):
            values = tuple(self.expr(v, env) for v in stmt.values)
            if all(new is old for new, old in zip(values, stmt.values, strict=True)):
                return stmt
            return with_fields(stmt, values=values)
        if isinstance(stmt, ScopeStmt):
            return with_fields(stmt, body=self.stmt(stmt.body, env, out))
        if isinstance(stmt, IfStmt):
            return self.if_stmt(stmt, env, out)
        if isinstance(stmt, LoopStmt):
            return self.loop(stmt, env, out)
        return stmt

    def loop_header(self, stmt: LoopStmt, env: Env, body_env: Env) -> dict[str, Any]:
        """A loop's operands (for bounds), evaluated once before it, and its loop variable,
        defined for the body (carried values are the caller's)."""
        changes: dict[str, Any] = {}
        for name, role in layout(type(stmt)).fields:
            value = getattr(stmt, name)
            if role is OPERAND:
                changes[name] = self.expr(value, env)
            elif role is BINDS and isinstance(value, Var):
                changes[name] = self.define(value, body_env)
        return changes

    def if_stmt(self, stmt: IfStmt, env: Env, out: Names) -> Stmt:
        condition = self.expr(stmt.condition, env)
        result_names = {v.name for v in stmt.return_vars}
        after = out - result_names
        then_names, else_names = assigned_names(stmt.then_body), assigned_names(stmt.else_body)
        leaking = _ordered([n for n in then_names + else_names if n in after])

        prefix: list[Stmt] = []
        entry: dict[str, Expr] = {}
        for name in leaking:
            if name not in env and (name not in then_names or name not in else_names):
                value = self.entry_value(name, stmt, env, prefix)
                if value is None:
                    self.fail(
                        f"'{name}' is assigned in only one branch of this if but used "
                        "after it; assign it in both branches or before the if",
                        self.first_assignment_span(name, stmt),
                    )
                    continue
                entry[name] = value
        leaking = [
            n for n in leaking if n in env or n in entry or (n in then_names and n in else_names)
        ]
        if leaking and stmt.else_body is None and stmt.return_vars:
            self.fail(
                "this if has results but no else branch, so the names its branch "
                f"assigns ({', '.join(leaking)}) cannot be merged after it; add an else "
                "branch",
                stmt.span,
            )
            leaking = []

        then_env, else_env = dict(env), dict(env)
        then_body = self.stmt(stmt.then_body, then_env, after)
        else_body = (
            self.stmt(stmt.else_body, else_env, after) if stmt.else_body is not None else None
        )
        merged = [(n, then_env.get(n) or entry[n], else_env.get(n) or entry[n]) for n in leaking]
        if merged:
            then_body = _append_yield(then_body, [m[1] for m in merged], stmt.span)
            else_body = _append_yield(else_body, [m[2] for m in merged], stmt.span)

        results = [self.define(v, env) for v in stmt.return_vars]
        for name, then_value, _ in merged:
            result = Var(then_value.type, name=self.names.fresh(name), span=stmt.span)
            env[name] = result
            results.append(result)
        new = IfStmt(condition, then_body, else_body, tuple(results), span=stmt.span)
        return SeqStmts((*prefix, new), span=stmt.span) if prefix else new

    def loop(self, stmt: LoopStmt, env: Env, out: Names) -> Stmt:
        after = out - {v.name for v in stmt.return_vars}
        top = self.live.loop_top(stmt, after)
        own = {v.name for v in stmt_binds(stmt)}

        prefix: list[Stmt] = []
        carried: list[tuple[str, Expr]] = []  # name, value before the loop
        for name in assigned_names(stmt.body):
            if name in own or (name not in top and name not in after):
                continue
            start: Expr | None = env.get(name)
            if start is None and name in after:
                start = self.entry_value(name, stmt.body, env, prefix)
                if start is None:
                    self.fail(
                        f"'{name}' is first assigned inside this loop and used after it; "
                        "assign it before the loop",
                        self.first_assignment_span(name, stmt),
                    )
            if start is not None:
                carried.append((name, start))

        body_env = dict(env)
        changes = self.loop_header(stmt, env, body_env)
        iter_args: list[IterArg] = []
        for arg in stmt.iter_args:
            init = self.expr(arg.init_value, env) if arg.init_value is not None else None
            new = with_fields(arg, name=self.names.fresh(arg.name), init_value=init)
            body_env[arg.name] = new
            iter_args.append(new)
        for name, start in carried:
            new = IterArg(start.type, name=self.names.fresh(name), init_value=start, span=stmt.span)
            body_env[name] = new
            iter_args.append(new)

        # A while condition is evaluated at the top of every iteration.
        for field_name in layout(type(stmt)).conditions:
            changes[field_name] = self.expr(getattr(stmt, field_name), body_env)
        body = self.stmt(stmt.body, body_env, after | top)
        if carried:
            body = _append_yield(body, [body_env[name] for name, _ in carried], stmt.span)
        results = [self.define(v, env) for v in stmt.return_vars]
        for (name, _), arg in zip(carried, iter_args[len(stmt.iter_args) :], strict=True):
            result = Var(arg.type, name=self.names.fresh(name), span=stmt.span)
            env[name] = result
            results.append(result)
        loop = with_fields(
            stmt, body=body, iter_args=tuple(iter_args), return_vars=tuple(results), **changes
        )
        return SeqStmts((*prefix, loop), span=stmt.span) if prefix else loop


class ConvertToSSA(FunctionPass):
    name = "ConvertToSSA"
    description = (
        "Give every definition its own name (x, x_1, ...) and turn names that leak "
        "out of if branches and loop bodies into if results and loop-carried values; "
        "then verify that every variable is bound once."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        converter = _Converter(fn, ctx)
        result = converter.convert()
        if not converter.failed:
            verify_ssa(result, ctx)
        return result
