"""Calls of the DSL's helpers (``pl.const``, and the ones only allowed elsewhere)."""

from __future__ import annotations

import ast
from typing import Any

from ...ir.expr import ConstBool, ConstFloat, ConstInt, Expr
from ...ir.types import ScalarType
from .core import Lowerer, error_value

# Helpers that are statements or iterators of their own, not values: where they belong.
_MISPLACED = {
    "range": ("E004", "pl.range(...) is only allowed as a for-loop iterator"),
    "parallel": ("E004", "pl.parallel(...) is only allowed as a for-loop iterator"),
    "while_": ("E004", "pl.while_(...) is only allowed as a for-loop iterator"),
    "cond": ("E014", "pl.cond(...) is only allowed as the first statement of a pl.while_ loop"),
    "yield_": (
        "E014",
        "pl.yield_(...) must be a statement of its own (optionally assigned to names)",
    ),
    "incore": ("E013", "pl.incore() is only allowed as `with pl.incore():`"),
    "dynamic": (
        "E104",
        'pl.dynamic(...) is only allowed at module level (N = pl.dynamic("N"))',
    ),
}


def lower_helper_call(lw: Lowerer, node: ast.Call, head: str) -> Expr:
    if head == "const":
        return lower_const(lw, node)
    misplaced = _MISPLACED.get(head)
    if misplaced is not None:
        lw.error(misplaced[0], misplaced[1], node)
    return error_value(lw.span(node))


def lower_const(lw: Lowerer, node: ast.Call) -> Expr:
    span = lw.span(node)
    if len(node.args) != 2 or node.keywords:
        lw.error("E302", "pl.const takes exactly two arguments: pl.const(value, dtype)", node)
        return error_value(span)
    value_node, dtype_node = node.args
    raw = number_literal(value_node)
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        lw.error("E302", "pl.const needs a number literal as its first argument", value_node)
        return error_value(span)
    dtype = lw.types.dtype(dtype_node)
    if dtype is None:
        return error_value(span)
    if dtype.is_bool:
        return ConstBool(ScalarType(dtype), value=bool(raw), span=span)
    if dtype.is_float:
        return ConstFloat(ScalarType(dtype), value=float(raw), span=span)
    if isinstance(raw, float):
        lw.error(
            "E306",
            f"pl.const: {raw} is not an integer but the dtype is {dtype.name}",
            value_node,
        )
        return error_value(span)
    return ConstInt(ScalarType(dtype), value=raw, span=span)


def number_literal(node: ast.expr) -> Any:
    """The value of a literal or a negated number literal (None when it is neither)."""
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        operand = node.operand.value
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand
    return None
