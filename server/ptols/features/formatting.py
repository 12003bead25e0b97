"""Document formatting through `ptoc fmt` (the same formatter, the same safety proofs)."""

from __future__ import annotations

from lsprotocol import types


def format_document(text: str, path: str, line_length: int) -> tuple[list[types.TextEdit], str]:
    """One whole-document edit, or none when nothing changes (or fmt refuses: the reason)."""
    from ptoc.fmt import format_source

    result = format_source(text, path, line_length, explicit=True)
    if not result.changed:
        return [], result.reason if result.status in ("refused", "error") else ""
    from ptoc.lines import split_lines

    end_line = len(split_lines(text))
    whole = types.Range(types.Position(0, 0), types.Position(end_line, 0))
    return [types.TextEdit(whole, result.text)], ""
