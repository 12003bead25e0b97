"""Calls of distributed PyPTO (``pld.X``, ``pld.system.X``, ``pld.tensor.X``, ``pld.tile.X``;
spec pypto-2026-08.md section 12): resolved by ``ops.distributed_2608`` and typed by the op's
rule like every other op."""

from __future__ import annotations

import ast

from ...diagnostics import replacement_fixes
from ...ir.expr import Expr
from ...ops.pld import resolve_pld
from ..analysis import Occurrence, OccurrenceKind
from .core import Lowerer, error_value
from .ops import lower_op_call, peek_type


def lower_pld_call(lw: Lowerer, node: ast.Call, path: tuple[str, ...]) -> Expr:
    name_span = (
        lw.env.source.attr_name_span(node.func)
        if isinstance(node.func, ast.Attribute)
        else lw.span(node.func)
    )
    first = peek_type(lw, node.args[0]) if node.args else None
    resolution = resolve_pld(path, first)
    op = resolution.op
    if op is None:
        fixes = replacement_fixes(name_span, resolution.suggestions)
        lw.error(resolution.code, resolution.message, name_span, fixes=fixes)
        for arg in node.args[1:]:
            peek_type(lw, arg)
        return error_value(lw.span(node))
    result = lower_op_call(lw, node, op, name_span)
    lw.occurrence(
        Occurrence(lw.span(node.func), path[-1], OccurrenceKind.OP, result.type, op_name=op.name)
    )
    return result
