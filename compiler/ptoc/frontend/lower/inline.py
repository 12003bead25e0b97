"""Calls of ``@pl.inline`` functions: the body is lowered again at every call site, its
statements emitted before the calling statement, its returned value the call's value."""

from __future__ import annotations

import ast

from ...diagnostics import Related
from ...ir.expr import Expr, Var
from ...ir.span import Span
from ...ir.stmt import AssignStmt, SeqStmts
from ..analysis import Occurrence, OccurrenceKind
from ..context import Binding
from .core import MAX_INLINE_DEPTH, Lowerer, error_value


def expand_inline(lw: Lowerer, node: ast.Call, name: str) -> Expr:
    span = lw.span(node)
    definition = lw.env.inline_defs[name]
    params = [a.arg for a in definition.args.args]
    if node.keywords:
        lw.error(
            "E302", f"inline function '{name}' takes positional arguments only", node.keywords[0]
        )
    if len(node.args) != len(params):
        lw.error(
            "E206",
            f"inline function '{name}' expects {len(params)} argument(s), got {len(node.args)}",
            node,
            related=(Related(lw.span(definition), f"'{name}' is defined here"),),
        )
        return error_value(span)
    if lw.state.inline_depth >= MAX_INLINE_DEPTH:
        lw.error(
            "E901",
            f"inline expansion of '{name}' nests deeper than {MAX_INLINE_DEPTH} levels",
            node,
        )
        return error_value(span)
    args = [lw.lower_expr(a) for a in node.args]
    lw.occurrence(
        Occurrence(
            lw.span(node.func), name, OccurrenceKind.FUNCTION, None, definition=lw.span(definition)
        )
    )
    saved_scope, saved_frames, saved_cache = lw.state.scope, lw.state.frames, lw.cache
    lw.cache = {}  # the inline body's nodes are lowered afresh at every call site
    lw.state.frames = []
    lw.state.inline_depth += 1
    try:
        lw.state.scope = dict(saved_scope)
        bind_parameters(lw, params, args, span)
        return inline_body(lw, node, name, definition)
    finally:
        lw.state.scope = saved_scope
        lw.state.frames = saved_frames
        lw.cache = saved_cache
        lw.state.inline_depth -= 1


def bind_parameters(lw: Lowerer, params: list[str], args: list[Expr], span: Span) -> None:
    """Each parameter names its argument; a computed argument is first assigned to a fresh name."""
    for param, value in zip(params, args, strict=True):
        var = (
            value
            if isinstance(value, Var)
            else Var(value.type, name=lw.fresh_name(f"_{param}"), span=span)
        )
        if var is not value:
            lw.pending.append(AssignStmt(var, value, span=span))
        lw.state.scope[param] = Binding(var, var.span, OccurrenceKind.PARAMETER)


def inline_body(lw: Lowerer, node: ast.Call, name: str, definition: ast.FunctionDef) -> Expr:
    body = list(definition.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    returned: ast.Return | None = None
    if body and isinstance(body[-1], ast.Return):
        returned = body[-1]
        body = body[:-1]
    outer_pending = lw.pending
    lw.pending = []
    block = lw.lower_block(body) if body else None
    lw.pending = outer_pending
    if block is not None:
        lw.pending.extend(block.stmts if isinstance(block, SeqStmts) else [block])
    if returned is not None and returned.value is not None:
        return lw.lower_expr(returned.value)
    lw.error(
        "E014", f"inline function '{name}' used as a value must end with `return <value>`", node
    )
    return error_value(lw.span(node))
