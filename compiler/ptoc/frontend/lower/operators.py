"""Scalar arithmetic, comparisons and logic: Python's operators on scalar values."""

from __future__ import annotations

import ast

from ...diagnostics import Fix, TextEdit
from ...ir.dtype import DataType
from ...ir.expr import (
    Binary,
    BinaryOp,
    ConstFloat,
    ConstInt,
    Expr,
    Unary,
    UnaryOp,
    operands_dtype,
)
from ...ir.types import ScalarType, ShapedType, UnknownType
from .core import Lowerer, error_value
from .names import const_to_expr

_BINOPS: dict[type[ast.operator], BinaryOp] = {
    ast.Add: BinaryOp.Add,
    ast.Sub: BinaryOp.Sub,
    ast.Mult: BinaryOp.Mul,
    ast.FloorDiv: BinaryOp.FloorDiv,
    ast.Mod: BinaryOp.FloorMod,
    ast.Div: BinaryOp.FloatDiv,
    ast.Pow: BinaryOp.Pow,
    ast.BitXor: BinaryOp.Xor,
    ast.BitAnd: BinaryOp.BitAnd,
    ast.BitOr: BinaryOp.BitOr,
    ast.LShift: BinaryOp.Shl,
    ast.RShift: BinaryOp.Shr,
}
_CMPOPS: dict[type[ast.cmpop], BinaryOp] = {
    ast.Eq: BinaryOp.Eq,
    ast.NotEq: BinaryOp.Ne,
    ast.Lt: BinaryOp.Lt,
    ast.LtE: BinaryOp.Le,
    ast.Gt: BinaryOp.Gt,
    ast.GtE: BinaryOp.Ge,
}
_UNSUPPORTED_CMPOPS: dict[type[ast.cmpop], str] = {
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_INT_ONLY = {BinaryOp.BitAnd, BinaryOp.BitOr, BinaryOp.Xor, BinaryOp.Shl, BinaryOp.Shr}
_BOOL_ONLY = {BinaryOp.And, BinaryOp.Or}
# The tile op a user probably meant when applying an operator to tiles or tensors.
_ELEMENTWISE = {
    BinaryOp.Add: "add",
    BinaryOp.Sub: "sub",
    BinaryOp.Mul: "mul",
    BinaryOp.FloatDiv: "div",
}


def lower_binop(lw: Lowerer, node: ast.BinOp) -> Expr:
    if isinstance(node.op, ast.MatMult):
        lw.error("E303", "Unsupported binary operator `@`; use pl.matmul(a, b)", node)
        return error_value(lw.span(node))
    op = _BINOPS[type(node.op)]
    lhs, rhs = lw.lower_expr(node.left), lw.lower_expr(node.right)
    return scalar_binary(lw, op, lhs, rhs, node, node.right, left_node=node.left)


def lower_boolop(lw: Lowerer, node: ast.BoolOp) -> Expr:
    values = [lw.lower_expr(v) for v in node.values]
    op = BinaryOp.And if isinstance(node.op, ast.And) else BinaryOp.Or
    result = values[0]
    for operand, operand_node in zip(values[1:], node.values[1:], strict=True):
        result = scalar_binary(lw, op, result, operand, node, operand_node)
    return result


def lower_compare(lw: Lowerer, node: ast.Compare) -> Expr:
    if len(node.ops) != 1:
        lw.error("E305", "Only simple comparisons are supported (no chains like a < b < c)", node)
        return error_value(lw.span(node))
    cmp = type(node.ops[0])
    if cmp not in _CMPOPS:
        name = _UNSUPPORTED_CMPOPS.get(cmp, cmp.__name__)
        lw.error("E305", f"Unsupported comparison operator `{name}`", node)
        return error_value(lw.span(node))
    lhs = lw.lower_expr(node.left)
    rhs = lw.lower_expr(node.comparators[0])
    return scalar_binary(lw, _CMPOPS[cmp], lhs, rhs, node, node.comparators[0], left_node=node.left)


def scalar_binary(
    lw: Lowerer,
    op: BinaryOp,
    lhs: Expr,
    rhs: Expr,
    node: ast.AST,
    right_node: ast.AST,
    left_node: ast.AST | None = None,
) -> Expr:
    span = lw.span(node)
    if isinstance(lhs.type, UnknownType) or isinstance(rhs.type, UnknownType):
        return error_value(span)
    for value, value_node in ((lhs, left_node or node), (rhs, right_node)):
        if not isinstance(value.type, ScalarType):
            hint = ""
            op_name = _ELEMENTWISE.get(op)
            if op_name and isinstance(value.type, ShapedType):
                kind = value.type.short().split("[")[0].lower()
                hint = f"; for element-wise {kind} arithmetic use pl.{op_name}(a, b)"
            lw.error(
                "E109",
                f"`{op.symbol}` needs scalar operands, got {value.type.short()}{hint}",
                value_node,
            )
            return error_value(span)
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, ScalarType) and isinstance(rt, ScalarType)
    a, b = lt.dtype, rt.dtype
    # An int literal next to a float adopts the float type (Python's `x * 2`).
    if a.is_float and b.is_int and isinstance(rhs, ConstInt):
        rhs, b = ConstFloat(ScalarType(a), value=float(rhs.value), span=rhs.span), a
    elif b.is_float and a.is_int and isinstance(lhs, ConstInt):
        lhs, a = ConstFloat(ScalarType(b), value=float(lhs.value), span=lhs.span), b
    problem = operand_problem(op, a, b)
    if problem is not None:
        lw.error("E109", problem, node)
        return error_value(span)
    if op in _BOOL_ONLY or op.is_comparison:
        return Binary(ScalarType(DataType.BOOL), op=op, lhs=lhs, rhs=rhs, span=span)
    # (an INDEX constant, 2026-08's int literal, beside an INT32 stays INT32: the constant is
    # kept as written, so it prints back bare)
    return Binary(ScalarType(operands_dtype(lhs, rhs)), op=op, lhs=lhs, rhs=rhs, span=span)


