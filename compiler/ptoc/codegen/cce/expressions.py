"""Scalar expressions -> inline C++ text: the value-returning half of the seed's dual-mode
pattern (``value``), and the C++ spellings of operators and literals it uses. An op call in
value position is lowered by ``ops.lower_call`` (a scalar-valued op is an inline call)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...ir.dtype import DataType
from ...ir.expr import (
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    IterArg,
    MakeTuple,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
)
from ...ir.types import ScalarType
from ..common import CodegenError
from . import ops
from .cpp_types import DTYPE_TO_CPP

if TYPE_CHECKING:
    from .context import FunctionContext

# Operators written infix, parenthesised: (lhs op rhs). // and % floor (the DSL's meaning),
# so on signed integers and floats they have forms of their own (``floor_division``).
INFIX: dict[BinaryOp, str] = {
    BinaryOp.Add: "+",
    BinaryOp.Sub: "-",
    BinaryOp.Mul: "*",
    BinaryOp.FloorDiv: "/",
    BinaryOp.FloorMod: "%",
    BinaryOp.FloatDiv: "/",
    BinaryOp.Eq: "==",
    BinaryOp.Ne: "!=",
    BinaryOp.Lt: "<",
    BinaryOp.Le: "<=",
    BinaryOp.Gt: ">",
    BinaryOp.Ge: ">=",
    BinaryOp.And: "&&",
    BinaryOp.Or: "||",
    BinaryOp.Xor: "^",
    BinaryOp.BitAnd: "&",
    BinaryOp.BitOr: "|",
    BinaryOp.Shl: "<<",
    BinaryOp.Shr: ">>",
}

# Operators written as calls: name(lhs, rhs).
CALLS: dict[BinaryOp, str] = {BinaryOp.Pow: "pow"}
# Operators written as a choice between the operands (pure scalar expressions: repeating them
# is safe): C++ has no min / max of two values of different types (INT64 and a literal), and
# pto-isa's CPU simulator declares none.
CHOICES: dict[BinaryOp, str] = {BinaryOp.Min: "<", BinaryOp.Max: ">"}

PREFIX: dict[UnaryOp, str] = {UnaryOp.Neg: "-", UnaryOp.BitNot: "~", UnaryOp.Not: "!"}


def binary(op: BinaryOp, lhs: str, rhs: str) -> str:
    if op in CALLS:
        return f"{CALLS[op]}({lhs}, {rhs})"
    if op in CHOICES:
        return f"({lhs} {CHOICES[op]} {rhs} ? {lhs} : {rhs})"
    return f"({lhs} {INFIX[op]} {rhs})"


def floor_division(
    op: BinaryOp, lhs: str, rhs: str, dtype: DataType | None, positive_divisor: bool = False
) -> str | None:
    """``//`` and ``%`` as the DSL means them (rounding toward minus infinity; the remainder
    takes the divisor's sign), where C++'s ``/`` and ``%`` truncate: None when C++'s own
    operator agrees (unsigned integers). ``/`` on integers floors too (the interpreter's
    reading). ``positive_divisor``: rhs is a constant > 0 (the common ``i // 2``), which
    allows a shorter form. The operands are pure scalar expressions: repeating them is safe."""
    floors = op in (BinaryOp.FloorDiv, BinaryOp.FloorMod) or (
        op is BinaryOp.FloatDiv and dtype is not None and dtype.is_int
    )
    if dtype is None or not floors or dtype.is_unsigned:
        return None
    if dtype.is_float:
        if op is BinaryOp.FloorDiv:
            return f"floor({lhs} / {rhs})"
        return f"({lhs} - floor({lhs} / {rhs}) * {rhs})"
    if op is BinaryOp.FloorMod:
        return f"((({lhs} % {rhs}) + {rhs}) % {rhs})"
    # The truncated quotient, one less when the division is inexact and the signs differ.
    if positive_divisor:
        return f"({lhs} / {rhs} - ({lhs} % {rhs} < 0))"
    return f"({lhs} / {rhs} - ({lhs} % {rhs} != 0 && ({lhs} < 0) != ({rhs} < 0)))"


def unary(op: UnaryOp, operand: str) -> str:
    if op is UnaryOp.Abs:
        return f"abs({operand})"
    return f"({PREFIX[op]}{operand})"


def float_literal(value: float, dtype: DataType) -> str:
    """``2.0f`` for FP32 (a double literal elsewhere, converted on use)."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    text = repr(float(value))
    return text + "f" if dtype is DataType.FP32 else text


def bool_literal(value: bool) -> str:
    return "true" if value else "false"


def unwrap(text: str) -> str:
    """``(n > 0)`` -> ``n > 0`` when one pair of parentheses encloses all of ``text`` (for
    conditions, which C++ already parenthesises)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and index < len(text) - 1:
            return text
    return text[1:-1]


# --- values (value mode) ---------------------------------------------------------------------


def value(ctx: FunctionContext, expr: Expr) -> str:
    """Inline C++ text of a scalar expression."""
    lower = _VALUES.get(type(expr))
    text = lower(ctx, expr) if lower is not None else None
    if not isinstance(text, str) or not text:
        raise CodegenError("E400", f"this {type(expr).__name__} has no C++ value form", expr.span)
    return text


def operand(ctx: FunctionContext, expr: Expr) -> str:
    """An instruction operand: a variable's C++ name or an inline scalar expression."""
    if isinstance(expr, Call):
        raise CodegenError(
            "E400",
            "a nested op call must be assigned to a variable before it is used",
            expr.span,
        )
    return value(ctx, expr)


def variable(ctx: FunctionContext, var: Var) -> str:
    if not ctx.names.is_registered(var) and ctx.bag.has_errors:
        # Its definition failed and was reported: keep the preview readable.
        return ctx.names.sanitize_name(var)
    return ctx.names.get_var_name(var)


def _binary(ctx: FunctionContext, expr: Binary) -> str:
    lhs, rhs = value(ctx, expr.lhs), value(ctx, expr.rhs)
    dtype = expr.type.dtype if isinstance(expr.type, ScalarType) else None
    positive = positive_constant(expr.rhs)
    if positive and non_negative(ctx, expr.lhs):  # truncation and flooring agree
        return binary(expr.op, lhs, rhs)
    floored = floor_division(expr.op, lhs, rhs, dtype, positive)
    return floored if floored is not None else binary(expr.op, lhs, rhs)


_CLOSED_ON_NON_NEGATIVE = (
    BinaryOp.Add,
    BinaryOp.Mul,
    BinaryOp.FloorDiv,
    BinaryOp.FloorMod,
    BinaryOp.Min,
    BinaryOp.Max,
)


def positive_constant(expr: Expr) -> bool:
    return isinstance(expr, ConstInt) and expr.value > 0


def non_negative(ctx: FunctionContext, expr: Expr) -> bool:
    """Whether an integer expression is certainly >= 0: constants, loop variables counting
    up from such a start, and sums, products, quotients and remainders of those."""
    if isinstance(expr, ConstInt):
        return expr.value >= 0
    if isinstance(expr, Var):
        return expr in ctx.non_negative_vars
    if isinstance(expr, Binary) and expr.op in _CLOSED_ON_NON_NEGATIVE:
        return non_negative(ctx, expr.lhs) and non_negative(ctx, expr.rhs)
    return False


def _unary(ctx: FunctionContext, expr: Unary) -> str:
    operand = value(ctx, expr.operand)
    if expr.op is UnaryOp.Cast:  # C++'s conversion truncates a float, as the DSL's does
        assert isinstance(expr.type, ScalarType)
        return f"static_cast<{DTYPE_TO_CPP[expr.type.dtype]}>({operand})"
    return unary(expr.op, operand)


def _no_list(ctx: FunctionContext, expr: Expr) -> str:
    raise CodegenError("E400", "a list value has no C++ form here", expr.span)


def _no_tuple(ctx: FunctionContext, expr: Expr) -> str:
    raise CodegenError("E400", "tuple values are not supported by the CCE generator", expr.span)


# Each expression class's C++ text; a statement-mode op call gives "" (no value form).
_VALUES: dict[type, Callable[[FunctionContext, Any], str]] = {
    Var: variable,
    IterArg: variable,
    ConstInt: lambda ctx, expr: str(expr.value),
    ConstFloat: lambda ctx, expr: float_literal(expr.value, expr.dtype),
    ConstBool: lambda ctx, expr: bool_literal(expr.value),
    Binary: _binary,
    Unary: lambda ctx, expr: _unary(ctx, expr),
    Call: lambda ctx, expr: ops.lower_call(ctx, expr),
    MakeTuple: _no_list,
    TupleGetItem: _no_tuple,
}
