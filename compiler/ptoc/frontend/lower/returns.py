"""``return``: the function's values, checked against its return annotation."""

from __future__ import annotations

import ast

from ...diagnostics import Fix, Related, TextEdit
from ...ir.expr import Expr
from ...ir.span import Span
from ...ir.stmt import ReturnStmt, Stmt
from ...ir.types import Type, UnknownType, types_compatible
from .annotations import print_type_text
from .core import Lowerer


def lower_return(lw: Lowerer, node: ast.Return) -> list[Stmt]:
    span = lw.span(node)
    if node.value is None:
        values: list[Expr] = []
        value_nodes: list[ast.expr] = []
    elif isinstance(node.value, ast.Tuple):
        value_nodes = list(node.value.elts)
        values = [lw.lower_expr(v) for v in value_nodes]
    else:
        value_nodes = [node.value]
        values = [lw.lower_expr(node.value)]
    expected = lw.signature.return_types
    annotation = lw.signature.return_annotation_span
    if expected is not None and annotation is not None:
        check_return(lw, node, values, value_nodes, expected, annotation)
    return [ReturnStmt(values=tuple(values), span=span)]


def check_return(
    lw: Lowerer,
    node: ast.Return,
    values: list[Expr],
    value_nodes: list[ast.expr],
    expected: list[Type],
    annotation: Span,
) -> None:
    """The original does not check returns against the annotation: a disagreement is W007, and
    the function's IR returns the deduced types (callers still see the annotation, as there)."""
    related = (Related(annotation, "the return annotation is here"),)
    name = lw.signature.name
    if len(values) != len(expected):
        if expected or values:
            lw.error(
                "W007",
                f"'{name}' is annotated to return {len(expected)} value(s) "
                f"but this returns {len(values)}",
                node,
                related=related,
            )
            deduced_returns(lw, values)
        return
    for value, want, value_node in zip(values, expected, value_nodes, strict=True):
        if types_compatible(want, value.type):
            continue
        fixes: tuple[Fix, ...] = ()
        text = print_type_text(value.type, lw.prefix)
        if text and len(expected) == 1:
            fixes = (
                Fix(
                    f"Change the return annotation to `{text}`",
                    (TextEdit(annotation, text),),
                    preferred=True,
                ),
            )
        lw.error(
            "W007",
            f"returns {value.type.short()} but '{name}' is annotated to return {want.short()}; "
            "the deduced type is used",
            value_node,
            related=related,
            fixes=fixes,
        )
        deduced_returns(lw, values)


def deduced_returns(lw: Lowerer, values: list[Expr]) -> None:
    if lw.return_types is None and not any(isinstance(v.type, UnknownType) for v in values):
        lw.return_types = [v.type for v in values]
