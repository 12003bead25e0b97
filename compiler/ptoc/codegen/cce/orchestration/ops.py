"""Calls on the host: a kernel call is a PTO2 task; tensor ops create, view or read tensors;
any other op computes on tensors, which the host does not do (W010)."""

from __future__ import annotations

from ....ir import expr as ex
from ....ir.function import ParamDirection
from ....ir.shape import static_value
from ....ir.types import TensorType
from ....ops.registry import OpDef, Role
from ...common import CodegenError
from .context import HostContext
from .expressions import dims, ints, runtime_dtype, scalar, scalar_bits, scalar_cpp, value

_PARAM_MAKER = {
    ParamDirection.In: "make_input_param",
    ParamDirection.Out: "make_output_param",
    ParamDirection.InOut: "make_inout_param",
}


def tensor_op(ctx: HostContext, var: ex.Var, call: ex.Call, op: OpDef) -> None:
    if op.role is Role.CREATE:
        _create(ctx, var, call)
    elif op.role is Role.VIEW and op.param("offset") is not None and op.block_form is None:
        base, shape, offset = call.args[0], call.args[1], call.args[2]
        name = ctx.ident(var.name)
        ctx.out.emit(
            f"Tensor {name} = {value(ctx, base)}.view({{{ints(ctx, shape)}}}, "
            f"{{{ints(ctx, offset)}}});"
        )
        ctx.names[var] = name
    elif op.role is Role.SCALAR and op.param("axis") is not None:
        tensor, axis = call.args[0].type, call.args[1]
        assert isinstance(tensor, TensorType) and isinstance(axis, ex.ConstInt)
        dim = tensor.shape[axis.value]
        name = ctx.names[var] = ctx.ident(var.name)
        ctx.out.emit(f"int64_t {name} = {scalar(ctx, dim)};")
    elif op.role is Role.SCALAR and op.param("indices") is not None:
        _read(ctx, var, call)
    else:
        host_op(ctx, call, var)


def _create(ctx: HostContext, var: ex.Var, call: ex.Call) -> None:
    if var in ctx.tensors.external:
        return
    t = var.type
    assert isinstance(t, TensorType)
    rank = max(t.rank, 1)
    name = ctx.names[var] = ctx.ident(var.name)
    ctx.out.emit(f"uint64_t {name}_shapes[{rank}] = {{{dims(ctx, t)}}};")
    ctx.out.emit(
        f"Tensor {name} = make_tensor({name}_shapes, {rank}, {runtime_dtype(t.dtype, call.span)});"
    )


def _read(ctx: HostContext, var: ex.Var, call: ex.Call) -> None:
    tensor, indices = call.args[0], call.args[1]
    t = tensor.type
    assert isinstance(t, TensorType) and isinstance(indices, ex.MakeTuple)
    root = ctx.tensors.root(tensor)
    if root not in ctx.func.params:
        raise CodegenError(
            "E400",
            "tensor.read on the host reads a tensor the caller passed in (a parameter)",
            call.span,
        )
    assert isinstance(root, ex.Var)
    flat = "0"
    for k, index in enumerate(indices.elements):
        stride = 1
        for d in t.shape[k + 1 :]:
            stride *= static_value(d) or 1
        term = scalar(ctx, index) if stride == 1 else f"{scalar(ctx, index)} * {stride}"
        flat = term if flat == "0" else f"{flat} + {term}"
    cpp = scalar_cpp(var.type)
    name, source = ctx.ident(var.name), ctx.ident(root.name)
    ctx.out.emit(f"size_t idx_{name} = {flat};")
    ctx.out.emit(f"{cpp} {name} = static_cast<{cpp}*>(arg_{source}_ptr)[idx_{name}];")
    ctx.names[var] = name


def host_op(ctx: HostContext, expr: ex.Expr, var: ex.Var | None = None) -> None:
    """An op the host cannot run: left out, with a comment and a W010 warning (as the
    original leaves it out); a later use of its result names an undeclared variable."""
    name = expr.op_name if isinstance(expr, ex.Call) else type(expr).__name__
    target = f"{var.name} = " if var is not None else ""
    ctx.out.emit(f"// not generated: {target}{name}(...) computes on tensors (W010)")
    ctx.diagnostics.error(
        "W010",
        f"'{name}' computes on tensors, which the host code does not do: it is left "
        "out of the orchestration C++; put it in a kernel (an InCore function or a "
        "`with pl.incore():` scope)",
        expr.span,
    )
    if var is not None:
        ctx.names[var] = ctx.ident(var.name)


def task(ctx: HostContext, call: ex.Call) -> None:
    assert isinstance(call.callee, ex.GlobalVar)
    kernel = ctx.tensors.kernel(call.callee.name, call.span)
    params: list[str] = []
    for i, arg in enumerate(call.args):
        if isinstance(arg.type, TensorType):
            params.append(f"{_PARAM_MAKER[kernel.direction(i)]}({value(ctx, arg)})")
        else:
            params.append(f"make_scalar_param({scalar_bits(ctx, arg)})")
    name = f"params_t{ctx.tasks}"
    info = ctx.tensors.kernels[kernel.name]
    worker = "PTO2_WORKER_CUBE" if info.core == "aic" else "PTO2_WORKER_VECTOR"
    ctx.out.emit("")
    ctx.out.emit(f"// Task {ctx.tasks}: {kernel.name}")
    ctx.out.emit(f"PTOParam {name}[] = {{")
    for p in params:
        ctx.out.emit(f"    {p},")
    ctx.out.emit("};")
    ctx.out.emit(f"pto2_rt_submit_task(rt, {info.func_id}, {worker}, {name}, {len(params)});")
    ctx.tasks += 1
