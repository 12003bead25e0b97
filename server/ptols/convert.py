"""Conversions between ptoc's positions and LSP's, and ptoc diagnostics to LSP diagnostics.

ptoc spans: 1-based lines, 0-based code-point columns. LSP: 0-based lines, columns in the
negotiated encoding (UTF-16 by default); pygls' PositionCodec converts code points.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.workspace import PositionCodec

from ptoc.diagnostics import Diagnostic, Severity, code_url
from ptoc.ir.span import Span

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
    """Converts positions for one version of a document's text."""

    def __init__(self, lines: list[str], codec: PositionCodec) -> None:
        self.lines = lines
        self.codec = codec

    def range(self, span: Span) -> types.Range:
        if not span.is_known:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        server = types.Range(
            types.Position(span.line - 1, span.column),
            types.Position(span.end_line - 1, span.end_column),
        )
        return self.codec.range_to_client_units(self.lines, server)

    def position(self, position: types.Position) -> tuple[int, int]:
        """An LSP position -> (1-based line, code-point column)."""
        server = self.codec.position_from_client_units(self.lines, position)
        return server.line + 1, server.character

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
