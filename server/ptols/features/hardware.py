"""The hardware view of a kernel: source map, memory map, sync hints, CodeLens, hover notes.

Everything here shapes results the compiler already computed (``ptoc.sourcemap``,
``ptoc.kernel_facts``) for the LSP payloads documented in docs/lsp-extensions.md; positions go
through the server's Positions (encoding, and text edited since the analysis: a range in
changed text is left out rather than shown in the wrong place).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis
from ptoc.ir.span import Span
from ptoc.kernel_facts import FunctionFacts
from ptoc.memory_map import FunctionMap, Use
from ptoc.sourcemap import map_entries

from ..convert import Positions
from ..protocol import (
    BufferUse,
    FunctionMemoryMap,
    GeneratedLines,
    MemoryBuffer,
    MemorySpaceInfo,
    SourceMapEntry,
)
from ..text import Stale

#: Most generated lines a hover lists for one statement.
HOVER_LINES = 8


def source_map_entries(spans: Sequence[Span | None], positions: Positions) -> list[SourceMapEntry]:
    """``ptols/sourceMap`` entries: runs of generated lines and the source range of each."""
    entries: list[SourceMapEntry] = []
    for entry in map_entries(spans):
        try:
            source = positions.range(entry.span)
        except Stale:
            continue
        entries.append(SourceMapEntry(GeneratedLines(entry.start, entry.end), source))
    return entries


def memory_map_functions(
    facts: Sequence[FunctionFacts], function: str | None, positions: Positions
) -> list[FunctionMemoryMap]:
    """``ptols/memoryMap`` functions (all, or those of the source function ``function`` and
    the kernels outlined from it), in source order."""
    found: list[FunctionMemoryMap] = []
    for fact in facts:
        if function is not None and fact.function != function:
            continue
        for fn in fact.memory:
            try:
                found.append(_function_map(fn, positions))
            except Stale:
                continue
    return found


def _function_map(fn: FunctionMap, positions: Positions) -> FunctionMemoryMap:
    def use(u: Use) -> BufferUse:
        return BufferUse(u.index, positions.range(u.span))

    return FunctionMemoryMap(
        name=fn.name,
        range=positions.range(fn.span),
        statements=fn.statements,
        spaces=[MemorySpaceInfo(s.space, s.capacity, s.used, s.overflow) for s in fn.spaces],
        buffers=[
            MemoryBuffer(
                name=b.name,
                space=b.space,
                start=b.start,
                size=b.size,
                first_use=use(b.first_use),
                last_use=use(b.last_use),
                reuse_group=b.reuse_group,
                dtype=b.dtype,
                shape=list(b.shape),
                value_size=b.value_size,
            )
            for b in fn.buffers
        ],
    )


def sync_hints(
    facts: Sequence[FunctionFacts],
    text_lines: list[str],
    positions: Positions,
    first_line: int,
    last_line: int,
) -> list[types.InlayHint]:
    """``⇄ MTE2→V`` at the end of the first line of each statement InsertSync guarded (lines
    1-based, inclusive); the tooltip lists the inserted instructions."""
    hints: list[types.InlayHint] = []
    seen: set[Span] = set()  # a function a caller inlines is seen in both
    for fact in facts:
        for site in fact.sync:
            line = site.span.line
            if site.span in seen or not first_line <= line <= last_line:
                continue
            seen.add(site.span)
            position = line_end(text_lines, positions, site.span.file, line)
            if position is None:
                continue
            tooltip = "InsertSync put before this statement:\n\n" + "\n".join(
                f"- `{text}`" for text in site.instructions
            )
            hints.append(
                types.InlayHint(
                    position=position,
                    label=site.label,
                    padding_left=True,
                    tooltip=types.MarkupContent(types.MarkupKind.Markdown, tooltip),
                )
            )
    return hints


def line_end(
    text_lines: list[str], positions: Positions, file: str, line: int
) -> types.Position | None:
    """Where a hint at the end of source ``line`` (1-based) goes; None: no such line, or it
    changed since the analysis."""
    if line > len(text_lines):
        return None
    end = len(text_lines[line - 1].rstrip("\r\n"))
    try:
        return positions.range(Span(file, line, end, line, end)).end
    except Stale:
        return None


#: CodeLens titles and the client commands they run (the extension registers the commands).
LENSES = (
    ("C++", "ptols.showPreview", "cce"),
    ("MLIR", "ptols.showPreview", "pto"),
    ("Memory", "ptols.showMemoryMap", None),
    ("Run", "ptols.runFunction", None),
)


def code_lenses(analysis: ModuleAnalysis, uri: str, positions: Positions) -> list[types.CodeLens]:
    """``C++ · MLIR · Memory · Run`` above each InCore function."""
    incore = {
        (fn.name, fn.span)
        for program in analysis.all_programs()
        for fn in program.functions
        if fn.func_type.is_incore
    }
    lenses: list[types.CodeLens] = []
    for info in analysis.function_infos:
        if not any(name == info.name and info.span.covers(span) for name, span in incore):
            continue
        try:
            where = positions.range(info.name_span)
        except Stale:
            continue
        for title, command, target in LENSES:
            arguments: list[Any] = [uri, target, info.name] if target else [uri, info.name]
            lenses.append(types.CodeLens(where, types.Command(title, command, arguments=arguments)))
    return lenses


def hover_notes(
    facts: Sequence[FunctionFacts], name: str, definition: Span | None, line: int
) -> list[str]:
    """Hover additions: where the tile ``name`` defined at ``definition`` lives, the predicted
    cycles of source ``line`` (1-based) and the CCE lines of its innermost statement."""
    notes: list[str] = []
    buffers = [
        b
        for fact in facts
        for fn in fact.memory
        for b in fn.buffers
        if definition is not None and b.first_use.span.covers(definition)
    ]
    named = [b for b in buffers if b.name == name] or buffers[:1]
    for b in named[:1]:
        notes.append(f"address: `{b.space} [{b.start:#06x}, {b.end:#06x})` · {b.size} B")
    from .timeline import hover_line

    cycles = hover_line(facts, line)
    if cycles is not None:
        notes.append(f"predicted: {cycles}")
    statement = _innermost_statement(facts, line)
    if statement is not None:
        lines = statement[: HOVER_LINES + 1]
        shown = lines[:HOVER_LINES] + (["// ..."] if len(lines) > HOVER_LINES else [])
        notes.append("generated (CCE):\n```cpp\n" + "\n".join(shown) + "\n```")
    return notes


def _innermost_statement(facts: Sequence[FunctionFacts], line: int) -> list[str] | None:
    best: tuple[int, list[str]] | None = None
    for fact in facts:
        for span, lines in fact.cce.items():
            if span.line <= line <= span.end_line:
                size = span.end_line - span.line
                if best is None or size < best[0]:
                    best = (size, lines)
    return best[1] if best is not None else None


def with_notes(
    hover: types.Hover | None, facts: Sequence[FunctionFacts], occ: Any, line: int
) -> types.Hover | None:
    """``hover`` (of ``occ``, on source ``line``) with the hardware notes (``hover_notes``)."""
    if hover is None or not facts or not isinstance(hover.contents, types.MarkupContent):
        return hover
    notes = hover_notes(facts, occ.name, occ.definition, line)
    if not notes:
        return hover
    value = hover.contents.value + "\n\n" + "\n\n".join(notes)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, value), hover.range)


__all__ = [
    "code_lenses",
    "hover_notes",
    "line_end",
    "memory_map_functions",
    "source_map_entries",
    "sync_hints",
    "with_notes",
]
