"""Folding ranges, selection ranges, document highlights and the call hierarchy over real LSP
round trips, with exact results on one kernel."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import LOOP_KERNEL, open_document
from lsprotocol import types
from pytest_lsp import LanguageClient

KERNEL = LOOP_KERNEL


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def where(r: types.Range) -> str:
    return f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character}"


async def test_folding_ranges(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    ranges = await client.text_document_folding_range_async(types.FoldingRangeParams(doc(uri)))
    assert [(r.start_line, r.end_line, r.kind) for r in ranges] == [
        (2, 3, types.FoldingRangeKind.Comment),  # the comment block
        (7, 27, None),  # the program
        (9, 21, None),  # kernel
        (11, 19, None),  # the loop
        (13, 14, None),  # the if branch
        (15, 17, None),  # the else branch
        (24, 27, None),  # main
    ]


async def test_selection_ranges_grow_from_the_word(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    found = await client.text_document_selection_range_async(
        types.SelectionRangeParams(doc(uri), [types.Position(12, 20)])
    )
    chain = []
    selection = found[0]
    while selection is not None:
        chain.append(where(selection.range))
        selection = selection.parent
    assert chain == [
        "12:19-12:21",  # pl
        "12:19-12:26",  # pl.load
        "12:19-12:52",  # the call
        "12:12-12:52",  # the assignment
        "12:12-19:39",  # the loop body
        "11:8-19:39",  # the loop
        "10:8-21:21",  # the function body
        "9:4-21:21",  # the function
        "8:4-21:21",  # with its decorator
        "8:4-27:16",  # the class body
        "7:0-27:16",  # the class
        "6:0-27:16",  # with its decorator
        "0:0-28:0",  # the file
    ]


async def highlights(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    found = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(doc(uri), types.Position(line, character))
    )
    lines = KERNEL.split("\n")
    return [
        f"{h.range.start.line}:{h.range.start.character} "
        f"{lines[h.range.start.line][h.range.start.character : h.range.end.character]} "
        f"{h.kind.name if h.kind else ''}"
        for h in found
    ]


async def test_highlights_follow_a_carried_value_through_its_yields(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    carried = [
        "11:16 acc Write",  # the iter_arg
        "11:53 first Write",  # its init value
        "18:27 acc Read",
        "19:12 acc_next Write",  # the loop's result
        "19:33 total Write",  # what the body yields for it
        "20:26 acc_next Read",
    ]
    assert await highlights(client, uri, 11, 17) == carried
    assert await highlights(client, uri, 20, 28) == carried  # from the result
    assert await highlights(client, uri, 14, 17) == [  # an if's result, from both branches
        "14:16 picked Write",
        "14:35 rows Write",
        "17:16 picked Write",
        "17:35 doubled Write",
        "18:32 picked Read",
    ]
    assert await highlights(client, uri, 26, 8) == ["26:8 s Write", "27:15 s Read"]


async def test_call_hierarchy_between_program_functions(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    items = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(doc(uri), types.Position(25, 19))
    )
    assert [
        (i.name, i.kind, i.detail, where(i.range), where(i.selection_range)) for i in items
    ] == [("kernel", types.SymbolKind.Method, "Demo", "9:4-21:21", "9:8-9:14")]
    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(items[0])
    )
    assert [(c.from_.name, [where(r) for r in c.from_ranges]) for c in incoming] == [
        ("main", ["25:17-25:23", "26:17-26:23"])
    ]
    outgoing = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(incoming[0].from_)
    )
    assert [(c.to.name, [where(r) for r in c.from_ranges]) for c in outgoing] == [
        ("kernel", ["25:17-25:23", "26:17-26:23"])
    ]
    leaf = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(items[0])
    )
    assert leaf is not None and list(leaf) == []
    not_a_function = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(doc(uri), types.Position(26, 8))
    )
    assert not_a_function is None
