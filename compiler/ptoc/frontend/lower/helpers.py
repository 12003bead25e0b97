"""Calls of the DSL's helpers (``pl.const``, and the ones only allowed elsewhere)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ...ir.dtype import DTYPE_BY_NAME
from ...ir.expr import ConstBool, ConstFloat, ConstInt, Expr, Var
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
    **{
        scope: ("E013", f"pl.{scope}(...) is only allowed as `with pl.{scope}(...):`")
        for scope in ("at", "scope", "manual_scope", "cluster")
    },
    **{
        loop: ("E004", f"pl.{loop}(...) is only allowed as a for-loop iterator")
        for loop in ("unroll", "pipeline", "split_aiv")
    },
    "dynamic": (
        "E104",
        'pl.dynamic(...) is only allowed at module level (N = pl.dynamic("N"))',
    ),
}


def lower_helper_call(lw: Lowerer, node: ast.Call, head: str) -> Expr:
    if head == "const":
        return lower_const(lw, node)
    if head in _STATEMENTS:
        return _STATEMENTS[head](lw, node)
    if head in ("submit", "spmd_submit"):
        from .tasks import lower_submit  # (it lowers calls: calls imports us through ops)

        return lower_submit(lw, node, head)
    if head == "no_dep":
        lw.error("E228", "pl.no_dep(t) is only allowed as an argument of a kernel call", node)
    if head == "dynamic" and lw.signature.jit:
        return jit_dynamic(lw, node)
    misplaced = _MISPLACED.get(head)
    if misplaced is not None:
        lw.error(misplaced[0], misplaced[1], node)
    return error_value(lw.span(node))


def jit_dynamic(lw: Lowerer, node: ast.Call) -> Expr:
    """``M = pl.dynamic("M")`` inside a JIT function: a symbolic dimension (spec §3.3)."""
    named = node.args[0] if node.args else None
    name = named.value if isinstance(named, ast.Constant) else None
    symbol = ScalarType(lw.env.rules.index_dtype)  # INDEX in 2026-08, whose form this is
    return Var(symbol, name=name if isinstance(name, str) else "dyn", span=lw.span(node))


def lower_static_assert(lw: Lowerer, node: ast.Call) -> Expr:
    """``pl.static_assert(cond, "msg")``: checked here when the condition is a constant."""
    span = lw.span(node)
    if not node.args or len(node.args) > 2:
        lw.error("E302", 'pl.static_assert takes (condition, "message")', node)
        return error_value(span)
    condition = lw.lower_expr(node.args[0])
    value = getattr(condition, "value", None)
    if isinstance(value, bool | int) and not value:
        note = node.args[1] if len(node.args) > 1 else None
        text = lw.env.source.segment(note) if note is not None else ""
        if isinstance(note, ast.Constant) and isinstance(note.value, str):
            text = note.value
        lw.error("E015", f"static assertion failed: {text}".rstrip(": "), node.args[0])
    return error_value(span)


def lower_values(lw: Lowerer, node: ast.Call) -> Expr:
    """``pl.static_print(...)``, ``pl.dump_tag(t)``, ``pl.func_attr({...})``: no value of their
    own; their value arguments are still checked (a dict or string is a compile-time value)."""
    for arg in node.args:
        if not isinstance(arg, ast.Dict | ast.Constant | ast.JoinedStr):
            lw.lower_expr(arg)
    return error_value(lw.span(node))


def lower_get_byte(lw: Lowerer, node: ast.Call, dtype_name: str) -> Expr:
    """``pl.FP32.get_byte()``: the dtype's size in bytes, a constant of the edition's index
    dtype (INDEX in 2026-08, spec §4)."""
    span = lw.span(node)
    if node.args or node.keywords:
        lw.error("E302", "get_byte() takes no arguments", node)
        return error_value(span)
    dtype = DTYPE_BY_NAME[dtype_name]
    index = ScalarType(lw.env.rules.index_dtype)
    return ConstInt(index, value=max(1, dtype.bits // 8), span=span)


_STATEMENTS: dict[str, Callable[[Lowerer, ast.Call], Expr]] = {
    "static_assert": lower_static_assert,
    "static_print": lower_values,
    "dump_tag": lower_values,
    "func_attr": lower_values,
}


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
