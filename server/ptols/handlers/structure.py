"""What the editor draws from a document's structure: semantic tokens, folding ranges,
selection ranges, document highlights and the call hierarchy."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from .. import capabilities
from ..optional import has_tree_sitter
from .common import Located, features, locate, pypto_document

if TYPE_CHECKING:
    from ptoc.frontend import ModuleAnalysis

    from ..documents import Document
    from ..server import PtolsServer
    from ..syntax import SyntaxTree
    from ..text import LineIndex

T = TypeVar("T")

SEMANTIC_TOKENS_LEGEND = types.SemanticTokensLegend(**capabilities.SEMANTIC_TOKENS_LEGEND)
RESULT_IDS = itertools.count(1)
LINES_PER_TURN = 25  # lines with tokens encoded between two turns of the message loop
YIELD_LIMIT = 0.1  # how long one computation of tokens waits in all for other requests
KEPT_RESULTS = 2  # token lists kept per document for deltas (the client asks against the last)


def token_source(doc: Document) -> tuple[ModuleAnalysis, str] | None:
    """The analysis tokens come from and its text: the latest, or while the text does not
    parse the last clean one (its names keep their colours where the text is unchanged)."""
    analysis = doc.analysis
    if analysis is None:
        return None
    broken = any(d.code == "E000" for d in analysis.diagnostics)
    if broken and doc.last_clean is not None:
        return doc.last_clean, doc.last_clean_text
    return analysis, doc.analysis_text


async def semantic_data(ls: PtolsServer, uri: str) -> tuple[Document, str, list[int]] | None:
    """(document, result id, data) of the current text's tokens, computed once per analysis
    and text (waiting a bounded time for the analysis of an edit, as previews do)."""
    doc = pypto_document(ls, uri)
    if doc is None or doc.too_large:
        return None
    await ls.current_analysis(doc)
    source = token_source(doc)
    if source is None:
        return None
    analysis, analysed_text = source
    key = (analysis, doc.text, ls.encoding())
    known = doc.semantic
    if known is not None and all(a is b for a, b in zip(known[0], key, strict=True)):
        return doc, known[1], known[2]
    positions = ls.positions(doc, analysed_text)
    # On the message loop, letting the requests that arrive meanwhile go first every few
    # lines, and waiting while one is answered: a hover waits a fraction of a millisecond,
    # not for the whole file (10-20 ms on 2,000 lines), and does not share the processor
    # with a thread computing tokens.
    data: list[int] = []
    lines = features.semantic_tokens.encode_lines(analysis, positions)
    loop = asyncio.get_running_loop()
    give_up = loop.time() + YIELD_LIMIT
    for count, chunk in enumerate(lines, 1):
        data += chunk
        if count % LINES_PER_TURN == 0:
            await ls.protocol.in_flight.others_answered(give_up - loop.time())
    result_id = str(next(RESULT_IDS))
    doc.semantic = (key, result_id, data)
    doc.semantic_sent[result_id] = data
    while len(doc.semantic_sent) > KEPT_RESULTS:
        del doc.semantic_sent[next(iter(doc.semantic_sent))]
    return doc, result_id, data


async def semantic_tokens_full(
    ls: PtolsServer, params: types.SemanticTokensParams
) -> types.SemanticTokens | None:
    found = await semantic_data(ls, params.text_document.uri)
    if found is None:
        return None
    _, result_id, data = found
    return types.SemanticTokens(data=data, result_id=result_id)


async def semantic_tokens_delta(
    ls: PtolsServer, params: types.SemanticTokensDeltaParams
) -> types.SemanticTokens | types.SemanticTokensDelta | None:
    found = await semantic_data(ls, params.text_document.uri)
    if found is None:
        return None
    doc, result_id, data = found
    previous = doc.semantic_sent.get(params.previous_result_id)
    if previous is None:  # an id this server no longer holds: the whole list
        return types.SemanticTokens(data=data, result_id=result_id)
    edits = features.semantic_tokens.delta(previous, data)
    return types.SemanticTokensDelta(edits=edits, result_id=result_id)


async def syntax_answer(
    ls: PtolsServer, uri: str, compute: Callable[..., T], *args: Any
) -> T | None:
    """``compute(tree, index, *args)`` on the syntax thread for the document's current text."""
    doc = pypto_document(ls, uri)
    if doc is None or doc.too_large:
        return None
    text, index = doc.text, doc.index

    def run() -> T | None:
        tree = doc.syntax_of(text)
        return None if tree is None else compute(tree, index, *args)

    return await asyncio.get_running_loop().run_in_executor(ls.syntax_pool, run)


async def folding_range(
    ls: PtolsServer, params: types.FoldingRangeParams
) -> list[types.FoldingRange] | None:
    if not has_tree_sitter():  # (the folding module reads tree-sitter's nodes: not loadable)
        return None
    return await syntax_answer(ls, params.text_document.uri, features.folding.folding_ranges)


async def selection_range(
    ls: PtolsServer, params: types.SelectionRangeParams
) -> list[types.SelectionRange] | None:
    positions = params.positions

    def ranges(tree: SyntaxTree, index: LineIndex, encoding: str) -> list[types.SelectionRange]:
        select = features.folding.selection_range
        return [select(tree, index, index.offset_of(p, encoding), encoding) for p in positions]

    return await syntax_answer(ls, params.text_document.uri, ranges, ls.encoding())


def answer_at(ls: PtolsServer, params: Any, answer: Callable[[Located], T]) -> T | None:
    """``answer`` of the occurrence under the cursor (``params``: a text document and a
    position), or None where there is none."""
    found = locate(ls, params.text_document.uri, params.position)
    return None if found is None else answer(found)


def document_highlight(
    ls: PtolsServer, params: types.DocumentHighlightParams
) -> list[types.DocumentHighlight] | None:
    return answer_at(
        ls, params, lambda at: features.highlight.highlights(at.analysis, at.occ, at.positions)
    )


def prepare_call_hierarchy(
    ls: PtolsServer, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    return answer_at(
        ls,
        params,
        lambda at: features.call_hierarchy.prepare(at.analysis, at.occ, at.doc.uri, at.positions),
    )


def hierarchy_function(ls: PtolsServer, item: types.CallHierarchyItem) -> Any:
    """The analysis, positions and FunctionInfo a call hierarchy item names (by its name's
    place), or None."""
    doc = ls.lookup(item.uri)
    if doc is None or doc.analysis is None:
        return None
    positions = ls.positions(doc)
    line, column = positions.position(item.selection_range.start)
    for info in doc.analysis.function_infos:
        if (info.name_span.line, info.name_span.column) == (line, column):
            return doc.analysis, positions, info
    return None


def incoming_calls(
    ls: PtolsServer, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall] | None:
    return hierarchy_calls(ls, params.item, features.call_hierarchy.incoming)


def outgoing_calls(
    ls: PtolsServer, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall] | None:
    return hierarchy_calls(ls, params.item, features.call_hierarchy.outgoing)


def hierarchy_calls(
    ls: PtolsServer, item: types.CallHierarchyItem, calls: Callable[..., T]
) -> T | None:
    """``calls(analysis, function, uri, positions)`` for the function ``item`` names."""
    found = hierarchy_function(ls, item)
    if found is None:
        return None
    analysis, positions, info = found
    return calls(analysis, info, item.uri, positions)
