"""Statements -> the kernel body: assignments, op calls, ``for`` / ``while`` / ``if`` blocks.

Each statement is looked up in a table keyed by its class. An op call in statement position
emits its instruction (``ops.lower_call``) with the assignment's C++ name as destination;
a scalar expression is inline C++ text (``expressions.value``). Loop-carried values are C++
variables declared before the loop and assigned from the yield at the end of its body; if
results are declared before the if. A statement that cannot be lowered is reported there (a
diagnostic plus a ``// error: ...`` line) and generation goes on with the next one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...ir.expr import Call, Expr, IterArg, Var
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
from ...passes.op_info import stored_into
from ..common import CodegenError, no_loop_jumps
from . import expressions, ops
from .declarations import cpp_dtype, emit_tile
from .expressions import non_negative, operand, positive_constant, value

if TYPE_CHECKING:
    from .context import FunctionContext


def statement(ctx: FunctionContext, stmt: Stmt) -> None:
    """Emit one statement; an error in it is reported there and generation goes on."""
    if type(stmt) is SeqStmts:
        for inner in stmt.stmts:
            statement(ctx, inner)
        return
    ctx.attempt(stmt.span, _STATEMENTS[type(stmt)], ctx, stmt)


def _scope(ctx: FunctionContext, stmt: ScopeStmt) -> None:
    # An InCore scope is the kernel itself here: its names stay visible after it.
    statement(ctx, stmt.body)


def _return(ctx: FunctionContext, stmt: ReturnStmt) -> None:
    """Kernels return void: tensor results are already in the output tensors; a scalar
    result goes to the ``args`` slot after the parameters' (result k: ``args[params +
    k]``), in its own type's bits, as scalar arguments come in."""
    for position, returned in enumerate(stmt.values):
        if not isinstance(returned.type, ScalarType):
            continue
        with ctx.guard(returned.span):
            ctype = cpp_dtype(returned.type.dtype, f"result {position}", returned.span)
            slot = ctx.param_count + position
            text = value(ctx, returned)
            ctx.out.emit_line(f"*reinterpret_cast<__gm__ {ctype}*>(&args[{slot}]) = {text};")


def _yield(ctx: FunctionContext, stmt: YieldStmt) -> None:
    ctx.yields = list(stmt.values)


def _eval(ctx: FunctionContext, stmt: EvalStmt) -> None:
    # Only calls have effects; a bare value statement generates nothing.
    if isinstance(stmt.expr, Call):
        text = ops.lower_call(ctx, stmt.expr)
        if text:
            ctx.out.emit_line(f"{text};")


def _assign_stmt(ctx: FunctionContext, stmt: AssignStmt) -> None:
    var, assigned = stmt.var, stmt.value
    names = ctx.names
    if names.is_registered(var):
        # The same Var assigned again (a non-SSA body): a plain C++ assignment.
        _assign(ctx, names.get_var_name(var), var, assigned, declare=False)
        return
    if isinstance(var.type, TensorType):
        names.register_var(var, _tensor_alias(ctx, var, assigned))
        if isinstance(assigned, Call):
            ops.lower_call(ctx, assigned, names.get_var_name(var))
        return
    name = names.sanitize_name(var)
    names.register_var(var, name)
    _assign(ctx, name, var, assigned, declare=True)


def _tensor_alias(ctx: FunctionContext, var: Var, assigned: Expr) -> str:
    """A tensor result names the GlobalTensor it refers to: a store's result is the
    output tensor, an alias is its source. Anything else gets its own name (and fails
    to lower, as tensor ops have no CCE form)."""
    names = ctx.names
    output = stored_into(assigned) if isinstance(assigned, Call) else None
    if output is not None:
        if isinstance(output, Var) and names.is_registered(output):
            return names.get_var_name(output)
    if isinstance(assigned, Var) and names.is_registered(assigned):
        return names.get_var_name(assigned)
    return names.sanitize_name(var)


def _assign(ctx: FunctionContext, name: str, var: Var, assigned: Expr, *, declare: bool) -> None:
    if isinstance(assigned, Call):
        text = ops.lower_call(ctx, assigned, name, var.type)
    else:
        text = value(ctx, assigned)
    if not text:
        return
    if isinstance(var.type, ScalarType) and declare:
        ctx.out.emit_line(f"{cpp_dtype(var.type.dtype, var.name, var.span)} {name} = {text};")
    elif isinstance(var.type, TileType) or not declare:
        # Tiles are declared in the prologue; this rebinds the handle.
        if text != name:
            ctx.out.emit_line(f"{name} = {text};")
    else:
        ctx.out.emit_line(f"auto {name} = {text};")


# --- control flow ------------------------------------------------------------------------------


@contextmanager
def _scoped_block(ctx: FunctionContext, opener: str) -> Iterator[None]:
    ctx.names.push_scope()
    try:
        with ctx.out.block(opener):
            yield
    finally:
        ctx.names.pop_scope()


