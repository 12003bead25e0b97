"""Completion: after `pl.` and its namespaces, keyword arguments of the op being called,
`self.` functions, and names in scope."""

from __future__ import annotations

import functools
import re

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ir.dsl_enums import PLD_ENUMS
from ptoc.language import ENUMS, SurfaceKind, top_level_entries
from ptoc.ops import PLD_GROUPS as GROUPS
from ptoc.ops import REGISTRY, OpDef, ParamKind, dsl_spellings, pld_spellings

from .calls import call_context, op_for_callee
from .common import type_text
from .hover import op_markdown

ATTRIBUTE = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
WORD = re.compile(r"(\w*)$")

SURFACE_KIND = {
    SurfaceKind.HELPER: types.CompletionItemKind.Function,
    SurfaceKind.TYPE: types.CompletionItemKind.Class,
    SurfaceKind.DECORATOR: types.CompletionItemKind.Function,
    SurfaceKind.DTYPE: types.CompletionItemKind.Constant,
    SurfaceKind.ENUM: types.CompletionItemKind.Enum,
    SurfaceKind.NAMESPACE: types.CompletionItemKind.Module,
    SurfaceKind.LAYOUT: types.CompletionItemKind.Constant,
}


def _op_item(name: str, op: OpDef, prefix: str, sort: str) -> types.CompletionItem:
    """Docs are left for `completionItem/resolve` (see ``resolve``): a list after `pl.` has
    over a hundred ops and only the highlighted one's docs are ever shown."""
    required = [p.name for p in op.params if p.required]
    return types.CompletionItem(
        label=name,
        kind=types.CompletionItemKind.Function,
        detail=f"{name}({', '.join(p.signature() for p in op.params)})",
        sort_text=sort + name,
        label_details=types.CompletionItemLabelDetails(
            detail=f"({', '.join(required)})", description=op.category.value
        ),
        data={"op": op.name, "prefix": prefix},
    )


@functools.lru_cache(maxsize=64)
def _ops(namespace: tuple[str, ...], prefix: str) -> tuple[types.CompletionItem, ...]:
    """The op items of a namespace never change while the server runs: built once."""
    return tuple(_op_item(name, op, prefix, "1") for name, op in dsl_spellings(namespace))


@functools.lru_cache(maxsize=16)
def _top_level(prefix: str) -> tuple[types.CompletionItem, ...]:
    items = list(_ops((), prefix))
    for item in top_level_entries():
        items.append(
            types.CompletionItem(
                item.name,
                kind=SURFACE_KIND[item.kind],
                detail=item.signature,
                documentation=item.doc,
                sort_text=("0" if item.kind in (SurfaceKind.HELPER, SurfaceKind.TYPE) else "2")
                + item.name,
            )
        )
    return tuple(items)


def resolve(item: types.CompletionItem) -> types.CompletionItem:
    """Fill in an op item's documentation when the client shows it."""
    data = item.data if isinstance(item.data, dict) else {}
    op = REGISTRY.get(str(data.get("op", "")))
    if op is not None and item.documentation is None:
        item.documentation = types.MarkupContent(
            types.MarkupKind.Markdown, op_markdown(op, str(data.get("prefix", "pl")))
        )
    return item


def attribute_items(
    chain: list[str], analysis: ModuleAnalysis | None, prefix: str, line: int
) -> list[types.CompletionItem] | None:
    if chain == ["self"] and analysis is not None:
        program = _enclosing_program(analysis, line)
        items = []
        for info in analysis.function_infos:
            if info.program == program and program is not None:
                occ = analysis.index.at(info.name_span.line, info.name_span.column)
                detail = occ.detail if occ is not None else info.name
                items.append(
                    types.CompletionItem(
                        info.name, kind=types.CompletionItemKind.Method, detail=detail
                    )
                )
        return items
    pld_aliases = analysis.distributed if analysis is not None else ("pld",)
    if chain and chain[0] in pld_aliases:
        return distributed_items(chain[1:])
    if not chain or chain[0] != prefix:
        return None
    path = chain[1:]
    if path == []:
        return list(_top_level(prefix))
    if path in (["block"], ["tensor"], ["system"], ["array"], ["prefetch"]):
        return list(_ops((path[0],), prefix))
    if path in (["op", "block"], ["op", "tensor"]):
        return list(_ops((path[1],), prefix))
    if path == ["op"]:
        return [
            types.CompletionItem(n, kind=types.CompletionItemKind.Module)
            for n in ("block", "tensor")
        ]
    if len(path) == 1 and path[0] in ENUMS:
        return [
            types.CompletionItem(
                m, kind=types.CompletionItemKind.EnumMember, detail=f"{prefix}.{path[0]}.{m}"
            )
            for m in ENUMS[path[0]]
        ]
    return []


@functools.lru_cache(maxsize=8)
def _pld_ops(group: str | None) -> tuple[types.CompletionItem, ...]:
    return tuple(_op_item(name, op, "pld", "1") for name, op in pld_spellings(group))


