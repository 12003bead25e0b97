"""Statements of an orchestration function -> host C++: kernel calls become tasks, loops and
branches PTO2 scopes (tensors created in one are released when it ends)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....ir import expr as ex
from ....ir import stmt as st
from ....ir.types import TASK_ID_TYPE, ScalarType, TensorType, TupleType
from ....passes.irutil import final_yield
from ....passes.op_info import op_def
from ...common import CodegenError
from ..expressions import unwrap
from .context import HostContext
from .expressions import scalar, scalar_cpp, value
from .ops import host_op, task, tensor_op


def body(ctx: HostContext, stmt: st.Stmt | None) -> None:
    if stmt is None:
        return
    lower = _STATEMENTS.get(type(stmt))
    if lower is not None:
        lower(ctx, stmt)


def _seq(ctx: HostContext, stmt: st.SeqStmts) -> None:
    for inner in stmt.stmts:
        body(ctx, inner)


def _eval(ctx: HostContext, stmt: st.EvalStmt) -> None:
    expr = stmt.expr
    if isinstance(expr, ex.Call) and isinstance(expr.callee, ex.GlobalVar):
        task(ctx, expr)
        return
    op = op_def(expr) if isinstance(expr, ex.Call) else None
    if op is None:
        return
    if op.namespace == "tensor":
        host_op(ctx, expr)
    else:  # a block / system op outside an InCore scope: W024 from the front end
        ctx.out.emit(f"// not generated: {op.name}(...) runs in kernels only")


def _for(ctx: HostContext, stmt: st.ForStmt) -> None:
    _carried(ctx, stmt.iter_args)
    i = ctx.names[stmt.loop_var] = ctx.ident(stmt.loop_var.name)
    ctx.out.emit(
        f"for (int64_t {i} = {scalar(ctx, stmt.start)}; {i} < "
        f"{scalar(ctx, stmt.stop)}; {i} += {scalar(ctx, stmt.step)}) {{"
    )
    _scoped(ctx, stmt.body, stmt.iter_args)
    ctx.out.emit("}")
    _results(ctx, stmt.return_vars, stmt.iter_args)


def _while(ctx: HostContext, stmt: st.WhileStmt) -> None:
    _carried(ctx, stmt.iter_args)
    ctx.out.emit(f"while ({unwrap(scalar(ctx, stmt.condition))}) {{")
    _scoped(ctx, stmt.body, stmt.iter_args)
    ctx.out.emit("}")
    _results(ctx, stmt.return_vars, stmt.iter_args)


def _if(ctx: HostContext, stmt: st.IfStmt) -> None:
    for var in stmt.return_vars:
        ctx.names[var] = ctx.ident(var.name)
        ctx.out.emit(f"{scalar_cpp(var.type)} {ctx.names[var]};")
    ctx.out.emit(f"if ({unwrap(scalar(ctx, stmt.condition))}) {{")
    _scoped(ctx, stmt.then_body, stmt.return_vars)
    if stmt.else_body is not None:
        ctx.out.emit("} else {")
        _scoped(ctx, stmt.else_body, stmt.return_vars)
    ctx.out.emit("}")


def _return(ctx: HostContext, stmt: st.YieldStmt | st.ReturnStmt) -> None:
    for returned in stmt.values:
        if isinstance(returned.type, ScalarType) and isinstance(stmt, st.ReturnStmt):
            raise CodegenError(
                "E400",
                "an orchestration function returns tensors only (a host task has no scalar result)",
                stmt.span,
            )


def _scope(ctx: HostContext, stmt: st.ScopeStmt) -> None:
    if stmt.kind is st.ScopeKind.Auto:  # pl.scope(): the runtime's own scope, auto tracking
        ctx.out.emit("PTO2_SCOPE(rt) {")
        ctx.out.depth += 1
        body(ctx, stmt.body)
        ctx.out.depth -= 1
        ctx.out.emit("}")
        return
    raise CodegenError("E400", _NO_SCOPE_LOWERING[stmt.kind], stmt.span)


_NO_SCOPE_LOWERING = {
    st.ScopeKind.InCore: "an InCore scope left in an orchestration function "
    "(OutlineIncoreScopes did not run)",
    st.ScopeKind.Manual: "pl.manual_scope() (manual dependency tracking) has no lowering to "
    "the PTO2 host runtime here: the generator has no call that turns the runtime's tensor "
    "tracking off; use pl.scope()",
    st.ScopeKind.Spmd: "pl.spmd(n) has no lowering to the PTO2 host runtime here: "
    "pto2_rt_submit_task launches one block, and the generator has no multi-block launch",
}


def _submit(ctx: HostContext, submit: ex.Submit) -> None:
    """A submit whose TaskId is only named: the plain task. What needs the runtime's
    TaskId API (deps=, predicate=, core_num=) is an E400 naming it."""
    missing = [
        what
        for what, present in (
            ("deps= (explicit TaskId edges)", submit.deps),
            ("predicate= (dispatch predicates)", submit.predicate is not None),
            ("core_num= (multi-block launches)", submit.spmd),
        )
        if present
    ]
    if missing:
        raise CodegenError("E400", _unlowered_launch(submit, missing), submit.span)
    task(ctx, ex.Call(submit.type, callee=submit.kernel, args=submit.args, span=submit.span))


def _unlowered_launch(submit: ex.Submit, missing: list[str]) -> str:
    what = " and ".join(missing)
    if submit.region:  # a region outlined into a kernel: named as it is written
        launch = f"the pl.{submit.region}(...) region (outlined into {submit.kernel.name})"
    else:
        launch = f"pl.{'spmd_submit' if submit.spmd else 'submit'}(self.{submit.kernel.name}, ...)"
    return (
        f"{launch} with {what} has no lowering to the PTO2 host runtime here: "
        "the generator's runtime calls (pto2_rt_submit_task) take no TaskId"
    )


def _unnamed_result(var: ex.Var, item: ex.TupleGetItem, tensors: Any) -> str:
    """Why the host code has no tensor for a kernel's result (``out, v = self.k(...)``)."""
    call = tensors.defs.get(item.tuple_value) if isinstance(item.tuple_value, ex.Var) else None
    call = item.tuple_value if call is None else call
    kernel = call.kernel if isinstance(call, ex.Submit) else getattr(call, "callee", None)
    name = f"'{kernel.name}'" if isinstance(kernel, ex.GlobalVar) else "its kernel"
    return (
        f"'{var.name}' is result {item.index} of {name}, which the host code cannot name: "
        "a result must be one of the kernel's Out / InOut tensor parameters, stored through "
        "assignments, loops and if / else branches that give the same parameter"
    )


