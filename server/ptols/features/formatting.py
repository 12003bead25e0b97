"""Document formatting through `ptoc fmt` (the same formatter, the same safety proofs), run in
the formatting child (``ptols.isolated``): black's syntax tree of a large file is many times what
the server keeps alive, and would stay in its memory."""

from __future__ import annotations

import logging

from lsprotocol import types

from ..isolated import Child, JobFailed

log = logging.getLogger("ptols")


def format_document(
    text: str, path: str, line_length: int, child: Child
) -> tuple[list[types.TextEdit], str]:
    """One whole-document edit, or none when nothing changes (or fmt refuses: the reason),
    formatted in ``child``."""
    try:
        new_text, reason = child.call("format", text, path, line_length)
    except JobFailed as error:  # that child is gone; the next request starts another
        log.error("formatting %s failed: %s", path, error)
        return [], str(error).strip().splitlines()[-1]
    if new_text is None:
        return [], reason
    from ptoc.lines import split_lines

    end_line = len(split_lines(text))
    whole = types.Range(types.Position(0, 0), types.Position(end_line, 0))
    return [types.TextEdit(whole, new_text)], ""


def black_in_child(child: Child) -> None:
    """The IR printer's black (previews, the pass explorer's stages) runs in ``child`` from
    now on: black's code and the cyclic trees each call leaves stay out of the server. A
    failed batch is laid out in the server instead, so the text never depends on the child."""
    from ptoc.printer import set_black_runner

    def run(sources: list[tuple[str, int]]) -> list[str | None]:
        try:
            found: list[str | None] = child.call("black", sources)
        except JobFailed as error:
            log.warning("black in the formatting process failed (%s); run here", error)
            raise
        return found

    set_black_runner(run)


def range_edits(text: str, reformatted: str, first: int, last: int) -> list[types.TextEdit]:
    """The changes from ``text`` to ``reformatted`` that touch 0-based lines first..last, each a
    run of whole lines (a change reaching outside the range is kept whole)."""
    import difflib

    from ptoc.lines import split_lines

    old, new = split_lines(text), split_lines(reformatted)
    edits = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal" or old_start > last or max(old_end - 1, old_start) < first:
            continue
        whole = types.Range(types.Position(old_start, 0), types.Position(old_end, 0))
        edits.append(types.TextEdit(whole, "".join(new[new_start:new_end])))
    return edits
