"""Helpers shared by features: finding the occurrence under the cursor, printing types."""

from __future__ import annotations

from ptoc.frontend import ModuleAnalysis, Occurrence
from ptoc.ir.types import Type


def type_text(t: Type | None, prefix: str = "pl") -> str:
    """A type as the user would write it (`pl.Tile[[32, 32], pl.FP32]`)."""
    if t is None:
        return "?"
    try:
        from ptoc.printer import print_type

        return print_type(t, prefix=prefix)
    except Exception:
        return t.short()


def occurrence_at(analysis: ModuleAnalysis | None, line: int, column: int) -> Occurrence | None:
    """The occurrence at a position; a cursor just after a name still counts (as editors expect)."""
    if analysis is None:
        return None
    found = analysis.index.at(line, column)
    if found is None and column > 0:
        found = analysis.index.at(line, column - 1)
    return found