def _carried(ctx: HostContext, iter_args: tuple[ex.IterArg, ...]) -> None:
    for arg in iter_args:
        init = value(ctx, arg.init_value) if arg.init_value is not None else "{}"
        ctx.names[arg] = ctx.ident(arg.name)
        ctx.out.emit(f"{scalar_cpp(arg.type)} {ctx.names[arg]} = {init};")


def _results(
    ctx: HostContext, return_vars: tuple[ex.Var, ...], carried: tuple[ex.Var, ...]
) -> None:
    for var, arg in zip(return_vars, carried, strict=False):
        ctx.names[var] = ctx.names.get(arg) or ctx.ident(arg.name)


def _scoped(ctx: HostContext, inner: st.Stmt, targets: tuple[ex.Var, ...]) -> None:
    """A loop or branch body in its own PTO2 scope (tensors created in it are released
    when it ends); its yield assigns the carried variables / the results."""
    out = ctx.out
    out.depth += 1
    out.emit("PTO2_SCOPE(rt) {")
    out.depth += 1
    body(ctx, inner)
    last = final_yield(inner)
    if last is not None:
        for target, yielded in zip(targets, last.values, strict=False):
            text = value(ctx, yielded)
            name = ctx.names.get(target) or ctx.ident(target.name)
            if text != name:
                out.emit(f"{name} = {text};")
    out.depth -= 1
    out.emit("}")
    out.depth -= 1


def _assign(ctx: HostContext, stmt: st.AssignStmt) -> None:
    var, assigned = stmt.var, stmt.value
    tensors = ctx.tensors
    if var.type == TASK_ID_TYPE:  # a TaskId only deps= reads (E400 at such a submit)
        return
    if isinstance(assigned, ex.Call) and isinstance(assigned.callee, ex.GlobalVar):
        task(ctx, assigned)
        if isinstance(var.type, TensorType):
            ctx.names[var] = value(ctx, tensors.result_arg(assigned, 0) or var)
        return
    if isinstance(assigned, ex.Submit):
        _submit(ctx, assigned)
        return
    if isinstance(assigned, ex.TupleGetItem):
        arg = tensors.result_arg(assigned.tuple_value, assigned.index)
        if arg is not None:
            ctx.names[var] = value(ctx, arg)
            return
        if isinstance(var.type, TensorType):
            raise CodegenError("E400", _unnamed_result(var, assigned, tensors), stmt.span)
    if isinstance(assigned, ex.Var) and isinstance(var.type, TensorType):
        ctx.names[var] = value(ctx, assigned)
        return
    op = op_def(assigned) if isinstance(assigned, ex.Call) else None
    if op is not None and op.namespace == "tensor":
        assert isinstance(assigned, ex.Call)
        tensor_op(ctx, var, assigned, op)
        return
    if op is not None:
        # A block op outside an InCore scope: the front end reported it (W024).
        ctx.out.emit(f"// not generated: {var.name} = {op.name}(...) runs in kernels only")
        ctx.names[var] = ctx.ident(var.name)
        return
    if isinstance(var.type, TupleType):
        return
    text = scalar(ctx, assigned)
    ctx.names[var] = ctx.ident(var.name)
    ctx.out.emit(f"{scalar_cpp(var.type)} {ctx.names[var]} = {text};")


# Each statement class's host C++ (a kernel's YieldStmt is read by ``_scoped``).
_STATEMENTS: dict[type, Callable[[HostContext, Any], None]] = {
    st.SeqStmts: _seq,
    st.AssignStmt: _assign,
    st.EvalStmt: _eval,
    st.ForStmt: _for,
    st.WhileStmt: _while,
    st.IfStmt: _if,
    st.YieldStmt: _return,
    st.ReturnStmt: _return,
    st.ScopeStmt: _scope,
}
