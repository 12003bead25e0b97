"""C++ spellings of scalar expressions: the value-returning half of the dual-mode pattern."""

from __future__ import annotations

import math

from ...ir.dtype import DataType
from ...ir.expr import BinaryOp, UnaryOp

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
CALLS: dict[BinaryOp, str] = {BinaryOp.Min: "min", BinaryOp.Max: "max", BinaryOp.Pow: "pow"}

PREFIX: dict[UnaryOp, str] = {UnaryOp.Neg: "-", UnaryOp.BitNot: "~", UnaryOp.Not: "!"}


def binary(op: BinaryOp, lhs: str, rhs: str) -> str:
    if op in CALLS:
        return f"{CALLS[op]}({lhs}, {rhs})"
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
