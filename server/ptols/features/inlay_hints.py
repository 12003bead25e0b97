"""Inlay hints: deduced types of unannotated assignments and loop-carried values."""

from __future__ import annotations

import re

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ir.types import UnknownType

from ..convert import Positions
from ..text import Stale
from .common import type_text

OBVIOUS_VALUE = re.compile(
    r"\s*=\s*(-?[\d_]+(\.[\d_]*)?([eE][-+]?\d+)?|True|False|pl\.const\(.*\))\s*(#.*)?$"
)


def inlay_hints(
    analysis: ModuleAnalysis,
    text_lines: list[str],
    positions: Positions,
    first_line: int,
    last_line: int,
) -> list[types.InlayHint]:
    """Hints for definitions between 1-based ``first_line`` and ``last_line``."""
    hints: list[types.InlayHint] = []
    seen: set[tuple[int, int]] = set()
    for occ in analysis.index.occurrences:
        if not occ.is_definition or occ.kind not in (
            OccurrenceKind.VARIABLE,
            OccurrenceKind.ITER_ARG,
        ):
            continue
        if (
            not first_line <= occ.span.line <= last_line
            or occ.type is None
            or isinstance(occ.type, UnknownType)
        ):
            continue
        key = (occ.span.line, occ.span.end_column)
        if key in seen:
            continue
        seen.add(key)
        line = text_lines[occ.span.line - 1] if occ.span.line - 1 < len(text_lines) else ""
        rest = line[occ.span.end_column :]
        if rest.lstrip().startswith(":"):
            continue  # annotated already
        if occ.kind is OccurrenceKind.VARIABLE and OBVIOUS_VALUE.match(rest):
            continue  # `n = 4`: the type is obvious
        try:
            position = positions.range(occ.span).end
        except Stale:
            continue  # its text changed since the analysis
        hints.append(
            types.InlayHint(
                position=position,
                label=f": {type_text(occ.type, analysis.prefix)}",
                kind=types.InlayHintKind.Type,
                padding_left=False,
            )
        )
    return hints
