"""Document formatting through ptoc fmt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import KERNEL, change, open_document, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features.formatting import format_document
from ptols.isolated import Child


async def test_formatting_returns_one_whole_document_edit_or_none(
    client: LanguageClient, tmp_path: Path
):
    messy = KERNEL.replace("tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.add( tile_a,tile_b )")
    uri = await open_document(client, tmp_path / "k.py", messy)
    edits = await format_when_done(client, uri)
    assert len(edits) == 1 and "pl.add(tile_a, tile_b)" in edits[0].new_text, (
        client.messages,
        client.log_messages,
    )
    change(client, uri, 2, edits[0].new_text)
    await wait_for_diagnostics(client, uri, 2)
    edits = await format_when_done(client, uri)
    assert edits is not None and list(edits) == []


async def format_when_done(client: LanguageClient, uri: str) -> list[types.TextEdit] | None:
    """Formatting, asked again while the server says it is still formatting (a cold start of
    black on a busy machine outlasts the request's budget), as a user would."""
    for _ in range(30):
        edits = await client.text_document_formatting_async(
            types.DocumentFormattingParams(
                text_document=types.TextDocumentIdentifier(uri),
                options=types.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        )
        still = [m for m in client.messages if "still formatting" in m.message]
        if edits is not None or not still:
            return edits
        client.messages.clear()
        await asyncio.sleep(0.2)
    return None


# --- ptols.features.formatting called directly, without a client ---------------------------------


@pytest.fixture
def format_child():
    child = Child("format")
    yield child
    child.close()


def test_formatting_module_gives_one_whole_document_edit(format_child: Child):
    messy = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.add( tile_a,tile_b )")
    edits, problem = format_document(messy, "k.py", 88, format_child)
    assert problem == ""
    assert len(edits) == 1
    end = messy.count("\n")
    assert edits[0].range == types.Range(types.Position(0, 0), types.Position(end, 0))
    assert "tile_c = pl.add(tile_a, tile_b)" in edits[0].new_text
    again, _ = format_document(edits[0].new_text, "k.py", 88, format_child)
    assert again == []


async def test_range_formatting_changes_only_the_lines_asked_for(
    client: LanguageClient, tmp_path: Path
):
    messy = KERNEL.replace(
        "tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.add( tile_a,tile_b )"
    ).replace("tile_a = pl.load(a, [0, 0], [64, 64])", "tile_a = pl.load(a,[0,0],[64,64])")
    uri = await open_document(client, tmp_path / "k.py", messy)
    edits = None
    for _ in range(20):  # no answer while fmt still runs (0.7 s budget): ask again, as documented
        edits = await client.text_document_range_formatting_async(
            types.DocumentRangeFormattingParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=types.Range(types.Position(14, 4), types.Position(15, 0)),
                options=types.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        )
        if edits is not None:
            break
    assert edits is not None
    assert [(e.range, e.new_text) for e in edits] == [
        (
            types.Range(types.Position(14, 0), types.Position(15, 0)),
            "        tile_c = pl.add(tile_a, tile_b)\n",
        )
    ]
