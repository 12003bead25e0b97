"""Conversions between ptoc's positions and LSP's, and ptoc diagnostics to LSP diagnostics.

ptoc spans: 1-based lines, 0-based code-point columns. LSP: 0-based lines, columns in the
negotiated encoding (UTF-16 by default); ptols.text converts code points.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ptoc.diagnostics import Diagnostic, Severity, code_url
from ptoc.ir.span import Span

from .text import LineIndex, TextShift

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
OVERRIDE = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


class Positions:
    """Converts between the spans of one analysed text and LSP positions in the document's
    current text: the same text, or a newer one whose unchanged parts are mapped through a
    TextShift (a position in changed text raises Stale: better no answer than a wrong place)."""

    def __init__(
        self, analysed: LineIndex, encoding: str, current: LineIndex | None = None
    ) -> None:
        self.analysed = analysed
        self.current = current if current is not None else analysed
        self.encoding = encoding
        same = self.current is analysed or self.current.text == analysed.text
        self.shift = None if same else TextShift(analysed.text, self.current.text)

    def range(self, span: Span) -> types.Range:
        if not span.is_known:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        start = self.analysed.offset(span.line - 1, span.column)
        end = self.analysed.offset(span.end_line - 1, span.end_column)
        if self.shift is not None:
            start, end = self.shift.forward(start, max(start, end))
        return self.offset_range(start, end)

    def offset_range(self, start: int, end: int) -> types.Range:
        """A range of code-point offsets into the current text."""
        return types.Range(
            self.current.position_of(start, self.encoding),
            self.current.position_of(end, self.encoding),
        )

    def offset(self, position: types.Position) -> int:
        """An LSP position -> code-point offset into the current text."""
        return self.current.offset_of(position, self.encoding)

    def position(self, position: types.Position) -> tuple[int, int]:
        """An LSP position -> (1-based line, code-point column) in the analysed text."""
        offset = self.offset(position)
        if self.shift is not None:
            offset = self.shift.backward(offset)
        row, column = self.analysed.row_column(offset)
        return row + 1, column

    def location(self, uri: str, span: Span) -> types.Location:
        return types.Location(uri, self.range(span))


def to_lsp_diagnostic(
    diagnostic: Diagnostic, uri: str, positions: Positions, overrides: dict[str, str]
) -> types.Diagnostic | None:
    severity = SEVERITY[diagnostic.severity]
    override = overrides.get(diagnostic.code)
    if override is not None:
        if override == "off":
            return None
        severity = OVERRIDE.get(override, severity)
    related = [
        types.DiagnosticRelatedInformation(positions.location(uri, r.span), r.message)
        for r in diagnostic.related
    ]
    data: dict[str, Any] = {
        "fixes": [
            {
                "title": fix.title,
                "preferred": fix.preferred,
                "edits": [
                    {"range": range_json(positions.range(edit.span)), "newText": edit.new_text}
                    for edit in fix.edits
                ],
            }
            for fix in diagnostic.fixes
        ]
    }
    tags: list[types.DiagnosticTag] = []
    if diagnostic.code == "W003":
        tags.append(types.DiagnosticTag.Deprecated)
    return types.Diagnostic(
        range=positions.range(diagnostic.span),
        message=diagnostic.message,
        severity=severity,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=code_url(diagnostic.code)),
        source="ptoc",
        related_information=related or None,
        tags=tags or None,
        data=data,
    )


def range_json(r: types.Range) -> dict[str, Any]:
    """A range as plain JSON data (for `data.fixes` and the custom `ptols/*` payloads)."""
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def range_from_json(value: Any) -> types.Range:
    return types.Range(
        types.Position(value["start"]["line"], value["start"]["character"]),
        types.Position(value["end"]["line"], value["end"]["character"]),
    )
