"""Code actions: the compiler's quick fixes, "add the deduced annotation", and "Upgrade to
PyPTO 2026-08" (``ptoc upgrade`` of the whole file) on a 2026-03 file."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ptoc.editions import Edition
from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ir.types import UnknownType

from ..convert import Positions, range_from_json
from ..text import Stale
from .common import dtype_variables, type_text

if TYPE_CHECKING:
    from ptoc.upgrade import UpgradeResult


def quick_fixes(uri: str, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
    actions: list[types.CodeAction] = []
    for diagnostic in diagnostics:
        data: Any = diagnostic.data
        if not isinstance(data, dict):
            continue
        for fix in data.get("fixes", []):
            edits = [
                types.TextEdit(range_from_json(e["range"]), e["newText"])
                for e in fix.get("edits", [])
            ]
            if not edits:
                continue
            actions.append(
                types.CodeAction(
                    title=fix["title"],
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=bool(fix.get("preferred")),
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                )
            )
    return actions


def annotation_actions(
    uri: str,
    analysis: ModuleAnalysis,
    text_lines: list[str],
    positions: Positions,
    line: int,
    first_col: int,
    last_col: int,
) -> list[types.CodeAction]:
    """ "Add type annotation" for an unannotated assignment on the requested line."""
    actions = []
    for occ in analysis.index.occurrences:
        if (
            not occ.is_definition
            or occ.kind is not OccurrenceKind.VARIABLE
            or occ.span.line != line
        ):
            continue
        if occ.type is None or isinstance(occ.type, UnknownType):
            continue
        text = text_lines[line - 1] if line - 1 < len(text_lines) else ""
        rest = text[occ.span.end_column :].lstrip()
        if not rest.startswith("=") or rest.startswith("=="):
            continue  # annotated, or a tuple target / yield target that cannot take one
        if text[: occ.span.column].strip() != "":
            continue
        if dtype_variables(analysis, occ):
            continue  # its dtype is a parameter's, which no annotation can name
        annotation = type_text(occ.type, analysis.prefix)
        end = positions.range(occ.span).end
        actions.append(
            types.CodeAction(
                title=f"Add type annotation `{annotation}`",
                kind=types.CodeActionKind.RefactorRewrite,
                edit=types.WorkspaceEdit(
                    changes={uri: [types.TextEdit(types.Range(end, end), f": {annotation}")]}
                ),
            )
        )
    return actions


UPGRADE_TITLE = "Upgrade to PyPTO 2026-08"
UPGRADE_DATA = "ptols.upgrade"  # the key of the document's URI in the action's data

#: The upgrade's edit, or why there is none.
UpgradeEdit = tuple[types.TextEdit | None, str]


def offers_upgrade(analysis: ModuleAnalysis) -> bool:
    """A file in 2026-03 spelling (chosen so, or detected from its spellings)."""
    in_force = analysis.edition
    detection = in_force.detection if in_force is not None else None
    if in_force is None or detection is None or Edition.V2026_03 not in detection.first:
        return False
    # (a 2026-08 file with a stray old spelling: W031/W030 say so, per line)
    return Edition.V2026_03 in (in_force.edition, detection.edition)


def upgrade_actions(
    uri: str, lazy: bool, compute: Callable[[], UpgradeEdit], show_disabled: bool
) -> list[types.CodeAction]:
    """ "Upgrade to PyPTO 2026-08" (``ptoc upgrade`` of the whole file, proven first). For a
    client that resolves code actions, the edit is computed when the action is chosen; else
    now: the edit, or (for a client that shows them) the action disabled with the reason."""
    action = types.CodeAction(title=UPGRADE_TITLE, kind=types.CodeActionKind.RefactorRewrite)
    if lazy:
        action.data = {UPGRADE_DATA: uri}
        return [action]
    edit, reason = compute()
    if edit is not None:
        action.edit = types.WorkspaceEdit(changes={uri: [edit]})
    elif show_disabled:
        action.disabled = types.CodeActionDisabled(reason)
    else:
        return []
    return [action]


def upgrade_uri(action: types.CodeAction) -> str | None:
    data: Any = action.data
    uri = data.get(UPGRADE_DATA) if isinstance(data, dict) else None
    return uri if isinstance(uri, str) else None


@functools.lru_cache(maxsize=4)
def upgraded(text: str, path: str) -> UpgradeResult:
    """The upgrade of one text (asked again while the text stays the same)."""
    from ptoc.upgrade import upgrade_source

    return upgrade_source(text, path, explicit=True)


FIX_ALL = "source.fixAll.ptoc"


def fix_all(uri: str, analysis: ModuleAnalysis, positions: Positions) -> types.CodeAction | None:
    """`source.fixAll.ptoc`: every diagnostic's preferred fix that is certain (no did-you-mean
    guess), in one edit; a fix overlapping one already taken waits for the next run."""
    fixes = [
        fix
        for diagnostic in analysis.diagnostics
        for fix in diagnostic.fixes
        if fix.preferred and not fix.guess and fix.edits
    ]
    fixes.sort(key=lambda fix: min((e.span.line, e.span.column) for e in fix.edits))
    edits: list[types.TextEdit] = []
    taken: list[tuple[int, int]] = []
    for fix in fixes:
        try:
            ranges = [(positions.range(e.span), e.new_text) for e in fix.edits]
        except Stale:
            continue
        spans = [(positions.offset(r.start), positions.offset(r.end)) for r, _ in ranges]
        if any(
            start < end_taken and start_taken < end or start == start_taken
            for start, end in spans
            for start_taken, end_taken in taken
        ):
            continue
        taken += spans
        edits += [types.TextEdit(r, text) for r, text in ranges]
    if not edits:
        return None
    return types.CodeAction(
        title="Fix all auto-fixable ptoc problems",
        kind=FIX_ALL,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def wants(only: list[str] | None, kind: str) -> bool:
    """Whether a request limited to ``only`` kinds asks for ``kind`` (a prefix matches its
    sub-kinds: `source` asks for `source.fixAll.ptoc`)."""
    if only is None:
        return True
    return any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)
