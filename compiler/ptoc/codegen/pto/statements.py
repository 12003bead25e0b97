"""Statements -> the function body: op groups, ``scf.for`` / ``scf.if`` / ``scf.while``.

Loop-carried scalars and tensor views and branch results of those kinds travel through the
scf construct's ``iter_args`` / results, so each IR variable has exactly one SSA value. A tile
is a buffer, not a value (PTO IR level 2), and PTOAS cannot lower a ``tile_buf`` iter_arg
(its memrefs and the iter_arg's type disagree): a carried tile lives in one home buffer, the
result variable's MemRef, which the passes give the initial value too; the initial value and
each iteration's (or branch's) yielded tile are copied there with ``pto.tmov`` when they are
in another buffer. Each failing statement becomes a diagnostic plus an ``// error:`` line, and the
variables it defines are marked failed so that their uses are skipped, not re-reported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...ir.expr import Call, ConstInt, Expr, IterArg, MakeTuple, Var
from ...ir.span import Span
from ...ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    LoopJumpStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ...ir.types import MemorySpace, ScalarType, TensorType, TileType
from ...ir.visitor import Node, children
from ...ops.registry import REGISTRY, OpDef, Role
from ...passes.irutil import final_yield, flatten_seq
from ..common import CodegenError, no_loop_jumps
from . import expressions, ops
from . import mlir_types as mt
from .context import POISON, Binding, FunctionContext, Poisoned
from .emitter import Region, Value


def emit_block(ctx: FunctionContext, body: Stmt | None) -> YieldStmt | None:
    """Emit the statements of a body; returns its (last) yield, which the caller lowers."""
    found: YieldStmt | None = None
    for stmt in flatten(body):
        if isinstance(stmt, YieldStmt):
            found = stmt
        else:
            emit_statement(ctx, stmt)
    return found


def flatten(stmt: Stmt | None) -> list[Stmt]:
    if stmt is None:
        return []
    if isinstance(stmt, SeqStmts):
        return [s for inner in stmt.stmts for s in flatten(inner)]
    if isinstance(stmt, ScopeStmt):  # an InCore scope is already the kernel: inline it
        return flatten(stmt.body)
    return [stmt]


def emit_statement(ctx: FunctionContext, stmt: Stmt) -> None:
    """One statement's lines, attributed to it; a failure is reported at its spot and the
    variables it defines are marked failed (one frame: the body of every function runs
    through here)."""
    out = ctx.out
    saved = out.span
    if stmt.span.is_known:
        out.span = stmt.span  # the lines emitted now come from this statement
    try:
        lower = _STATEMENTS.get(type(stmt))
        if lower is None:
            raise CodegenError("E400", f"{type(stmt).__name__} has no PTO lowering", stmt.span)
        lower(ctx, stmt)
    except CodegenError as error:
        ctx.report(error)
        _poison_definitions(ctx, stmt)
    except Poisoned as poisoned:
        ctx.skipped(poisoned)
        _poison_definitions(ctx, stmt)
    except Exception as exc:  # a bug here must not take the rest of the function down
        ctx.report(CodegenError("E900", f"PTO code generator failed here: {exc!r}", stmt.span))
        _poison_definitions(ctx, stmt)
    finally:
        out.span = saved


def _poison_definitions(ctx: FunctionContext, stmt: Stmt) -> None:
    defined: Sequence[Var] = ()
    if isinstance(stmt, AssignStmt):
        defined = (stmt.var,)
    elif isinstance(stmt, ForStmt | IfStmt | WhileStmt):
        defined = stmt.return_vars
    for var in defined:
        if var not in ctx.env:
            ctx.bind(var, POISON)


def _eval(ctx: FunctionContext, stmt: EvalStmt) -> None:
    if isinstance(stmt.expr, Call):
        _call(ctx, stmt.expr, None, stmt.span)


def _call(ctx: FunctionContext, call: Call, result: Var | None, span: Span) -> Binding | None:
    op = ops.registered(call)
    ctx.out.begin(ops.statement_kind(op))
    comment = ops.comment_for(op, call, result)
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
        return expressions.scalar(ctx, expr, span)
    raise CodegenError(
        "E400", f"{type(expr).__name__} of {expr.type.short()} has no PTO lowering", span
    )


def _return(ctx: FunctionContext, stmt: ReturnStmt) -> None:
    if ctx.depth > 0:
        raise CodegenError(
            "E400", "a return inside a loop or branch has no PTO lowering", stmt.span
        )
    pointers = iter(ctx.result_pointers)
    ctx.returned = []
    for expr in stmt.values:
        if isinstance(expr.type, TensorType):
            continue  # the data is already in the caller's tensor; kernels return nothing
        if isinstance(expr.type, TileType):
            raise CodegenError(
                "E400", "a PTO kernel cannot return a tile; store it to a tensor", expr.span
            )
        if ctx.returns_values:
            ctx.out.begin("scalar")
            want = mt.scalar_type(expressions.scalar_dtype(expr, stmt.span), stmt.span)
            ctx.returned.append(expressions.scalar(ctx, expr, stmt.span, want))
            continue
        pointer = next(pointers, None)
        if pointer is None:
            raise CodegenError(
                "E400", "this return has more scalars than the function's result types", expr.span
            )
        ctx.out.begin("scalar")
        want = mt.scalar_type(expressions.scalar_dtype(expr, stmt.span), stmt.span)
        value = expressions.scalar(ctx, expr, stmt.span, want)
        element = pointer.type.removeprefix("!pto.ptr<").removesuffix(">")
        if element != value.type:
            value = expressions.coerce(ctx, value, element, stmt.span)
        zero = ctx.constants.integer(0)
        ctx.out.line(
            f"pto.store_scalar {value.name}, {pointer.name}[{zero.name}] "
            f": {pointer.type}, {value.type}"
        )


# --- loop-carried values -------------------------------------------------------------------------


def _carried(ctx: FunctionContext, expr: Expr | None, var: Var, span: Span) -> Value:
    """The SSA value an iter_arg starts from (scalars in their arithmetic type)."""
    if expr is None:
        raise CodegenError("E400", f"loop-carried '{var.name}' has no initial value", span)
    if isinstance(expr.type, ScalarType):
        return expressions.scalar(ctx, expr, span, mt.arith_type(expr.type.dtype, span))
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


def _home(ctx: FunctionContext, carried: Var, result: Var | None, span: Span) -> Value | None:
    """The buffer a carried tile lives in (its result variable's, else its own); None for
    values that travel through the scf construct; an if's result a loop's carried tile
    is written through has that tile's home (``_redirect``)."""
    if result is not None and result in ctx.redirects:
        return ctx.redirects[result]
    for var in (result, carried):
        if var is not None and isinstance(var.type, TileType) and var.type.memref is not None:
            return ctx.buffer(var.type, var.name, span)
    if isinstance(carried.type, TileType):
        raise CodegenError("E403", f"carried tile '{carried.name}' has no buffer (MemRef)", span)
    return None


def _homes(
    ctx: FunctionContext, carried: Sequence[Var], results: Sequence[Var], span: Span
) -> list[Value | None]:
    if len(results) != len(carried):
        raise CodegenError(
            "E400", f"{len(results)} result variables for {len(carried)} carried values", span
        )
    return [_home(ctx, c, r, span) for c, r in zip(carried, results, strict=True)]


def _copy(ctx: FunctionContext, source: Value, home: Value, span: Span) -> None:
    """Put a carried tile into its home buffer (nothing when it is already there)."""
    if source.name == home.name:
        return
    if source.type != home.type:
        raise CodegenError(
            "E400",
            f"a carried tile changes its buffer type ({source.type} -> {home.type}); PTO "
            "needs one type per carried tile",
            span,
        )
    if "loc=vec" not in home.type:
        raise CodegenError(
            "E400",
            "a carried tile outside Vec is updated in place (PTO copies tiles only vec -> "
            "vec): yield the result of the op that updates it, and read the carried value "
            "only up to that op",
            span,
        )
    ctx.out.begin("block")
    _ins_outs_copy(ctx, source, home)


def _ins_outs_copy(ctx: FunctionContext, source: Value, home: Value) -> None:
    move = _vec_copy()
    ctx.out.comment("carried tile: into its home buffer")
    ctx.out.line(f"{move} ins({source.typed()})", f"outs({home.typed()})", hang=len(move) + 1)


def _redirect(
    ctx: FunctionContext, body: Stmt, carried: Sequence[Var], homes: Sequence[Value | None]
) -> None:
    """PTO copies tiles only within Vec, so a carried tile elsewhere (an Acc accumulator)
    cannot be copied home: the statement of the body that produces the yielded tile writes
    the home buffer itself, when nothing after it in the body reads the carried value
    (``nxt = matmul_acc(acc, a, b)`` accumulates in place, as TMATMUL_ACC does). A yielded
    if result is followed into both branches (a K loop's ``if k0 == 0: acc = matmul(..)
    else: acc = matmul_acc(acc, ..)``): each branch's producer writes the home too."""
    stmts = flatten(body)
    if not stmts or not isinstance(stmts[-1], YieldStmt):
        return
    for k, (var, home) in enumerate(zip(carried, homes, strict=False)):
        if home is not None and "loc=vec" not in home.type:
            _redirect_yield(ctx, stmts, k, var, home)


def _redirect_yield(ctx: FunctionContext, stmts: list[Stmt], k: int, var: Var, home: Value) -> bool:
    """Redirect the producer of the ``k``-th value the final yield of ``stmts`` yields into
    ``home`` when nothing after it reads ``var`` (the carried value); True when done."""
    last = stmts[-1] if stmts else None
    if not isinstance(last, YieldStmt) or k >= len(last.values):
        return False
    value = last.values[k]
    if not isinstance(value, Var):
        return False
    index = next((i for i, s in enumerate(stmts) if _defines(s, value)), None)
    if index is None or any(_mentions(s, var) for s in stmts[index + 1 : -1]):
        return False
    producer = stmts[index]
    if isinstance(producer, IfStmt):
        at = producer.return_vars.index(value)
        before = dict(ctx.redirects)
        branches = (producer.then_body, producer.else_body)
        if not all(
            b is not None and _redirect_yield(ctx, flatten(b), at, var, home) for b in branches
        ):
            ctx.redirects = before  # both branches or neither
            return False
    elif not (isinstance(value.type, TileType) and value.type.memref is not None):
        return False
    else:
        try:
            same = mt.tile_buf_type(value.type, producer.span) == home.type
        except CodegenError:
            same = False
        if not same:
            return False
    ctx.redirects[value] = home
    return True


def _defines(stmt: Stmt, var: Var) -> bool:
    if isinstance(stmt, AssignStmt):
        return stmt.var is var
    return isinstance(stmt, IfStmt) and var in stmt.return_vars


def _mentions(node: Node, var: Var) -> bool:
    return node is var or any(_mentions(child, var) for child in children(node))


def _vec_copy() -> str:
    """The instruction of the registry's copy within Vec (block.vec_move: pto.tmov)."""
    op = REGISTRY.first(Role.MOVE, "block", _copies_within_vec)
    if op is None or op.pto.instruction is None:
        raise CodegenError("E900", "the registry has no Vec-to-Vec tile copy")
    return op.pto.instruction


def _copies_within_vec(op: OpDef) -> bool:
    tile = op.expr_params[0] if op.expr_params else None
    return tile is not None and tile.spaces == (MemorySpace.Vec,) and bool(op.pto.instruction)


def _yield(
    ctx: FunctionContext,
    stmt: YieldStmt | None,
    types: Sequence[str | None] | None,
    span: Span,
    homes: Sequence[Value | None] = (),
) -> list[Value] | None:
    """Emit the terminator of a region; ``types`` (when known) are what it must yield.
    Values with a home buffer (carried tiles) are copied there instead of yielded.

    Reports a failure in place and returns None instead of raising, so the enclosing
    construct is still closed properly.
    """
    with ctx.out.statement(stmt.span if stmt is not None else span):
        return _emit_yield(ctx, stmt, types, span, homes)


def _emit_yield(
    ctx: FunctionContext,
    stmt: YieldStmt | None,
    types: Sequence[str | None] | None,
    span: Span,
    homes: Sequence[Value | None],
) -> list[Value] | None:
    ctx.out.begin("yield")
    try:
        exprs = stmt.values if stmt is not None else ()
        at = stmt.span if stmt is not None and stmt.span.is_known else span
        count = len(types) if types is not None else len(exprs)
        if len(exprs) != count:
            raise CodegenError(
                "E400", f"this region yields {len(exprs)} values, expected {count}", at
            )
        values: list[Value] = []
        for i, expr in enumerate(exprs):
            home = homes[i] if i < len(homes) else None
            if home is not None:
                _copy(ctx, _yielded(ctx, expr, None, at), home, at)
                ctx.out.begin("yield")
                continue
            values.append(_yielded(ctx, expr, types[i] if types is not None else None, at))
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
        return expressions.scalar(ctx, expr, span, want if want is not None else own)
    value = ctx.value(expr, span) if isinstance(expr, Var) else None
    if value is None:
        raise CodegenError("E400", "only variables and scalars can be yielded", span)
    if want is not None and value.type != want:
        raise CodegenError(
            "E400", f"yielded value has type {value.type}, but the loop carries {want}", span
        )
    return value


# --- control flow -----------------------------------------------------------------------------


def _counter_type(stmt: ForStmt) -> str:
    """PTOAS declares an ``index`` loop counter ``size_t`` in its C++, so a loop over negative
    numbers would never run: such a loop counts in i64 (``int64_t``) instead."""
    bounds = (stmt.start, stmt.stop, stmt.step)
    if any(isinstance(b, ConstInt) and b.value < 0 for b in bounds):
        return "i64"
    return mt.INDEX


def _for(ctx: FunctionContext, stmt: ForStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    counter = _counter_type(stmt)
    start = expressions.scalar(ctx, stmt.start, span, counter)
    stop = expressions.scalar(ctx, stmt.stop, span, counter)
    step = expressions.scalar(ctx, stmt.step, span, counter)
    homes = _homes(ctx, stmt.iter_args, stmt.return_vars, span)
    inits = [_carried(ctx, ia.init_value, ia, span) for ia in stmt.iter_args]
    for init, home in zip(inits, homes, strict=True):
        if home is not None:
            _copy(ctx, init, home, span)
    scf = [i for i, home in enumerate(homes) if home is None]
    ctx.out.begin("control")
    prefix, results = _results(ctx, len(scf))
    induction = ctx.names.unique(stmt.loop_var.name)
    arg_names = {i: ctx.names.unique(stmt.iter_args[i].name) for i in scf}
    header = f"scf.for {induction} = {start.name} to {stop.name} step {step.name}"
    if scf:
        pairs = ", ".join(f"{arg_names[i]} = {inits[i].name}" for i in scf)
        header += f" iter_args({pairs}) -> ({_types([inits[i] for i in scf])})"
    if counter != mt.INDEX:
        header += f" : {counter}"  # after iter_args, where scf.for's syntax puts it
    if stmt.kind is ForKind.Parallel:
        ctx.out.comment("parallel loop: iterations are independent")
    ctx.out.line(prefix + header + " {")
    ctx.bind(stmt.loop_var, Value(induction, counter))
    for i, (ia, home) in enumerate(zip(stmt.iter_args, homes, strict=True)):
        ctx.bind(ia, home if home is not None else Value(arg_names[i], inits[i].type))
    types = [inits[i].type if home is None else None for i, home in enumerate(homes)]
    _redirect(ctx, stmt.body, stmt.iter_args, homes)
    with ctx.region() as body:
        found = emit_block(ctx, stmt.body)
        if inits:
            _yield(ctx, found, types, span, homes)
    ctx.out.splice(body)
    ctx.out.line("}")
    _bind_carried(ctx, stmt.return_vars, homes, results, types)


def _bind_carried(
    ctx: FunctionContext,
    variables: Sequence[Var],
    homes: Sequence[Value | None],
    names: list[str],
    types: Sequence[str | None],
) -> None:
    """Results: a carried tile is its home buffer; the others are the construct's results."""
    scf_results = iter(names)
    for var, home, type_ in zip(variables, homes, types, strict=True):
        if home is not None:
            ctx.bind(var, home)
        else:
            assert type_ is not None
            ctx.bind(var, Value(next(scf_results), type_))


def _if(ctx: FunctionContext, stmt: IfStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    count = len(stmt.return_vars)
    if count and stmt.else_body is None:
        raise CodegenError("E400", "an if with results needs an else branch (scf.if)", span)
    homes = _homes(ctx, stmt.return_vars, stmt.return_vars, span)
    cond = expressions.condition(ctx, stmt.condition, span)
    for branch in (stmt.then_body, stmt.else_body):
        _convert_passed_on(ctx, branch, span)
    scf_count = sum(1 for home in homes if home is None)
    prefix, results = _results(ctx, scf_count)
    with ctx.region() as then_lines:
        found = emit_block(ctx, stmt.then_body)
        then_values = _yield(ctx, found, None, span, homes) if count else None
    types: list[str | None] | None = None
    if then_values is not None:
        scf_types = iter(v.type for v in then_values)
        types = [next(scf_types) if home is None else None for home in homes]
    else_lines: Region | None = None
    if stmt.else_body is not None:
        with ctx.region() as else_lines:
            found = emit_block(ctx, stmt.else_body)
            if count:
                _yield(ctx, found, types, span, homes)
    header = f"scf.if {cond.name}"
    if types is not None and scf_count:
        header += " -> (" + ", ".join(t for t in types if t is not None) + ")"
    ctx.out.line(prefix + header + " {")
    ctx.out.splice(then_lines)
    if else_lines is not None and (else_lines.lines or scf_count):
        ctx.out.line("} else {")
        ctx.out.splice(else_lines)
    ctx.out.line("}")
    if types is None:
        for var in stmt.return_vars:
            ctx.bind(var, POISON)
    else:
        _bind_carried(ctx, stmt.return_vars, homes, results, types)


def _convert_passed_on(ctx: FunctionContext, branch: Stmt | None, span: Span) -> None:
    """Convert, before an ``scf.if``, the outer scalars a branch only passes on to its yield
    (``vlen = last_valid_len`` ... ``pl.yield_(vlen)``) into the type it yields. PTOAS v0.57
    aborts (an mlir::IRMapping lookup assertion) on a branch that casts a value defined outside
    it into the index it yields as a load's valid extent (upstream's 06_dyn_valid_shape.py);
    the casts are cached at this level, so the branch reuses them instead of casting."""
    final = final_yield(branch)
    if branch is None or final is None:
        return
    copies = {
        s.var: s.value
        for s in flatten_seq([branch])
        if isinstance(s, AssignStmt) and isinstance(s.value, Var)
    }
    for value in final.values:
        if not (isinstance(value, Var) and isinstance(value.type, ScalarType)):
            continue
        source: Expr = value
        for _ in range(len(copies)):  # a chain of copies: a = n; b = a; yield b
            if not isinstance(source, Var) or source not in copies:
                break
            source = copies[source]
        outer = ctx.env.get(source) if isinstance(source, Var) else None
        if isinstance(outer, Value):
            ctx.out.begin("scalar")
            expressions.coerce(ctx, outer, mt.arith_type(value.type.dtype, span), span)


def _while(ctx: FunctionContext, stmt: WhileStmt) -> None:
    ctx.out.begin("control")
    span = stmt.span
    homes = _homes(ctx, stmt.iter_args, stmt.return_vars, span)
    inits = [_carried(ctx, ia.init_value, ia, span) for ia in stmt.iter_args]
    for init, home in zip(inits, homes, strict=True):
        if home is not None:
            _copy(ctx, init, home, span)
    ctx.out.begin("control")
    scf = [i for i, home in enumerate(homes) if home is None]
    types = [inits[i].type for i in scf]
    prefix, results = _results(ctx, len(scf))
    before = {i: ctx.names.unique(stmt.iter_args[i].name) for i in scf}
    after = {i: ctx.names.unique(stmt.iter_args[i].name) for i in scf}
    signature = f"({', '.join(types)}) -> ({', '.join(types)})"
    if scf:
        pairs = ", ".join(f"{before[i]} = {inits[i].name}" for i in scf)
        ctx.out.line(f"{prefix}scf.while ({pairs}) : {signature} {{")
    else:
        ctx.out.line(f"scf.while : {signature} {{")
    _bind_iter_args(ctx, stmt.iter_args, homes, before, inits)
    with ctx.region() as condition_lines:
        _condition_region(ctx, stmt.condition, [before[i] for i in scf], types, span)
    ctx.out.splice(condition_lines)
    ctx.out.line("} do {")
    _bind_iter_args(ctx, stmt.iter_args, homes, after, inits)
    all_types = [inits[i].type if home is None else None for i, home in enumerate(homes)]
    _redirect(ctx, stmt.body, stmt.iter_args, homes)
    with ctx.region() as body:
        if scf:
            args = ", ".join(f"{after[i]}: {inits[i].type}" for i in scf)
            ctx.out.label(f"^bb0({args}):")
        found = emit_block(ctx, stmt.body)
        if inits:
            _yield(ctx, found, all_types, span, homes)
    ctx.out.splice(body)
    ctx.out.line("}")
    _bind_carried(ctx, stmt.return_vars, homes, results, all_types)


def _bind_iter_args(
    ctx: FunctionContext,
    iter_args: Sequence[IterArg],
    homes: Sequence[Value | None],
    names: dict[int, str],
    inits: Sequence[Value],
) -> None:
    for i, (ia, home) in enumerate(zip(iter_args, homes, strict=True)):
        ctx.bind(ia, home if home is not None else Value(names[i], inits[i].type))


def _condition_region(
    ctx: FunctionContext, expr: Expr, names: list[str], types: list[str], span: Span
) -> None:
    try:
        cond = expressions.condition(ctx, expr, span)
    except CodegenError as error:
        ctx.report(error)
        return
    except Poisoned as poisoned:
        ctx.skipped(poisoned)
        return
    carried = f" {', '.join(names)} : {', '.join(types)}" if names else ""
    ctx.out.line(f"scf.condition({cond.name}){carried}")


# Each statement class's lowering (a body's SeqStmts and ScopeStmt are flattened first, its
# YieldStmt lowered by the construct that holds the body).
_STATEMENTS: dict[type, Callable[[FunctionContext, Any], None]] = {
    AssignStmt: _assign,
    EvalStmt: _eval,
    ForStmt: _for,
    IfStmt: _if,
    WhileStmt: _while,
    ReturnStmt: _return,
    LoopJumpStmt: no_loop_jumps("PTO"),
}
