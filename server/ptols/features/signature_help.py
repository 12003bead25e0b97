"""Signature help for op calls and program-function calls."""

from __future__ import annotations

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ops import OpDef
from ptoc.ops.describe import param_traits

from .calls import CallContext, call_context, op_for_callee


def signature_help(
    text: str, offset: int, analysis: ModuleAnalysis | None
) -> types.SignatureHelp | None:
    context = call_context(text, offset)
    if context is None:
        return None
    prefix = analysis.prefix if analysis is not None else "pl"
    line = text.count("\n", 0, context.callee_offset) + 1
    column = context.callee_offset - (text.rfind("\n", 0, context.callee_offset) + 1)
    op = op_for_callee(analysis, context.callee, prefix, line, column)
    if op is not None:
        return op_signature(op, context)
    helper = helper_signature(context.callee, prefix, context.argument_index)
    if helper is not None:
        return helper
    if context.callee.startswith("self.") and analysis is not None:
        name = context.callee.split(".", 1)[1]
        occ = next(
            (
                o
                for o in analysis.index.occurrences
                if o.kind is OccurrenceKind.FUNCTION and o.is_definition and o.name == name
            ),
            None,
        )
        if occ is None or not occ.detail:
            return None
        detail = occ.detail
        inner = detail[detail.index("(") + 1 : detail.rindex(")")] if "(" in detail else ""
        parts = [p.strip() for p in inner.split(", ") if p.strip()]
        params = [types.ParameterInformation(label=p) for p in parts]
        signature = types.SignatureInformation(
            label=detail,
            parameters=params,
            active_parameter=min(context.argument_index, max(len(params) - 1, 0)),
        )
        return types.SignatureHelp(
            [signature], active_signature=0, active_parameter=signature.active_parameter
        )
    return None


def helper_signature(callee: str, prefix: str, index: int) -> types.SignatureHelp | None:
    """``pl.submit(``, ``pl.spmd(``, ``pl.range(`` ...: the DSL helper's documented form."""
    from ptoc.language import HELPERS

    head, _, name = callee.rpartition(".")
    item = next((h for h in HELPERS if h.name == name), None) if head == prefix else None
    if item is None or " / " in item.signature:
        return None
    inner = item.signature[item.signature.index("(") + 1 : item.signature.rindex(")")]
    parts, depth, start = [], 0, 0
    for i, char in enumerate(inner):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    params = [types.ParameterInformation(label=p) for p in parts if p]
    signature = types.SignatureInformation(
        label=f"{prefix}.{item.signature}",
        documentation=types.MarkupContent(types.MarkupKind.Markdown, item.doc),
        parameters=params,
        active_parameter=min(index, max(len(params) - 1, 0)),
    )
    return types.SignatureHelp(
        [signature], active_signature=0, active_parameter=signature.active_parameter
    )


def op_signature(op: OpDef, context: CallContext) -> types.SignatureHelp:
    params = [
        types.ParameterInformation(
            label=p.signature(),
            documentation=p.doc + (f" ({t})" if (t := param_traits(p)) else ""),
        )
        for p in op.params
    ]
    names = [p.name for p in op.params]
    active = context.argument_index
    if context.keyword in names:
        active = names.index(context.keyword)
    label = f"{context.callee}({', '.join(p.signature() for p in op.params)})"
    signature = types.SignatureInformation(
        label=label,
        documentation=types.MarkupContent(
            types.MarkupKind.Markdown,
            op.description + (f"\n\n`{op.type_rule_doc}`" if op.type_rule_doc else ""),
        ),
        parameters=params,
        active_parameter=min(active, max(len(params) - 1, 0)),
    )
    return types.SignatureHelp(
        [signature], active_signature=0, active_parameter=signature.active_parameter
    )
