"""Compile-time attribute arguments of op calls: dtypes, memory spaces, layouts, numbers."""

from __future__ import annotations

import ast
from typing import Any

from ...diagnostics import Fix, TextEdit
from ...ir.dtype import DataType
from ...ir.expr import AttrValue
from ...ir.types import MEMORY_SPACE_BY_NAME, UNKNOWN, MemorySpace, ShapedType, UnknownType
from ...ops import OpDef, Param
from ..consteval import NotConstant, dsl_enum_value
from .core import Lowerer


def attr_value(lw: Lowerer, node: ast.expr, param: Param, op: OpDef) -> tuple[bool, AttrValue]:
    """Evaluate a compile-time attribute argument; report E306/E309 when it is not one."""
    value: Any
    if element_type(lw, node) is UNKNOWN:  # ``a.dtype`` of a JIT tensor not shaped yet
        return False, None
    try:
        value = attr_eval(lw, node)
    except NotConstant as problem:
        if isinstance(node, ast.Name) and node.id in lw.state.scope:
            lw.error(
                "E309",
                f"{op.name}: '{param.name}' must be a compile-time constant, "
                f"not the variable '{node.id}'",
                node,
            )
        else:
            lw.error(
                "E309",
                f"{op.name}: '{param.name}' must be a compile-time constant ({problem.reason})",
                node,
            )
        return False, None
    if param.attr_types:
        ok = any(
            isinstance(value, t)
            and not (isinstance(value, bool) and t is int and bool not in param.attr_types)
            for t in param.attr_types
        )
        if (
            not ok
            and float in param.attr_types
            and isinstance(value, int)
            and not isinstance(value, bool)
        ):
            value, ok = float(value), True
        if not ok:
            wanted = " or ".join(t.__name__ for t in param.attr_types)
            lw.error(
                "E306",
                f"{op.name}: '{param.name}' must be {wanted}, got {lw.env.source.segment(node)}",
                node,
            )
            return False, None
    return True, value


def element_type(lw: Lowerer, node: ast.expr) -> DataType | UnknownType | None:
    """``a.dtype`` of a tensor or tile in scope (spec §3.3): its element type; UNKNOWN for a
    JIT tensor no call has shaped yet; None for anything else."""
    if not (
        isinstance(node, ast.Attribute)
        and node.attr == "dtype"
        and isinstance(node.value, ast.Name)
        and node.value.id in lw.state.scope
    ):
        return None
    held = lw.state.scope[node.value.id].var.type
    if isinstance(held, ShapedType):
        return held.dtype
    return UNKNOWN if isinstance(held, UnknownType) else None


def attr_eval(lw: Lowerer, node: ast.expr) -> Any:
    element = element_type(lw, node)
    if isinstance(element, DataType):
        return element
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    if isinstance(node, ast.Attribute | ast.Name):
        value = named_attr(lw, node)
        if value is not None:
            return value
        if isinstance(node, ast.Name) and node.id in lw.state.scope:
            raise NotConstant("a variable")
    if isinstance(node, ast.List | ast.Tuple):
        return tuple(attr_eval(lw, e) for e in node.elts)
    return lw.env.consts.evaluate(node)


def named_attr(lw: Lowerer, node: ast.Attribute | ast.Name) -> Any:
    """A DSL enum value spelled by name (``pl.FP32``, ``pl.MemorySpace.Vec``), or None."""
    path = lw.path(node)
    if path is not None:
        value = dsl_enum_value(path)
        if value is None and len(path) == 1:
            value = dsl_enum_value(path[-1:])
        if isinstance(value, MemorySpace) and path[-1] != value.name:
            legacy_memory_space(lw, node, value)
        if value is not None:
            return value
    if isinstance(node, ast.Attribute) and node.attr in MEMORY_SPACE_BY_NAME:
        chain = lw.env.source.segment(node)
        if chain.endswith("MemorySpace." + node.attr):
            space = MEMORY_SPACE_BY_NAME[node.attr]
            if node.attr != space.name:
                legacy_memory_space(lw, node, space)
            return space
    return None


def legacy_memory_space(lw: Lowerer, node: ast.Attribute | ast.Name, value: MemorySpace) -> None:
    if not isinstance(node, ast.Attribute):
        return
    name_span = lw.env.source.attr_name_span(node)
    lw.error(
        "W003",
        f"`{node.attr}` is the seed name of memory space `{value.name}`",
        name_span,
        fixes=(
            Fix(f"Rename to `{value.name}`", (TextEdit(name_span, value.name),), preferred=True),
        ),
    )
