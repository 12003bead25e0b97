"""C++ spellings of scalar expressions: the value-returning half of the dual-mode pattern."""

from __future__ import annotations

import math

from ...ir.dtype import DataType
from ...ir.expr import BinaryOp, UnaryOp

# Operators written infix, parenthesised: (lhs op rhs). Integer // and % are C++ / and %:
# index arithmetic is non-negative, where truncation and flooring agree.
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
