"""The source map of generated text: which source range each generated line came from.

Code generators and the IR printer record, per output line, the span of the IR statement it
was generated for (statements keep their source span through every pass; the ones a pass
adds take the span of the statement they serve). Here those per-line spans become entries:
runs of consecutive lines from one span. Lines are 0-based everywhere (as in LSP); source
ranges are LSP ranges (0-based lines, UTF-16 columns), converted with the source text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .ir.span import Span
from .lines import split_lines
from .records import record


@record(frozen=True)
class MapEntry:
    """Generated lines ``start``..``end`` (0-based, inclusive) came from ``span``."""

    start: int
    end: int
    span: Span


def map_entries(spans: Sequence[Span | None]) -> list[MapEntry]:
    """Runs of consecutive lines with the same known span, in line order (a line with no
    span, e.g. a blank one, belongs to no entry)."""
    entries: list[MapEntry] = []
    for line, span in enumerate(spans):
        if span is None or not span.is_known:
            continue
        last = entries[-1] if entries else None
        if last is not None and last.end == line - 1 and last.span == span:
            entries[-1] = MapEntry(last.start, line, span)
        else:
            entries.append(MapEntry(line, line, span))
    return entries


def utf16_column(line: str, column: int) -> int:
    """A code-point column of ``line`` in UTF-16 units (LSP's default)."""
    head = line[:column]
    return column + sum(1 for ch in head if ord(ch) > 0xFFFF)


def lsp_range(span: Span, source_lines: Sequence[str]) -> dict[str, Any]:
    """``span`` as an LSP range over the source's lines (split with line breaks kept)."""

    def position(line: int, column: int) -> dict[str, int]:
        text = source_lines[line - 1] if 0 < line <= len(source_lines) else ""
        return {"line": max(line - 1, 0), "character": utf16_column(text, column)}

    return {
        "start": position(span.line, span.column),
        "end": position(span.end_line, span.end_column),
    }


def entries_json(entries: Sequence[MapEntry], source: str) -> list[dict[str, Any]]:
    """The entries in the protocol's shape (``ptols/sourceMap`` and ``--line-map``)."""
    lines = split_lines(source)
    return [
        {
            "generated": {"startLine": e.start, "endLine": e.end},
            "source": lsp_range(e.span, lines),
        }
        for e in entries
    ]


def line_map_json(
    file: str, target: str, spans: Sequence[Span | None], source: str
) -> dict[str, Any]:
    """What ``ptoc compile --line-map`` writes."""
    return {"file": file, "target": target, "entries": entries_json(map_entries(spans), source)}


def annotate(
    text: str, spans: Sequence[Span | None], comment: str = "//"
) -> tuple[str, list[Span | None]]:
    """``text`` with a ``// file:line`` comment above each run of lines from one statement
    (indented like the run; none above a run of closing braces), and the line spans of the
    result (a comment line has its run's span)."""
    lines = text.split("\n")
    padded: list[Span | None] = [*spans, *[None] * len(lines)]
    out: list[str] = []
    out_spans: list[Span | None] = []
    previous: Span | None = None
    for line, span in zip(lines, padded[: len(lines)], strict=True):
        if span is not None and span.is_known and span != previous:
            if not line.strip().startswith("}"):
                indent = line[: len(line) - len(line.lstrip())]
                out.append(f"{indent}{comment} {span.file}:{span.line}")
                out_spans.append(span)
        previous = span
        out.append(line)
        out_spans.append(span)
    if text.endswith("\n"):
        out_spans.pop()  # the empty "line" after the last line break
    return "\n".join(out), out_spans


__all__ = [
    "MapEntry",
    "annotate",
    "entries_json",
    "line_map_json",
    "lsp_range",
    "map_entries",
    "utf16_column",
]
