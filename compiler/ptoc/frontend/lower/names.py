"""Names, constants, tuples and subscripts: the values an expression starts from."""

from __future__ import annotations

import ast
from typing import Any

from ...diagnostics import Related
from ...ir.dtype import DataType
from ...ir.expr import ConstBool, ConstFloat, ConstInt, Expr, TupleGetItem, make_tuple
from ...ir.types import ArrayType, ScalarType, TensorType, TileType, TupleType, UnknownType
from ..analysis import Occurrence, OccurrenceKind
from ..consteval import DynDim, NotConstant
from .core import Lowerer, error_value


def lower_name(lw: Lowerer, node: ast.Name) -> Expr:
    span = lw.span(node)
    binding = lw.state.scope.get(node.id)
    if binding is not None:
        lw.occurrence(
            Occurrence(
                span,
                node.id,
                binding.kind,
                binding.var.type,
                definition=binding.span,
                detail=lw.state.task_origins.get(binding.span, ""),
            )
        )
        return binding.var
    consts = lw.env.consts
    if node.id in consts.values:
        value = consts.values[node.id]
        expr = const_to_expr(lw, value, node)
        lw.occurrence(
            Occurrence(
                span,
                node.id,
                OccurrenceKind.CONSTANT,
                expr.type,
                definition=consts.definitions.get(node.id),
                detail=repr(value)
                if not isinstance(value, DynDim)
                else f'pl.dynamic("{value.var.name}")',
            )
        )
        return expr
    return undefined_name(lw, node)


def undefined_name(lw: Lowerer, node: ast.Name) -> Expr:
    """A name that is neither a local nor a module constant: say why, and what was meant."""
    span = lw.span(node)
    consts = lw.env.consts
    if node.id in lw.state.out_of_scope:
        definition, hint = lw.state.out_of_scope[node.id]
        lw.error(
            "E202",
            f"'{node.id}' is not defined here: {hint}",
            node,
            related=(Related(definition, f"'{node.id}' is defined here"),),
        )
        return error_value(span)
    if node.id in consts.definitions:
        lw.error(
            "E205",
            f"'{node.id}' is defined at module level but its value cannot be evaluated statically",
            node,
            related=(Related(consts.definitions[node.id], "defined here"),),
        )
        return error_value(span)
    candidates = list(lw.state.scope) + list(consts.values)
    lw.unknown_name("E200", f"Undefined variable '{node.id}'", span, node.id, candidates)
    return error_value(span)


# Types are immutable values: constants share them.
_BOOL = ScalarType(DataType.BOOL)
_FP32 = ScalarType(DataType.FP32)
_INTEGER = {dtype: ScalarType(dtype) for dtype in (DataType.INT64, DataType.INDEX)}


def const_to_expr(lw: Lowerer, value: Any, node: ast.AST) -> Expr:
    span = lw.span(node)
    if isinstance(value, bool):
        return ConstBool(_BOOL, value=value, span=span)
    if isinstance(value, int):  # the edition's literal dtype: INDEX in 2026-08 (spec §4)
        return ConstInt(_INTEGER[lw.env.rules.int_literal_dtype], value=value, span=span)
    if isinstance(value, float):
        return ConstFloat(_FP32, value=value, span=span)
    if isinstance(value, DynDim):
        return value.var
    if isinstance(value, list):
        return make_tuple(tuple(const_to_expr(lw, v, node) for v in value), span)
    lw.error("E011", f"a {type(value).__name__} constant is not a value here", node)
    return error_value(span)


def lower_constant(lw: Lowerer, node: ast.Constant) -> Expr:
    value = node.value
    if isinstance(value, bool | int | float):
        return const_to_expr(lw, value, node)
    kind = "string" if isinstance(value, str) else type(value).__name__
    lw.error("E011", f"Unsupported constant type: {kind}", node)
    return error_value(lw.span(node))


def lower_sequence(lw: Lowerer, node: ast.List | ast.Tuple) -> Expr:
    elements = tuple(lw.lower_expr(e) for e in node.elts)
    return make_tuple(elements, lw.span(node))


