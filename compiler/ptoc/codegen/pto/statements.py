"""Statements -> the function body: op groups, ``scf.for`` / ``scf.if`` / ``scf.while``.

Loop-carried values and branch results of every kind (tile buffers, tensor views, scalars)
travel through the scf construct's ``iter_args`` / results, so each IR variable has exactly one
SSA value. Each failing statement becomes a diagnostic plus an ``// error:`` line, and the
variables it defines are marked failed so that their uses are skipped, not re-reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...ir.expr import Call, Expr, IterArg, MakeTuple, Var
from ...ir.span import Span
from ...ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ...ir.types import ScalarType, TensorType, TileType
from ..common import CodegenError
from . import mlir_types as mt
from . import ops, scalars
from .context import POISON, Binding, FunctionContext, Poisoned
from .emitter import Value


def emit_block(ctx: FunctionContext, body: Stmt | None) -> YieldStmt | None:
    """Emit the statements of a body; returns its (last) yield, which the caller lowers."""
    found: YieldStmt | None = None
    for stmt in _flatten(body):
        if isinstance(stmt, YieldStmt):
            found = stmt
        else:
            emit_statement(ctx, stmt)
    return found


def _flatten(stmt: Stmt | None) -> list[Stmt]:
    if stmt is None:
        return []
    if isinstance(stmt, SeqStmts):
        return [s for inner in stmt.stmts for s in _flatten(inner)]
    if isinstance(stmt, ScopeStmt):  # an InCore scope is already the kernel: inline it
        return _flatten(stmt.body)
    return [stmt]


def emit_statement(ctx: FunctionContext, stmt: Stmt) -> None:
    try:
        _dispatch(ctx, stmt)
    except CodegenError as error:
        ctx.report(error)
        _poison_definitions(ctx, stmt)
    except Poisoned as poisoned:
        ctx.skipped(poisoned)
        _poison_definitions(ctx, stmt)
    except Exception as exc:  # a bug here must not take the rest of the function down
        ctx.report(CodegenError("E900", f"PTO code generator failed here: {exc!r}", stmt.span))
        _poison_definitions(ctx, stmt)


def _poison_definitions(ctx: FunctionContext, stmt: Stmt) -> None:
    defined: Sequence[Var] = ()
    if isinstance(stmt, AssignStmt):
        defined = (stmt.var,)
    elif isinstance(stmt, ForStmt | IfStmt | WhileStmt):
        defined = stmt.return_vars
    for var in defined:
        if var not in ctx.env:
            ctx.bind(var, POISON)


def _dispatch(ctx: FunctionContext, stmt: Stmt) -> None:
    match stmt:
        case AssignStmt():
            _assign(ctx, stmt)
        case EvalStmt():
            if isinstance(stmt.expr, Call):
                _call(ctx, stmt.expr, None, stmt.span)
        case ForStmt():
            _for(ctx, stmt)
        case IfStmt():
            _if(ctx, stmt)
        case WhileStmt():
            _while(ctx, stmt)
        case ReturnStmt():
            _return(ctx, stmt)
        case _:
            raise CodegenError("E400", f"{type(stmt).__name__} has no PTO lowering", stmt.span)


def _call(ctx: FunctionContext, call: Call, result: Var | None, span: Span) -> Binding | None:
    ctx.out.begin(ops.statement_kind(call))
    comment = ops.comment_for(call, result)
    if comment is not None:
        ctx.out.comment(comment)
    return ops.lower_call(ctx, call, result, span)


def _assign(ctx: FunctionContext, stmt: AssignStmt) -> None:
    value = stmt.value
    if isinstance(value, Call):
        bound = _call(ctx, value, stmt.var, stmt.span)
        ctx.bind(stmt.var, bound if bound is not None else POISON)
        return
    ctx.out.begin("scalar")
    ctx.bind(stmt.var, _binding(ctx, value, stmt.span))


def _binding(ctx: FunctionContext, expr: Expr, span: Span) -> Binding:
    """What a plain (non-call) right-hand side stands for; names simply alias."""
    if isinstance(expr, Var):
        return ctx.binding(expr, span)
    if isinstance(expr, MakeTuple):
        return tuple(_binding(ctx, e, span) for e in expr.elements)
    if isinstance(expr.type, ScalarType):
        return scalars.scalar(ctx, expr, span)
    raise CodegenError("E400", f"{type(expr).__name__} of {expr.type.short()} has no PTO lowering", span)


def _return(ctx: FunctionContext, stmt: ReturnStmt) -> None:
    if ctx.depth > 0:
        raise CodegenError("E400", "a return inside a loop or branch has no PTO lowering", stmt.span)
    values: list[Value] = []
    for expr in stmt.values:
        if isinstance(expr.type, TensorType):
            continue  # the data is already in the caller's tensor; kernels return nothing
        if isinstance(expr.type, TileType):
            raise CodegenError(
                "E400", "a PTO kernel cannot return a tile; store it to a tensor", expr.span
            )
        ctx.out.begin("scalar")
        want = mt.scalar_type(scalars.scalar_dtype(expr, stmt.span), stmt.span)
        values.append(scalars.scalar(ctx, expr, stmt.span, want))
    ctx.returned = values


# --- loop-carried values -------------------------------------------------------------------------


def _carried(ctx: FunctionContext, expr: Expr | None, var: Var, span: Span) -> Value:
    """The SSA value an iter_arg starts from (scalars in their arithmetic type)."""
    if expr is None:
        raise CodegenError("E400", f"loop-carried '{var.name}' has no initial value", span)
    if isinstance(expr.type, ScalarType):
        return scalars.scalar(ctx, expr, span, mt.arith_type(expr.type.dtype, span))
    if isinstance(expr, Var):
        return ctx.value(expr, span)
    raise CodegenError("E400", f"'{var.name}' must start from a variable", span)


def _results(ctx: FunctionContext, count: int) -> tuple[str, list[str]]:
    """The ``%N = `` / ``%N:k = `` prefix of a construct with results, and the result names."""
    if count == 0:
        return "", []
    base = ctx.names.number()
    if count == 1:
        return f"{base} = ", [base]
    return f"{base}:{count} = ", [f"{base}#{i}" for i in range(count)]


def _types(values: Sequence[Value]) -> str:
    return ", ".join(v.type for v in values)


def _yield(
    ctx: FunctionContext,
    stmt: YieldStmt | None,
    types: Sequence[str] | None,
    span: Span,
) -> list[Value] | None:
    """Emit the terminator of a region; ``types`` (when known) are what it must yield.

    Reports a failure in place and returns None instead of raising, so the enclosing
    construct is still closed properly.
    """
    ctx.out.begin("yield")
    try:
        exprs = stmt.values if stmt is not None else ()
        at = stmt.span if stmt is not None and stmt.span.is_known else span
        count = len(types) if types is not None else len(exprs)
        if len(exprs) != count:
            raise CodegenError("E400", f"this region yields {len(exprs)} values, expected {count}", at)
        values = [
            _yielded(ctx, expr, types[i] if types is not None else None, at)
            for i, expr in enumerate(exprs)
        ]
    except CodegenError as error:
        ctx.report(error)
        return None
    except Poisoned as poisoned:
        ctx.skipped(poisoned)
        return None
    if values:
        names = ", ".join(v.name for v in values)
        ctx.out.line(f"scf.yield {names} : {_types(values)}")
    return values


def _yielded(ctx: FunctionContext, expr: Expr, want: str | None, span: Span) -> Value:
    if isinstance(expr.type, ScalarType):
        own = mt.arith_type(expr.type.dtype, span)
        return scalars.scalar(ctx, expr, span, want if want is not None else own)
    value = ctx.value(expr, span) if isinstance(expr, Var) else None
    if value is None:
        raise CodegenError("E400", "only variables and scalars can be yielded", span)
    if want is not None and value.type != want:
        raise CodegenError(
            "E400", f"yielded value has type {value.type}, but the loop carries {want}", span
        )
    return value


# --- control flow -----------------------------------------------------------------------------


def _for(ctx: FunctionContext, stmt: ForStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    start = scalars.index(ctx, stmt.start, span)
    stop = scalars.index(ctx, stmt.stop, span)
    step = scalars.index(ctx, stmt.step, span)
    inits = [_carried(ctx, ia.init_value, ia, span) for ia in stmt.iter_args]
    prefix, results = _results(ctx, len(stmt.iter_args))
    induction = ctx.names.unique(stmt.loop_var.name)
    arg_names = [ctx.names.unique(ia.name) for ia in stmt.iter_args]
    header = f"scf.for {induction} = {start.name} to {stop.name} step {step.name}"
    if inits:
        pairs = ", ".join(f"{name} = {init.name}" for name, init in zip(arg_names, inits, strict=True))
        header += f" iter_args({pairs}) -> ({_types(inits)})"
    if stmt.kind is ForKind.Parallel:
        ctx.out.comment("parallel loop: iterations are independent")
    ctx.out.line(prefix + header + " {")
    ctx.bind(stmt.loop_var, Value(induction, mt.INDEX))
    for ia, name, init in zip(stmt.iter_args, arg_names, inits, strict=True):
        ctx.bind(ia, Value(name, init.type))
    with ctx.region() as body:
        found = emit_block(ctx, stmt.body)
        if inits:
            _yield(ctx, found, [v.type for v in inits], span)
    ctx.out.splice(body)
    ctx.out.line("}")
    _bind_results(ctx, stmt.return_vars, results, [v.type for v in inits], span)


def _bind_results(
    ctx: FunctionContext, variables: Sequence[Var], names: list[str], types: list[str], span: Span
) -> None:
    if len(variables) != len(names):
        raise CodegenError(
            "E400", f"{len(variables)} result variables for {len(names)} carried values", span
        )
    for var, name, type_ in zip(variables, names, types, strict=True):
        ctx.bind(var, Value(name, type_))


def _if(ctx: FunctionContext, stmt: IfStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    count = len(stmt.return_vars)
    if count and stmt.else_body is None:
        raise CodegenError("E400", "an if with results needs an else branch (scf.if)", span)
    cond = scalars.condition(ctx, stmt.condition, span)
    prefix, results = _results(ctx, count)
    with ctx.region() as then_lines:
        found = emit_block(ctx, stmt.then_body)
        then_values = _yield(ctx, found, None, span) if count else None
    types = [v.type for v in then_values] if then_values is not None else None
    else_lines: list[str] = []
    if stmt.else_body is not None:
        with ctx.region() as else_lines:
            found = emit_block(ctx, stmt.else_body)
            if count:
                _yield(ctx, found, types, span)
    header = f"scf.if {cond.name}"
    if types is not None and count:
        header += " -> (" + ", ".join(types) + ")"
    ctx.out.line(prefix + header + " {")
    ctx.out.splice(then_lines)
    if stmt.else_body is not None:
        ctx.out.line("} else {")
        ctx.out.splice(else_lines)
    ctx.out.line("}")
    if types is None:
        for var in stmt.return_vars:
            ctx.bind(var, POISON)
    else:
        _bind_results(ctx, stmt.return_vars, results, types, span)


def _while(ctx: FunctionContext, stmt: WhileStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    inits = [_carried(ctx, ia.init_value, ia, span) for ia in stmt.iter_args]
    types = [v.type for v in inits]
    prefix, results = _results(ctx, len(inits))
    before = [ctx.names.unique(ia.name) for ia in stmt.iter_args]
    after = [ctx.names.unique(ia.name) for ia in stmt.iter_args]
    signature = f"({', '.join(types)}) -> ({', '.join(types)})"
    if inits:
        pairs = ", ".join(f"{b} = {i.name}" for b, i in zip(before, inits, strict=True))
        ctx.out.line(f"{prefix}scf.while ({pairs}) : {signature} {{")
    else:
        ctx.out.line(f"scf.while : {signature} {{")
    _bind_iter_args(ctx, stmt.iter_args, before, types)
    with ctx.region() as condition_lines:
        _condition_region(ctx, stmt.condition, before, types, span)
    ctx.out.splice(condition_lines)
    ctx.out.line("} do {")
    _bind_iter_args(ctx, stmt.iter_args, after, types)
    with ctx.region() as body:
        if inits:
            args = ", ".join(f"{a}: {t}" for a, t in zip(after, types, strict=True))
            ctx.out.label(f"^bb0({args}):")
        found = emit_block(ctx, stmt.body)
        if inits:
            _yield(ctx, found, types, span)
    ctx.out.splice(body)
    ctx.out.line("}")
    _bind_results(ctx, stmt.return_vars, results, types, span)


def _bind_iter_args(
    ctx: FunctionContext, iter_args: Sequence[IterArg], names: list[str], types: list[str]
) -> None:
    for ia, name, type_ in zip(iter_args, names, types, strict=True):
        ctx.bind(ia, Value(name, type_))


def _condition_region(
    ctx: FunctionContext, expr: Expr, names: list[str], types: list[str], span: Span
) -> None:
    try:
        cond = scalars.condition(ctx, expr, span)
    except CodegenError as error:
        ctx.report(error)
        return
    except Poisoned as poisoned:
        ctx.skipped(poisoned)
        return
    carried = f" {', '.join(names)} : {', '.join(types)}" if names else ""
    ctx.out.line(f"scf.condition({cond.name}){carried}")
