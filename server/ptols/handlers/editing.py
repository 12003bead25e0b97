"""Help while typing and editing: completion, signature help, inlay hints, code actions,
formatting."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from .. import capabilities
from ..text import Stale
from .common import cursor, features, pypto_document, text_lines

if TYPE_CHECKING:
    from ..documents import Document
    from ..server import PtolsServer

# The options are shared with the answer early.py computes for `initialize` (capabilities.py).
COMPLETION_OPTIONS = types.CompletionOptions(**capabilities.COMPLETION_OPTIONS)
SIGNATURE_OPTIONS = types.SignatureHelpOptions(**capabilities.SIGNATURE_OPTIONS)
CODE_ACTION_OPTIONS = types.CodeActionOptions(**capabilities.CODE_ACTION_OPTIONS)
MAX_FORMAT_LINE = 20_000  # characters: black's time grows too fast beyond
FORMAT_BUDGET = 0.7


def completion_resolve(ls: PtolsServer, item: types.CompletionItem) -> types.CompletionItem:
    return features.completion.resolve(item)


def completion(ls: PtolsServer, params: types.CompletionParams) -> types.CompletionList | None:
    doc = pypto_document(ls, params.text_document.uri)
    if doc is None:
        return None
    line, column, offset = cursor(ls, doc, params.position)
    return features.completion.complete(doc.text, offset, line, column, doc.analysis)


def signature_help(
    ls: PtolsServer, params: types.SignatureHelpParams
) -> types.SignatureHelp | None:
    doc = pypto_document(ls, params.text_document.uri)
    if doc is None:
        return None
    _, _, offset = cursor(ls, doc, params.position)
    return features.signature_help.signature_help(doc.text, offset, doc.analysis)


def inlay_hint(ls: PtolsServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    doc = ls.lookup(params.text_document.uri)
    if doc is None or doc.analysis is None or not ls.settings.inlay_hints:
        return None
    positions = ls.positions(doc)
    first, last = 1, positions.analysed.line_count
    if positions.shift is None:  # else: all lines, each hint mapped (or dropped) alone
        first, last = params.range.start.line + 1, params.range.end.line + 1
    lines = text_lines(doc.analysis_text)
    hints = features.inlay_hints.inlay_hints(doc.analysis, lines, positions, first, last)
    if ls.settings.parameter_hints:
        hints += features.parameter_hints.parameter_hints(doc.analysis, positions, first, last)
    if ls.settings.sync_hints or ls.settings.cycle_hints:
        from ..hardware import known_facts

        facts = known_facts(doc)
        if ls.settings.sync_hints:
            hints += features.hardware.sync_hints(facts, lines, positions, first, last)
        if ls.settings.cycle_hints:
            hints += features.timeline.cycle_hints(facts, lines, positions, range(first, last + 1))
    return hints


def code_action(ls: PtolsServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    doc = ls.lookup(params.text_document.uri)
    if doc is None or doc.analysis is None:
        return None
    only = params.context.only
    wants = features.code_actions.wants
    actions: list[types.CodeAction] = []
    if wants(only, types.CodeActionKind.QuickFix):
        actions += features.code_actions.quick_fixes(doc.uri, list(params.context.diagnostics))
    positions = ls.positions(doc)
    if wants(only, types.CodeActionKind.RefactorRewrite):
        try:
            line, first = positions.position(params.range.start)
            _, last = positions.position(params.range.end)
            actions += features.code_actions.annotation_actions(
                doc.uri, doc.analysis, text_lines(doc.analysis_text), positions, line, first, last
            )
        except Stale:
            pass  # the text there changed since the analysis: only the diagnostics' fixes
    if wants(only, features.code_actions.FIX_ALL):
        fix_all = features.code_actions.fix_all(doc.uri, doc.analysis, positions)
        actions += [fix_all] if fix_all is not None else []
    if (
        wants(only, types.CodeActionKind.RefactorRewrite)
        and not doc.too_large
        and features.code_actions.offers_upgrade(doc.analysis)
    ):
        actions += features.code_actions.upgrade_actions(
            doc.uri, resolves_edits(ls), lambda: upgrade_edit(ls, doc), shows_disabled(ls)
        )
    return actions


def code_action_resolve(ls: PtolsServer, action: types.CodeAction) -> types.CodeAction:
    """The edit of "Upgrade to PyPTO 2026-08", computed when the user picks it."""
    uri = features.code_actions.upgrade_uri(action)
    doc = ls.lookup(uri) if uri is not None else None
    if doc is None:
        return action
    edit, reason = upgrade_edit(ls, doc)
    if edit is not None:
        action.edit = types.WorkspaceEdit(changes={doc.uri: [edit]})
    else:
        show(ls, types.MessageType.Warning, f"ptoc upgrade left the file unchanged: {reason}")
    return action


def upgrade_edit(ls: PtolsServer, doc: Document) -> tuple[types.TextEdit | None, str]:
    """The whole-file edit of the document's upgrade, or why there is none."""
    result = features.code_actions.upgraded(doc.text, doc.path or doc.uri)
    if result.status != "upgraded":
        left = ", ".join(f"`{n.spelling}` (line {n.line})" for n in result.left)
        return None, result.reason or (f"left as written: {left}" if left else "nothing to do")
    whole = ls.positions(doc).offset_range(0, len(doc.text))
    return types.TextEdit(whole, result.text), ""


