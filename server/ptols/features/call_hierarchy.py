"""The call hierarchy between a file's DSL functions (`self.f(...)` in a program, calls of
standalone functions), read from the symbol index: a call is a function occurrence that is
not its definition."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from ptoc.frontend import FunctionInfo, ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.span import Span

from ..convert import Positions
from ..text import Stale


def key(span: Span) -> tuple[int, int]:
    return span.line, span.column


def function_named_at(analysis: ModuleAnalysis, span: Span) -> FunctionInfo | None:
    """The function whose name is at ``span`` (a definition's name span)."""
    return next((f for f in analysis.function_infos if key(f.name_span) == key(span)), None)


def enclosing(analysis: ModuleAnalysis, span: Span) -> FunctionInfo | None:
    """The innermost function whose definition holds ``span``."""
    found = None
    for info in analysis.function_infos:
        if info.span.covers(span) and (found is None or found.span.covers(info.span)):
            found = info
    return found


def item(info: FunctionInfo, uri: str, positions: Positions) -> types.CallHierarchyItem:
    return types.CallHierarchyItem(
        name=info.name,
        kind=types.SymbolKind.Method if info.program else types.SymbolKind.Function,
        uri=uri,
        range=positions.range(info.span),
        selection_range=positions.range(info.name_span),
        detail=info.program or "",
    )


def prepare(
    analysis: ModuleAnalysis, occ: Occurrence, uri: str, positions: Positions
) -> list[types.CallHierarchyItem] | None:
    if occ.kind is not OccurrenceKind.FUNCTION or occ.definition is None:
        return None
    info = function_named_at(analysis, occ.definition)
    return None if info is None else [item(info, uri, positions)]


def calls(analysis: ModuleAnalysis) -> list[Occurrence]:
    return [
        occ
        for occ in analysis.index.occurrences
        if occ.kind is OccurrenceKind.FUNCTION and not occ.is_definition and occ.definition
    ]


def grouped(
    analysis: ModuleAnalysis,
    positions: Positions,
    pick: Callable[[Occurrence], FunctionInfo | None],
) -> list[tuple[FunctionInfo, list[types.Range]]]:
    """The calls ``pick`` assigns to a function, grouped by that function (in order of first
    call), each with the ranges of its calls."""
    found: dict[str, tuple[FunctionInfo, list[types.Range]]] = {}
    for occ in calls(analysis):
        info = pick(occ)
        if info is None:
            continue
        try:
            found.setdefault(info.name, (info, []))[1].append(positions.range(occ.span))
        except Stale:
            continue
    return list(found.values())


def incoming(
    analysis: ModuleAnalysis, target: FunctionInfo, uri: str, positions: Positions
) -> list[types.CallHierarchyIncomingCall]:
    """Each function calling ``target``, with where it does."""

    def caller(occ: Occurrence) -> FunctionInfo | None:
        assert occ.definition is not None
        if key(occ.definition) != key(target.name_span):
            return None
        return enclosing(analysis, occ.span)

    return [
        types.CallHierarchyIncomingCall(from_=item(info, uri, positions), from_ranges=ranges)
        for info, ranges in grouped(analysis, positions, caller)
    ]


def outgoing(
    analysis: ModuleAnalysis, source: FunctionInfo, uri: str, positions: Positions
) -> list[types.CallHierarchyOutgoingCall]:
    """Each function ``source`` calls, with where it does."""

    def callee(occ: Occurrence) -> FunctionInfo | None:
        assert occ.definition is not None
        if enclosing(analysis, occ.span) is not source:
            return None
        return function_named_at(analysis, occ.definition)

    return [
        types.CallHierarchyOutgoingCall(to=item(info, uri, positions), from_ranges=ranges)
        for info, ranges in grouped(analysis, positions, callee)
    ]
