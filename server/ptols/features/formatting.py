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


def range_edits(text: str, formatted: str, first: int, last: int) -> list[types.TextEdit]:
    """The changes from ``text`` to ``formatted`` that touch 0-based lines first..last, each a
    run of whole lines (a change reaching outside the range is kept whole)."""
    import difflib

    from ptoc.lines import split_lines

    old, new = split_lines(text), split_lines(formatted)
    edits = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal" or old_start > last or max(old_end - 1, old_start) < first:
            continue
        whole = types.Range(types.Position(old_start, 0), types.Position(old_end, 0))
        edits.append(types.TextEdit(whole, "".join(new[new_start:new_end])))
    return edits
