"""Signature help for op calls and program-function calls."""

from __future__ import annotations

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
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
    if analysis is not None and context.callee in analysis.jit_functions:
        return jit_signature_help(analysis, context.callee, context.argument_index)
    helper = helper_signature(context.callee, prefix, context.argument_index)
    if helper is not None:
        return helper
    if context.callee.startswith("self.") and analysis is not None:
        return method_signature_help(analysis, context.callee, context.argument_index)
    return None


def jit_signature_help(
    analysis: ModuleAnalysis, name: str, argument: int
) -> types.SignatureHelp | None:
    """A ``@pl.jit`` kernel's call: its signature for every shape, each parameter documented
    with what the call must pass (``a needs rank 2, at least [128, 128]``)."""
    occ = function_definition(analysis, name)
    if occ is None or not occ.detail:
        return None
    first = occ.detail.splitlines()[0]
    notes = analysis.jit_param_notes.get(name, {})
    params = []
    for part in split_params(first):
        doc = notes.get(part.split(":", 1)[0].strip())
        params.append(types.ParameterInformation(label=part, documentation=doc))
    signature = types.SignatureInformation(
        label=first,
        documentation="\n".join(notes.values()) or None,
        parameters=params,
        active_parameter=min(argument, max(len(params) - 1, 0)),
    )
    return types.SignatureHelp(
        [signature], active_signature=0, active_parameter=signature.active_parameter
    )


def split_params(signature: str) -> list[str]:
    """``def k(a: Tensor[?, ?], n: Scalar[INT32])`` -> its parameters (commas inside brackets
    do not split)."""
    if "(" not in signature:
        return []
    inner = signature[signature.index("(") + 1 : signature.rindex(")")]
    parts, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        depth += (char in "[(") - (char in "])")
        if char == "," and depth == 0:
            parts.append(inner[start:index].strip())
            start = index + 1
    parts.append(inner[start:].strip())
    return [p for p in parts if p]


def method_signature_help(
    analysis: ModuleAnalysis, callee: str, argument: int
) -> types.SignatureHelp | None:
    """A call of a program's own function (``self.kernel(...)``)."""
    name = callee.split(".", 1)[1]
    occ = function_definition(analysis, name)
    if occ is None or not occ.detail:
        return None
    detail = occ.detail
    inner = detail[detail.index("(") + 1 : detail.rindex(")")] if "(" in detail else ""
    parts = [p.strip() for p in inner.split(", ") if p.strip()]
    params = [types.ParameterInformation(label=p) for p in parts]
    signature = types.SignatureInformation(
        label=detail,
        parameters=params,
        active_parameter=min(argument, max(len(params) - 1, 0)),
    )
    return types.SignatureHelp(
        [signature], active_signature=0, active_parameter=signature.active_parameter
    )


def helper_signature(callee: str, prefix: str, index: int) -> types.SignatureHelp | None:
    """``pl.submit(``, ``pl.spmd(``, ``pl.range(`` ...: the DSL helper's documented form."""
    from ptoc.language import HELPERS

    head, _, name = callee.rpartition(".")
    item = next((h for h in HELPERS if h.name == name), None) if head == prefix else None
    if item is None or " / " in item.signature:
        return None
    params = [types.ParameterInformation(label=p) for p in split_params(item.signature)]
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


def function_definition(analysis: ModuleAnalysis, name: str) -> Occurrence | None:
    """The definition of the program or JIT function ``name`` in the symbol index."""
    return next(
        (
            o
            for o in analysis.index.occurrences
            if o.kind is OccurrenceKind.FUNCTION and o.is_definition and o.name == name
        ),
        None,
    )