def constant_subscript(lw: Lowerer, node: ast.Subscript) -> bool:
    """A subscript of a module constant (``CFG["rows"]``), not of a local value."""
    root = node.value
    while isinstance(root, ast.Subscript):
        root = root.value
    return (
        isinstance(root, ast.Name)
        and root.id not in lw.state.scope
        and root.id in lw.env.consts.values
    )


def lower_subscript(lw: Lowerer, node: ast.Subscript) -> Expr:
    span = lw.span(node)
    if constant_subscript(lw, node):
        try:  # a module constant: CFG["rows"], SHAPE[0]
            return const_to_expr(lw, lw.env.consts.evaluate(node), node)
        except NotConstant as problem:
            lw.error(
                "E205",
                f"`{lw.env.source.segment(node)}` cannot be evaluated statically: {problem.reason}",
                node,
            )
            return error_value(span)
    value = lw.lower_expr(node.value)
    if isinstance(value.type, UnknownType):
        return error_value(span)
    if isinstance(value.type, TensorType | TileType):
        from .subscripts import lower_shaped_subscript  # (it lowers op calls: ops imports us)

        return lower_shaped_subscript(lw, node, value)
    if isinstance(value.type, ArrayType):
        from .subscripts import lower_array_subscript

        return lower_array_subscript(lw, node, value, None)
    if not isinstance(value.type, TupleType):
        lw.error("E306", f"Subscript requires a tuple value, got {value.type.short()}", node)
        return error_value(span)
    index = node.slice
    if (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
    ):
        raw: Any = -index.operand.value if isinstance(index.operand.value, int) else None
    else:
        raw = index.value if isinstance(index, ast.Constant) else None
    if not isinstance(raw, int) or isinstance(raw, bool):
        lw.error("E011", "A tuple index must be a constant integer", index)
        return error_value(span)
    count = len(value.type.types)
    if not -count <= raw < count:
        lw.error("E306", f"Tuple index {raw} out of range for {count} values", index)
        return error_value(span)
    raw %= count
    return TupleGetItem(value.type.types[raw], tuple_value=value, index=raw, span=span)


def lower_attribute(lw: Lowerer, node: ast.Attribute) -> Expr:
    base = node.value
    if node.attr in ("shape", "dtype") and isinstance(base, ast.Name) and base.id in lw.state.scope:
        held = lw.lower_expr(base)
        if node.attr == "shape" and isinstance(held.type, TensorType | TileType):
            return make_tuple(queried_dims(lw, held.type.shape), lw.span(node))  # spec §3.3
        # ``a.dtype`` is an op's attribute argument (read there); the shape of a JIT tensor no
        # call has shaped yet is unknown.
        if node.attr == "dtype" or isinstance(held.type, UnknownType):
            return error_value(lw.span(node))
    if lw.path(node) is not None:
        lw.error(
            "E011",
            f"`{lw.env.source.segment(node)}` is not a value here "
            "(standalone attribute access is only allowed as an op argument)",
            node,
        )
    else:
        lw.error("E011", "Standalone attribute access is not supported", node)
    return error_value(lw.span(node))


def queried_dims(lw: Lowerer, dims: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """A shape's dims queried as scalars (``a.shape``, ``a.shape[i]``, ``M, N = a.shape``): a
    constant dim is of the edition's index dtype (``EditionRules.index_dtype``: INDEX in
    2026-08, spec §4; INT64 in 2026-03); a symbolic dim stays the symbol it is."""
    index = lw.env.rules.index_dtype
    return tuple(
        ConstInt(ScalarType(index), value=d.value, span=d.span)
        if isinstance(d, ConstInt) and d.dtype is DataType.INT64 and index is not d.dtype
        else d
        for d in dims
    )


def lower_starred(lw: Lowerer, node: ast.Starred) -> Expr:
    lw.error("E011", "Unpacking with * is not supported", node)
    return error_value(lw.span(node))


def lower_conditional(lw: Lowerer, node: ast.IfExp) -> Expr:
    lw.error(
        "E011", "Unsupported expression type: IfExp (use an if statement with pl.yield_)", node
    )
    return error_value(lw.span(node))


def unsupported_expression(lw: Lowerer, node: ast.expr) -> Expr:
    lw.error("E011", f"Unsupported expression type: {type(node).__name__}", node)
    return error_value(lw.span(node))