def operand_problem(op: BinaryOp, a: DataType, b: DataType) -> str | None:
    """Why two scalar element types cannot be operands of ``op`` (None: they can)."""
    if op in _BOOL_ONLY:
        if not (a.is_bool and b.is_bool):
            return f"`{op.symbol}` needs BOOL operands, got {a.name} and {b.name}"
        return None
    if op.is_comparison:
        if a.is_float != b.is_float and not (a.is_bool and b.is_bool):
            return f"comparison requires the same numeric dtype category, got {a.name} and {b.name}"
        return None
    if a.is_bool or b.is_bool:
        return f"`{op.symbol}` does not accept BOOL operands"
    if op in _INT_ONLY and not (a.is_int and b.is_int):
        return f"`{op.symbol}` needs integer operands, got {a.name} and {b.name}"
    if a.is_float != b.is_float:
        return (
            f"`{op.symbol}` requires the same numeric dtype category, got {a.name} and {b.name} "
            "(use pl.const(v, dtype) for a typed literal)"
        )
    return None


def lower_unary(lw: Lowerer, node: ast.UnaryOp) -> Expr:
    span = lw.span(node)
    if isinstance(node.op, ast.UAdd):
        lw.error(
            "E304",
            "Unsupported unary operator `+`",
            node,
            fixes=(Fix("Remove the `+`", (TextEdit(span, lw.env.source.segment(node.operand)),)),),
        )
        return error_value(span)
    if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return const_to_expr(lw, -value, node)
    operand = scalar_operand(lw, node.operand, "unary operators need a scalar operand, got {}")
    if operand is None:
        return error_value(span)
    assert isinstance(operand.type, ScalarType)
    dtype = operand.type.dtype
    if isinstance(node.op, ast.USub):
        if dtype.is_bool:
            lw.error("E109", "`-` does not accept a BOOL operand", node)
            return error_value(span)
        return Unary(operand.type, op=UnaryOp.Neg, operand=operand, span=span)
    if isinstance(node.op, ast.Invert):
        if not dtype.is_int:
            lw.error("E109", f"`~` needs an integer operand, got {dtype.name}", node)
            return error_value(span)
        return Unary(operand.type, op=UnaryOp.BitNot, operand=operand, span=span)
    # `not`
    if not (dtype.is_bool or dtype.is_int):
        lw.error("E109", f"`not` needs a BOOL or integer operand, got {dtype.name}", node)
        return error_value(span)
    if dtype.is_int and lw.env.rules.not_is_logical:  # 2026-08: `not n` is `n == 0`
        zero = ConstInt(operand.type, value=0, span=span)
        return Binary(ScalarType(DataType.BOOL), op=BinaryOp.Eq, lhs=operand, rhs=zero, span=span)
    return Unary(operand.type, op=UnaryOp.Not, operand=operand, span=span)


def scalar_operand(lw: Lowerer, node: ast.expr, wrong_kind: str) -> Expr | None:
    """The value of a one-operand operation's operand when it is a scalar (None: it is not,
    reported as ``wrong_kind`` with its type, or it is unknown)."""
    operand = lw.lower_expr(node)
    if isinstance(operand.type, UnknownType):
        return None
    if not isinstance(operand.type, ScalarType):
        lw.error("E109", wrong_kind.format(operand.type.short()), node)
        return None
    return operand


_CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def lower_scalar_cast(lw: Lowerer, node: ast.Call) -> Expr:
    """``pl.cast(s, DT, mode=...)`` of a scalar (2026-08): a conversion to ``DT``. A float
    converted to an integer is truncated, as the hardware's scalar unit does; ``mode`` names
    a tile conversion's rounding and is checked, not used."""
    span = lw.span(node)
    args = {k.arg: k.value for k in node.keywords if k.arg is not None}
    positional = ("input", "target_type", "mode")
    unknown = [k for k in args if k not in positional]
    if len(node.args) > 3 or unknown or any(p in args for p in positional[: len(node.args)]):
        lw.error("E302", "pl.cast takes (input, target_type, mode='round')", node)
        return error_value(span)
    args.update(zip(positional, node.args, strict=False))
    if "input" not in args or "target_type" not in args:
        lw.error("E302", "pl.cast needs the value and its target_type", node)
        return error_value(span)
    operand = scalar_operand(lw, args["input"], "pl.cast needs a scalar, got {}")
    dtype = lw.types.dtype(args["target_type"])
    mode = args.get("mode")
    if mode is not None and not _is_cast_mode(mode):
        lw.error("E306", f"pl.cast: mode must be one of {', '.join(_CAST_MODES)} or 0..6", mode)
    if operand is None or dtype is None:
        return error_value(span)
    return Unary(ScalarType(dtype), op=UnaryOp.Cast, operand=operand, span=span)


def _is_cast_mode(node: ast.expr) -> bool:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, str):
        return value in _CAST_MODES
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 6
