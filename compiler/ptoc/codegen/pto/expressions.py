"""Scalar expressions -> ``arith`` (and ``math`` for abs) operations.

Every scalar value carries its MLIR type; ``coerce`` inserts the conversion a consumer needs
(``arith.index_cast`` between ``index`` and integers, ``extsi``/``sitofp``/... otherwise).
Literals have no inherent width, so a literal is materialized directly in the type its
consumer wants instead of being converted.
"""

from __future__ import annotations

from ...ir.dtype import DataType
from ...ir.expr import (
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
    operands_dtype,
)
from ...ir.span import Span
from ...ir.types import ScalarType
from ..common import CodegenError
from . import mlir_types as mt
from .context import FunctionContext
from .emitter import Value


def span_of(expr: Expr, fallback: Span) -> Span:
    return expr.span if expr.span.is_known else fallback


def scalar_dtype(expr: Expr, span: Span) -> DataType:
    if not isinstance(expr.type, ScalarType):
        raise CodegenError(
            "E400", f"expected a scalar here, got {expr.type.short()}", span_of(expr, span)
        )
    return expr.type.dtype


def is_literal(expr: Expr) -> bool:
    return isinstance(expr, ConstInt | ConstFloat | ConstBool)


def literal(ctx: FunctionContext, expr: Expr, mlir_type: str) -> Value:
    """A literal materialized as an ``arith.constant`` of ``mlir_type``."""
    if isinstance(expr, ConstBool):
        if mlir_type == mt.BOOL:
            return ctx.constants.boolean(expr.value)
        return ctx.constants.integer(int(expr.value), mlir_type)
    if isinstance(expr, ConstInt):
        return ctx.constants.integer(expr.value, mlir_type)
    assert isinstance(expr, ConstFloat)
    if mt.is_float(mlir_type):
        return ctx.constants.floating(expr.value, mlir_type)
    return ctx.constants.integer(int(expr.value), mlir_type)


def scalar(ctx: FunctionContext, expr: Expr, span: Span, want: str | None = None) -> Value:
    """The value of a scalar expression; with ``want``, converted to that MLIR type."""
    at = span_of(expr, span)
    if want is not None and is_literal(expr):
        return literal(ctx, expr, want)
    value = _evaluate(ctx, expr, at)
    if want is None:
        return value
    unsigned = isinstance(expr.type, ScalarType) and expr.type.dtype.is_unsigned
    return coerce(ctx, value, want, at, unsigned=unsigned)


def index(ctx: FunctionContext, expr: Expr, span: Span) -> Value:
    if type(expr) is ConstInt:  # most offsets and sizes: the constant itself
        return ctx.constants.integer(expr.value)
    return scalar(ctx, expr, span, mt.INDEX)


def condition(ctx: FunctionContext, expr: Expr, span: Span) -> Value:
    return scalar(ctx, expr, span, mt.BOOL)


def _evaluate(ctx: FunctionContext, expr: Expr, span: Span) -> Value:
    match expr:
        case Var():
            return ctx.value(expr, span)
        case ConstBool():
            return ctx.constants.boolean(expr.value)
        case ConstInt() | ConstFloat():
            return literal(ctx, expr, mt.arith_type(scalar_dtype(expr, span), span))
        case Binary():
            return _binary(ctx, expr, span)
        case Unary():
            return _unary(ctx, expr, span)
        case TupleGetItem():
            return _tuple_item(ctx, expr, span)
        case Call():
            from .ops import lower_call  # ops evaluate scalar operands through this module

            result = lower_call(ctx, expr, None, span)
            if not isinstance(result, Value):
                raise CodegenError("E400", f"{expr.op_name} does not produce a scalar", span)
            return result
    raise CodegenError("E400", f"{type(expr).__name__} has no scalar PTO lowering", span)


def _tuple_item(ctx: FunctionContext, expr: TupleGetItem, span: Span) -> Value:
    base = expr.tuple_value
    if not isinstance(base, Var):
        raise CodegenError("E400", "only a named tuple can be indexed", span)
    bound = ctx.binding(base, span)
    if not isinstance(bound, tuple) or not 0 <= expr.index < len(bound):
        raise CodegenError("E400", f"'{base.name}' has no element {expr.index}", span)
    item = bound[expr.index]
    if not isinstance(item, Value):
        raise CodegenError("E400", f"element {expr.index} of '{base.name}' is not a scalar", span)
    return item


