"""``with pl.incore():``: a scope whose body becomes an InCore function."""

from __future__ import annotations

import ast

from ...ir.stmt import ScopeKind, ScopeStmt, Stmt
from ..analysis import Occurrence, OccurrenceKind
from .core import Lowerer


def lower_with(lw: Lowerer, node: ast.With) -> list[Stmt]:
    if len(node.items) != 1:
        lw.error(
            "E013",
            "Only one context manager is supported: with pl.incore():",
            node.items[1].context_expr,
        )
        return []
    item = node.items[0]
    expr = item.context_expr
    ok = (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "incore"
        and not expr.args
    )
    if not ok:
        lw.error("E013", "Unsupported context manager; only `with pl.incore():` is allowed", expr)
        return []
    if item.optional_vars is not None:
        lw.error("E013", "`with pl.incore()` does not bind a name", item.optional_vars)
    lw.occurrence(Occurrence(lw.span(expr), "incore", OccurrenceKind.HELPER, None))
    lw.state.incore_scopes += 1
    try:
        body = lw.lower_block(node.body)
    finally:
        lw.state.incore_scopes -= 1
    return [ScopeStmt(body, ScopeKind.InCore, span=lw.span(node))]