def distributed_items(path: list[str]) -> list[types.CompletionItem]:
    """After ``pld.``: the short forms, the op groups, the enumerations and the type; after
    ``pld.<group>.``: the group's ops; after ``pld.<Enum>.``: its members."""
    module = types.CompletionItemKind.Module
    if path == []:
        items = list(_pld_ops(None))
        items += [types.CompletionItem(g, kind=module, sort_text="2" + g) for g in GROUPS]
        items += [
            types.CompletionItem(e, kind=types.CompletionItemKind.Enum, sort_text="2" + e)
            for e in (*PLD_ENUMS, "AtomicType")
        ]
        items.append(
            types.CompletionItem(
                "DistributedTensor",
                kind=types.CompletionItemKind.Class,
                detail="pld.DistributedTensor[shape, dtype]",
                sort_text="0DistributedTensor",
            )
        )
        return items
    if len(path) == 1 and path[0] in GROUPS:
        return list(_pld_ops(path[0]))
    members = _pld_enum_members(path[0]) if len(path) == 1 else []
    return [
        types.CompletionItem(
            m, kind=types.CompletionItemKind.EnumMember, detail=f"pld.{path[0]}.{m}"
        )
        for m in members
    ]


def _pld_enum_members(group: str) -> list[str]:
    if group in PLD_ENUMS:
        return list(PLD_ENUMS[group].__members__)
    return list(ENUMS.get(group, ())) if group == "AtomicType" else []


def _enclosing_program(analysis: ModuleAnalysis, line: int) -> str | None:
    for info in analysis.function_infos:
        if info.span.line <= line <= info.span.end_line:
            return info.program
    programs = [o for o in analysis.index.occurrences if o.kind is OccurrenceKind.PROGRAM]
    best = None
    for occ in programs:
        if occ.span.line <= line:
            best = occ.name
    return best


def keyword_items(op: OpDef, used: list[str], positional: int) -> list[types.CompletionItem]:
    items = []
    for index, param in enumerate(op.params):
        if param.name in used or index < positional:
            continue
        detail = param.doc + (
            "" if param.required else f" (default {param.signature().split('=', 1)[1]})"
        )
        items.append(
            types.CompletionItem(
                f"{param.name}=",
                kind=types.CompletionItemKind.Property,
                detail=detail,
                insert_text=f"{param.name}=",
                sort_text=("0" if param.kind is ParamKind.ATTR else "1") + param.name,
            )
        )
    return items


def scope_items(analysis: ModuleAnalysis, line: int, prefix: str) -> list[types.CompletionItem]:
    function = next(
        (f for f in analysis.function_infos if f.span.line <= line <= f.span.end_line), None
    )
    seen: dict[str, types.CompletionItem] = {}
    # module constants (before any function) and the enclosing function's own definitions
    first_function = min((f.span.line for f in analysis.function_infos), default=line)
    candidates = analysis.index.between(1, min(first_function, line))
    if function is not None:
        candidates = candidates + analysis.index.between(function.span.line, line)
    for occ in candidates:
        if not occ.is_definition:
            continue
        if occ.kind is OccurrenceKind.CONSTANT and occ.span.line < line:
            seen[occ.name] = types.CompletionItem(
                occ.name,
                kind=types.CompletionItemKind.Constant,
                detail=occ.detail or None,
                sort_text="1" + occ.name,
            )
            continue
        if function is None or occ.kind not in (
            OccurrenceKind.VARIABLE,
            OccurrenceKind.PARAMETER,
            OccurrenceKind.ITER_ARG,
            OccurrenceKind.LOOP_VAR,
        ):
            continue
        if function.span.line <= occ.span.line <= line and (occ.span.line < line):
            seen[occ.name] = types.CompletionItem(
                occ.name,
                kind=types.CompletionItemKind.Variable,
                detail=type_text(occ.type, prefix),
                sort_text="0" + occ.name,
            )
    items = list(seen.values())
    items.append(
        types.CompletionItem(
            prefix,
            kind=types.CompletionItemKind.Module,
            detail="pypto.language",
            sort_text="2" + prefix,
        )
    )
    if function is not None and function.program is not None:
        items.append(
            types.CompletionItem("self", kind=types.CompletionItemKind.Variable, sort_text="2self")
        )
    return items


def complete(
    text: str, offset: int, line: int, column: int, analysis: ModuleAnalysis | None
) -> types.CompletionList | None:
    """``line`` is 1-based, ``column`` a code-point column; ``offset`` into ``text``."""
    prefix = analysis.prefix if analysis is not None else "pl"
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    if before.lstrip().startswith("#"):
        return None
    match = ATTRIBUTE.search(before)
    if match:
        chain = match.group(1).split(".")
        members = attribute_items(chain, analysis, prefix, line)
        if members is not None:
            return types.CompletionList(is_incomplete=False, items=members)
    if analysis is None:
        return None
    items: list[types.CompletionItem] = []
    context = call_context(text, offset)
    if context is not None and context.keyword is None:
        callee_line = text.count("\n", 0, context.callee_offset) + 1
        callee_col = context.callee_offset - (text.rfind("\n", 0, context.callee_offset) + 1)
        op = op_for_callee(analysis, context.callee, prefix, callee_line, callee_col)
        if op is not None:
            items.extend(keyword_items(op, context.used_keywords, context.positional_count))
    items.extend(scope_items(analysis, line, prefix))
    return types.CompletionList(is_incomplete=False, items=items)