def _init_iter_args(ctx: FunctionContext, iter_args: tuple[IterArg, ...]) -> list[str]:
    """Declare each loop-carried value before the loop, initialised from its init value;
    a tensor one inherits the pointer of the tensor it starts as."""
    names: list[str] = []
    for iter_arg in iter_args:
        name = ctx.names.sanitize_name(iter_arg)
        ctx.names.register_var(iter_arg, name)
        names.append(name)
        init = iter_arg.init_value
        if init is None:
            raise CodegenError(
                "E900", f"internal: iter_arg '{iter_arg.name}' has no init value", iter_arg.span
            )
        text = operand(ctx, init)
        if isinstance(iter_arg.type, ScalarType):
            ctype = cpp_dtype(iter_arg.type.dtype, iter_arg.name, iter_arg.span)
            ctx.out.emit_line(f"{ctype} {name} = {text};")
        else:
            ctx.out.emit_line(f"auto {name} = {text};")
        if isinstance(iter_arg.type, TensorType):
            ctx.names.register_pointer(name, ctx.names.pointers(text))
    return names


def _body_capturing_yield(ctx: FunctionContext, body: Stmt) -> list[Expr] | None:
    saved, ctx.yields = ctx.yields, None
    try:
        statement(ctx, body)
        return ctx.yields
    finally:
        ctx.yields = saved


def _copy_tile_yields(
    ctx: FunctionContext, pairs: list[tuple[str, str, Expr]], carried: tuple[IterArg, ...]
) -> bool:
    """A carried tile lives in its own buffer (the init value's, where the passes put the
    loop's result): a yielded tile in another buffer is copied into it. Re-pointing the
    handle instead would leave the carried value in a buffer the next iteration
    overwrites while the value is still needed. False (nothing emitted) when a copy would
    overwrite a tile a later copy reads, or a tile is not a vector tile in its own buffer:
    the handles are re-pointed then, as before."""
    if len(carried) != len(pairs):  # an if's results: no buffer of their own to copy into
        return False
    copies: list[tuple[str, str]] = []
    for (name, text, yielded), iter_arg in zip(pairs, carried, strict=True):
        if not isinstance(yielded.type, TileType) or name == text:
            continue
        init = iter_arg.init_value
        source = yielded.type.memref
        target = init.type.memref if init is not None and isinstance(init.type, TileType) else None
        if source is None or target is None or source.addr is None or target.addr is None:
            return False
        if MemorySpace.Vec not in (source.memory_space, target.memory_space) or (
            source.memory_space is not target.memory_space
        ):
            return False
        if source.addr != target.addr:
            copies.append((name, text))
    written: set[str] = set()
    for name, text in copies:
        if text in written:
            return False
        written.add(name)
    if copies:
        ctx.out.emit_line("pipe_barrier(PIPE_V);")  # the copy reads a vector result
        read: set[str] = set()
        for name, text in copies:
            if name in read:  # V may still be reading it for an earlier copy
                ctx.out.emit_line("pipe_barrier(PIPE_V);")
                read.clear()
            read.add(text)
            ctx.out.emit_line(f"TMOV({name}, {text});")
    return True


def _assign_yields(
    ctx: FunctionContext,
    names: list[str],
    values: list[Expr] | None,
    span: Span,
    carried: tuple[IterArg, ...] = (),
) -> None:
    """``name = value;`` for each carried value (skipping ``x = x``); a swap goes through
    temporaries so no value is overwritten before it is read."""
    if values is None:
        return
    if len(values) != len(names):
        raise CodegenError(
            "E900", f"internal: {len(values)} values yielded for {len(names)} results", span
        )
    pairs = [(n, operand(ctx, v), v) for n, v in zip(names, values, strict=True)]
    if _copy_tile_yields(ctx, pairs, carried):
        pairs = [(n, text, v) for n, text, v in pairs if not isinstance(v.type, TileType)]
    pending = [(n, text) for n, text, _ in pairs if n != text]
    if _clobbers(pending):
        temps = []
        for n, text in pending:
            temp = ctx.names.reserve(n + "_next")
            temps.append((n, temp))
            ctx.out.emit_line(f"auto {temp} = {text};")
        for n, temp in temps:
            ctx.out.emit_line(f"{n} = {temp};")
    else:
        for n, text in pending:
            ctx.out.emit_line(f"{n} = {text};")
    for n, text, yielded in pairs:
        if isinstance(yielded.type, TensorType) and n != text:
            ctx.names.register_pointer(n, ctx.names.pointers(n) | ctx.names.pointers(text))


_WORD = re.compile(r"\w+")


def _clobbers(pending: list[tuple[str, str]]) -> bool:
    """Whether an assignment reads a name an earlier one of ``pending`` overwrites. The C++
    names are identifiers, so a name is read where it is a whole word of the text (one
    pattern for every name: a pattern per name filled the ``re`` module's cache with the
    kernel's names, issue #33)."""
    earlier: set[str] = set()
    for name, text in pending:
        if earlier and not earlier.isdisjoint(_WORD.findall(text)):
            return True
        earlier.add(name)
    return False


