"""Host C++ values: tensors by the name they have on the host, scalars inline, task
parameters as the 64 bits the runtime passes."""

from __future__ import annotations

from ....ir import expr as ex
from ....ir.dtype import DataType
from ....ir.span import Span
from ....ir.types import ScalarType, TensorType, Type
from ...common import CodegenError
from ..expressions import binary, bool_literal, unary
from .context import HostContext

_RUNTIME_DTYPE: dict[DataType, str] = {
    DataType.FP16: "FLOAT16",
    DataType.FP32: "FLOAT32",
    DataType.BF16: "BFLOAT16",
    DataType.INT8: "INT8",
    DataType.INT16: "INT16",
    DataType.INT32: "INT32",
    DataType.INT64: "INT64",
    DataType.INDEX: "INT64",  # 2026-08's INDEX: the machine word
    DataType.UINT8: "UINT8",
    DataType.UINT64: "UINT64",
}

_SCALAR_CPP: dict[DataType, str] = {
    DataType.FP32: "float",
    DataType.FP16: "float",
    DataType.BF16: "float",
    DataType.BOOL: "bool",
    DataType.INT8: "int8_t",
    DataType.INT16: "int16_t",
    DataType.INT32: "int32_t",
    DataType.INT64: "int64_t",
    DataType.INDEX: "int64_t",
    DataType.UINT8: "uint8_t",
    DataType.UINT64: "uint64_t",
}


def runtime_dtype(dtype: DataType, span: Span) -> str:
    name = _RUNTIME_DTYPE.get(dtype)
    if name is None:
        raise CodegenError("E400", f"{dtype.name} tensors have no PTO2 runtime data type", span)
    return f"DataType::{name}"


def scalar_cpp(t: Type) -> str:
    if isinstance(t, ScalarType):
        return _SCALAR_CPP.get(t.dtype, "int64_t")
    if isinstance(t, TensorType):
        return "Tensor"
    return "auto"


def value(ctx: HostContext, expr: ex.Expr) -> str:
    if isinstance(expr, ex.Var) and isinstance(expr.type, TensorType):
        if expr in ctx.names:
            return ctx.names[expr]
        raise CodegenError("E400", f"tensor '{expr.name}' is not available on the host", expr.span)
    return scalar(ctx, expr)


def scalar_bits(ctx: HostContext, expr: ex.Expr) -> str:
    """A scalar task parameter as the 64 bits the runtime passes."""
    if isinstance(expr, ex.ConstFloat):
        return f"float_to_u64({expr.value:f}f)"
    t = expr.type
    if isinstance(t, ScalarType) and t.dtype.is_float:
        return f"float_to_u64({scalar(ctx, expr)})"
    return f"(uint64_t){scalar(ctx, expr)}"


def ints(ctx: HostContext, expr: ex.Expr) -> str:
    elements = expr.elements if isinstance(expr, ex.MakeTuple) else (expr,)
    return ", ".join(scalar(ctx, e) for e in elements)


def dims(ctx: HostContext, t: TensorType) -> str:
    return ", ".join(scalar(ctx, d) for d in t.shape) if t.shape else "1"


def scalar(ctx: HostContext, expr: ex.Expr) -> str:
    if isinstance(expr, ex.ConstBool):
        return bool_literal(expr.value)
    if isinstance(expr, ex.ConstInt):
        return str(expr.value)
    if isinstance(expr, ex.ConstFloat):
        return f"{expr.value!r}f"
    if isinstance(expr, ex.Var):
        return ctx.names.get(expr) or ctx.ident(expr.name)
    if isinstance(expr, ex.Binary):
        return binary(expr.op, scalar(ctx, expr.lhs), scalar(ctx, expr.rhs))
    if isinstance(expr, ex.Unary):
        return unary(expr.op, scalar(ctx, expr.operand))
    raise CodegenError("E400", f"{type(expr).__name__} has no host C++ form", expr.span)
