"""Signature help for op calls and program-function calls."""

from __future__ import annotations

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ops.describe import param_traits

from .calls import call_context, op_for_callee


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