def _bind_results(
    ctx: FunctionContext, return_vars: tuple[Var, ...], names: list[str], span: Span
) -> None:
    """Loop results are the final state of the carried values: same C++ names."""
    if len(return_vars) != len(names):
        raise CodegenError(
            "E900",
            f"internal: {len(return_vars)} loop results for {len(names)} carried values",
            span,
        )
    for var, name in zip(return_vars, names, strict=True):
        ctx.names.register_var(var, name)


def _for(ctx: FunctionContext, stmt: ForStmt) -> None:
    names = _init_iter_args(ctx, stmt.iter_args)
    start, stop, step = value(ctx, stmt.start), value(ctx, stmt.stop), value(ctx, stmt.step)
    ctx.names.push_scope()
    try:
        loop_var = ctx.names.sanitize_name(stmt.loop_var)
        ctx.names.register_var(stmt.loop_var, loop_var)
        if non_negative(ctx, stmt.start) and positive_constant(stmt.step):
            ctx.non_negative_vars.add(stmt.loop_var)
        if stmt.kind is ForKind.Parallel:
            ctx.out.emit_line("// parallel loop: iterations are independent")
        header = f"for (int64_t {loop_var} = {start}; {loop_var} < {stop}; {loop_var} += {step}) {{"
        with ctx.out.block(header):
            values = _body_capturing_yield(ctx, stmt.body)
            with ctx.guard(stmt.span):
                _assign_yields(ctx, names, values, stmt.span, stmt.iter_args)
    finally:
        ctx.names.pop_scope()
    _bind_results(ctx, stmt.return_vars, names, stmt.span)


def _while(ctx: FunctionContext, stmt: WhileStmt) -> None:
    names = _init_iter_args(ctx, stmt.iter_args)
    condition = expressions.unwrap(value(ctx, stmt.condition))
    with _scoped_block(ctx, f"while ({condition}) {{"):
        values = _body_capturing_yield(ctx, stmt.body)
        with ctx.guard(stmt.span):
            _assign_yields(ctx, names, values, stmt.span, stmt.iter_args)
    if stmt.iter_args:
        _bind_results(ctx, stmt.return_vars, names, stmt.span)
    else:
        for var in stmt.return_vars:
            ctx.names.register_var(var, ctx.names.sanitize_name(var))


def _if(ctx: FunctionContext, stmt: IfStmt) -> None:
    names = [_declare_if_result(ctx, var, stmt.span) for var in stmt.return_vars]
    condition = expressions.unwrap(value(ctx, stmt.condition))
    branch_pointers: dict[str, frozenset[str]] = {n: frozenset() for n in names}
    ctx.out.emit_line(f"if ({condition}) {{")
    _branch(ctx, stmt, stmt.then_body, names, branch_pointers)
    if stmt.else_body is not None:
        ctx.out.emit_line("} else {")
        _branch(ctx, stmt, stmt.else_body, names, branch_pointers)
    ctx.out.emit_line("}")
    for name, pointers in branch_pointers.items():
        if pointers:
            ctx.names.register_pointer(name, pointers)


def _branch(
    ctx: FunctionContext,
    stmt: IfStmt,
    body: Stmt,
    names: list[str],
    branch_pointers: dict[str, frozenset[str]],
) -> None:
    """One branch of an if, indented in its own C++ scope; its yield assigns the results,
    and a tensor result collects the pointers the branches give it."""
    ctx.out.indent()
    ctx.names.push_scope()
    try:
        values = _body_capturing_yield(ctx, body)
        with ctx.guard(stmt.span):
            _assign_yields(ctx, names, values, stmt.span)
            for name, var in zip(names, stmt.return_vars, strict=True):
                if isinstance(var.type, TensorType):
                    branch_pointers[name] |= ctx.names.pointers(name)
                    ctx.names.register_pointer(name, frozenset())
    finally:
        ctx.names.pop_scope()
        ctx.out.dedent()


def _declare_if_result(ctx: FunctionContext, var: Var, span: Span) -> str:
    """An if result is declared just before the if (TileCollector leaves it out)."""
    name = ctx.names.sanitize_name(var)
    ctx.names.register_var(var, name)
    at = var.span if var.span.is_known else span
    with ctx.guard(at):
        if isinstance(var.type, TileType):
            emit_tile(ctx, name, var.type, at)
        elif isinstance(var.type, TensorType):
            for line in ctx.declarer.global_tensor(name, name, var.type, None, at):
                ctx.out.emit_line(line)
        elif isinstance(var.type, ScalarType):
            ctx.out.emit_line(f"{cpp_dtype(var.type.dtype, var.name, at)} {name};")
        else:
            raise CodegenError(
                "E400", f"if result '{var.name}' of type {var.type.short()} has no C++ form", at
            )
    return name


# Each statement class's lowering (SeqStmts is flattened by ``statement`` itself).
_STATEMENTS: dict[type, Callable[[FunctionContext, Any], None]] = {
    AssignStmt: _assign_stmt,
    EvalStmt: _eval,
    ForStmt: _for,
    WhileStmt: _while,
    IfStmt: _if,
    ReturnStmt: _return,
    YieldStmt: _yield,
    ScopeStmt: _scope,
    SeqStmts: statement,
    LoopJumpStmt: no_loop_jumps("CCE"),
}