# --- binary and unary operators --------------------------------------------------------------

_INT_OPS = {
    BinaryOp.Add: "arith.addi",
    BinaryOp.Sub: "arith.subi",
    BinaryOp.Mul: "arith.muli",
    BinaryOp.BitAnd: "arith.andi",
    BinaryOp.BitOr: "arith.ori",
    BinaryOp.Xor: "arith.xori",
    BinaryOp.And: "arith.andi",
    BinaryOp.Or: "arith.ori",
    BinaryOp.Shl: "arith.shli",
}
# (signed, unsigned) variants.
_SIGNED_INT_OPS = {
    BinaryOp.FloatDiv: ("arith.divsi", "arith.divui"),
    BinaryOp.FloorDiv: ("arith.floordivsi", "arith.divui"),
    BinaryOp.Shr: ("arith.shrsi", "arith.shrui"),
    BinaryOp.Min: ("arith.minsi", "arith.minui"),
    BinaryOp.Max: ("arith.maxsi", "arith.maxui"),
}
_FLOAT_OPS = {
    BinaryOp.Add: "arith.addf",
    BinaryOp.Sub: "arith.subf",
    BinaryOp.Mul: "arith.mulf",
    BinaryOp.FloatDiv: "arith.divf",
    BinaryOp.Min: "arith.minimumf",
    BinaryOp.Max: "arith.maximumf",
}
# Comparison -> (signed predicate, unsigned predicate, float predicate).
_PREDICATES = {
    BinaryOp.Eq: ("eq", "eq", "oeq"),
    BinaryOp.Ne: ("ne", "ne", "une"),
    BinaryOp.Lt: ("slt", "ult", "olt"),
    BinaryOp.Le: ("sle", "ule", "ole"),
    BinaryOp.Gt: ("sgt", "ugt", "ogt"),
    BinaryOp.Ge: ("sge", "uge", "oge"),
}


def _operands(
    ctx: FunctionContext, expr: Binary, mlir_type: str, span: Span
) -> tuple[Value, Value]:
    return scalar(ctx, expr.lhs, span, mlir_type), scalar(ctx, expr.rhs, span, mlir_type)


def _binary(ctx: FunctionContext, expr: Binary, span: Span) -> Value:
    op = expr.op
    if op.is_comparison:
        for operand in (expr.lhs, expr.rhs):
            scalar_dtype(operand, span)  # a non-scalar operand: E400
        operand_dtype = operands_dtype(expr.lhs, expr.rhs)  # `n > 0` of an INT32: in i32
        operand_type = mt.arith_type(operand_dtype, span)
        lhs, rhs = _operands(ctx, expr, operand_type, span)
        signed, unsigned, floating = _PREDICATES[op]
        if mt.is_float(operand_type):
            text = f"arith.cmpf {floating}, {lhs.name}, {rhs.name} : {operand_type}"
        else:
            predicate = unsigned if operand_dtype.is_unsigned else signed
            text = f"arith.cmpi {predicate}, {lhs.name}, {rhs.name} : {operand_type}"
        return ctx.emit_result(mt.BOOL, text)

    dtype = scalar_dtype(expr, span)
    result_type = mt.arith_type(dtype, span)
    lhs, rhs = _operands(ctx, expr, result_type, span)
    if mt.is_float(result_type):
        name = _FLOAT_OPS.get(op)
    elif op in _SIGNED_INT_OPS:
        name = _SIGNED_INT_OPS[op][1 if dtype.is_unsigned else 0]
    elif op is BinaryOp.FloorMod:
        return _floor_mod(ctx, lhs, rhs, dtype.is_unsigned)
    else:
        name = _INT_OPS.get(op)
    if name is None:
        raise CodegenError("E400", f"'{op.symbol}' on {dtype.name} has no PTO lowering", span)
    return ctx.emit_result(result_type, f"{name} {lhs.name}, {rhs.name} : {result_type}")


def _floor_mod(ctx: FunctionContext, lhs: Value, rhs: Value, unsigned: bool) -> Value:
    """Python's ``%`` takes the sign of the divisor: a - floordiv(a, b) * b."""
    t = lhs.type
    if unsigned:
        return ctx.emit_result(t, f"arith.remui {lhs.name}, {rhs.name} : {t}")
    quotient = ctx.emit_result(t, f"arith.floordivsi {lhs.name}, {rhs.name} : {t}")
    product = ctx.emit_result(t, f"arith.muli {quotient.name}, {rhs.name} : {t}")
    return ctx.emit_result(t, f"arith.subi {lhs.name}, {product.name} : {t}")


