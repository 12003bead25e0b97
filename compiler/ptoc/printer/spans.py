"""Printed lines that remember the IR statement they print, for the source map."""

from __future__ import annotations

from ..ir.span import Span


class SpannedLine(str):
    """A printed line and the span of the statement (or function) it prints."""

    span: Span | None = None


def tag(text: str, span: Span | None) -> str:
    """``text`` remembering ``span``; an unknown span is left out."""
    if span is None or not span.is_known:
        return text
    line = SpannedLine(text)
    line.span = span
    return line


def span_of(line: str) -> Span | None:
    return line.span if isinstance(line, SpannedLine) else None


def indented(prefix: str, line: str) -> str:
    """``prefix + line`` keeping the line's span (an empty line stays empty)."""
    return tag(prefix + line, span_of(line)) if line else line