def resolves_edits(ls: PtolsServer) -> bool:
    """Whether the client asks for a code action's edit when it is chosen (codeAction/resolve)."""
    document = ls.client_capabilities.text_document
    action = document.code_action if document is not None else None
    support = action.resolve_support if action is not None else None
    return support is not None and "edit" in support.properties


def shows_disabled(ls: PtolsServer) -> bool:
    """Whether the client shows a disabled code action (with its reason)."""
    document = ls.client_capabilities.text_document
    action = document.code_action if document is not None else None
    return bool(action is not None and action.disabled_support)


async def formatting(
    ls: PtolsServer, params: types.DocumentFormattingParams
) -> list[types.TextEdit] | None:
    return await whole_document_edits(ls, params.text_document.uri)


async def range_formatting(
    ls: PtolsServer, params: types.DocumentRangeFormattingParams
) -> list[types.TextEdit] | None:
    """`ptoc fmt`'s changes to the lines of the range (the formatter proves its output on the
    whole file; the changes that touch the range are kept)."""
    doc = pypto_document(ls, params.text_document.uri)
    edits = await whole_document_edits(ls, params.text_document.uri)
    if doc is None or not edits:
        return edits
    first, last = params.range.start.line, params.range.end.line
    if params.range.end.character == 0 and last > first:
        last -= 1  # a range ending at a line's start does not take that line
    return features.formatting.range_edits(doc.text, edits[0].new_text, first, last)


async def whole_document_edits(ls: PtolsServer, uri: str) -> list[types.TextEdit] | None:
    doc = pypto_document(ls, uri)
    if doc is None:
        return None
    refusal = format_refusal(doc)
    if refusal is not None:
        show(ls, types.MessageType.Warning, f"ptoc fmt is not run in the editor: {refusal}")
        return None
    try:
        edits, problem = await asyncio.wait_for(asyncio.shield(ls.format_job(doc)), FORMAT_BUDGET)
    except TimeoutError:
        show(
            ls,
            types.MessageType.Info,
            "ptoc fmt is still formatting this file: format again in a moment",
        )
        return None
    if problem:
        show(ls, types.MessageType.Warning, f"ptoc fmt left the file unchanged: {problem}")
    return list(edits)


def format_refusal(doc: Document) -> str | None:
    """Why the editor does not format this document (None: it does)."""
    if doc.too_large:
        return "the file is too large; run `ptoc fmt` on it"
    longest = longest_line(doc)
    if longest > MAX_FORMAT_LINE:
        return (
            f"a line has {longest:,} characters (limit {MAX_FORMAT_LINE:,}); run `ptoc fmt` on it"
        )
    return None


def show(ls: PtolsServer, kind: types.MessageType, message: str) -> None:
    ls.window_show_message(types.ShowMessageParams(kind, message))


def longest_line(doc: Document) -> int:
    starts = doc.index.starts
    ends = [*starts[1:], len(doc.text)]
    return max(end - start for start, end in zip(starts, ends, strict=True))