def _unary(ctx: FunctionContext, expr: Unary, span: Span) -> Value:
    dtype = scalar_dtype(expr, span)
    t = mt.arith_type(dtype, span)
    operand = scalar(ctx, expr.operand, span, t)
    floating = mt.is_float(t)
    match expr.op:
        case UnaryOp.Cast:  # the conversion to the node's type is the operand's coercion
            return operand
        case UnaryOp.Neg if floating:
            return ctx.emit_result(t, f"arith.negf {operand.name} : {t}")
        case UnaryOp.Neg:
            zero = ctx.constants.integer(0, t)
            return ctx.emit_result(t, f"arith.subi {zero.name}, {operand.name} : {t}")
        case UnaryOp.Abs:
            name = "math.absf" if floating else "math.absi"
            return ctx.emit_result(t, f"{name} {operand.name} : {t}")
        case UnaryOp.BitNot | UnaryOp.Not if not floating:
            # The DSL maps `not` to a bitwise not (spec section 4); on i1 both are logical.
            ones = ctx.constants.boolean(True) if t == mt.BOOL else ctx.constants.integer(-1, t)
            return ctx.emit_result(t, f"arith.xori {operand.name}, {ones.name} : {t}")
    raise CodegenError("E400", f"'{expr.op.symbol}' on {dtype.name} has no PTO lowering", span)


# --- conversions -------------------------------------------------------------------------------


def coerce(
    ctx: FunctionContext, value: Value, target: str, span: Span, *, unsigned: bool = False
) -> Value:
    """``value`` as ``target``; conversions are emitted once per region and reused."""
    if value.type == target:
        return value
    key = (value.name, target)
    cached = ctx.cached_cast(key)
    if cached is not None:
        return cached
    converted = _convert(ctx, value, target, span, unsigned)
    ctx.remember_cast(key, converted)
    return converted


def _convert(ctx: FunctionContext, value: Value, target: str, span: Span, unsigned: bool) -> Value:
    source = value.type
    zero_extend = unsigned or source == mt.BOOL
    if mt.is_integer(source) and target == mt.BOOL:
        # Truthiness, not truncation: `if n:` means n != 0.
        zero = ctx.constants.integer(0, source)
        return ctx.emit_result(target, f"arith.cmpi ne, {value.name}, {zero.name} : {source}")
    if mt.is_float(source) and target == mt.BOOL:
        zero_f = ctx.constants.floating(0.0, source)
        return ctx.emit_result(target, f"arith.cmpf une, {value.name}, {zero_f.name} : {source}")
    if mt.is_integer(source) and mt.is_integer(target):
        if mt.INDEX in (source, target):
            name = "arith.index_castui" if zero_extend else "arith.index_cast"
        elif mt.int_width(target) > mt.int_width(source):
            name = "arith.extui" if zero_extend else "arith.extsi"
        else:
            name = "arith.trunci"
        return ctx.emit_result(target, f"{name} {value.name} : {source} to {target}")
    if mt.is_integer(source) and mt.is_float(target):
        if source == mt.INDEX:
            value = coerce(ctx, value, "i64", span, unsigned=unsigned)
            source = value.type
        name = "arith.uitofp" if zero_extend else "arith.sitofp"
        return ctx.emit_result(target, f"{name} {value.name} : {source} to {target}")
    if mt.is_float(source) and mt.is_integer(target):
        via = "i64" if target == mt.INDEX else target
        name = "arith.fptoui" if unsigned else "arith.fptosi"
        converted = ctx.emit_result(via, f"{name} {value.name} : {source} to {via}")
        return coerce(ctx, converted, target, span, unsigned=unsigned)
    if mt.is_float(source) and mt.is_float(target):
        if mt.float_width(target) == mt.float_width(source):  # f16 <-> bf16: through f32
            value = coerce(ctx, value, "f32", span)
            source = value.type
        name = "arith.extf" if mt.float_width(target) > mt.float_width(source) else "arith.truncf"
        return ctx.emit_result(target, f"{name} {value.name} : {source} to {target}")
    raise CodegenError("E400", f"cannot convert a value of type {source} to {target}", span)
