"""The server's view of the text: LSP line breaks, end-of-line edits, BOM, stale analyses,
the disk never read for an open buffer, and no stale publishes."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from pathlib import Path

from lsp_helpers import KERNEL, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

BAD = KERNEL.replace("tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.add(tile_a, tile_q)")


def lsp_position(text: str, needle: str, offset: int = 0) -> types.Position:
    """A position by LSP's rules (\\n, \\r\\n, \\r end lines), UTF-16 columns."""
    index = text.index(needle) + offset
    head = text[:index].replace("\r\n", "\n").replace("\r", "\n")
    line = head.count("\n")
    column = head[head.rfind("\n") + 1 :]
    return types.Position(line, len(column.encode("utf-16-le")) // 2)


def edit(
    client: LanguageClient,
    uri: str,
    version: int,
    start: types.Position,
    end: types.Position,
    text: str,
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(start, end), text=text)],
        )
    )


async def digest(client: LanguageClient, uri: str) -> dict:
    return await client.protocol.send_request_async(
        "ptols/textDigest", {"textDocument": {"uri": uri}}
    )


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def test_edit_past_the_end_of_the_last_line_means_its_end(
    client: LanguageClient, tmp_path: Path
):
    text = KERNEL.rstrip("\n") + "x"  # the last line: `        return rx`, no line break
    uri = await open_document(client, tmp_path / "k.py", text)
    assert [d.message.split(";")[0] for d in await wait_for_diagnostics(client, uri, 1)] == [
        "Undefined variable 'rx'"
    ]
    last = text.count("\n")
    edit(client, uri, 2, types.Position(last, 16), types.Position(last, 200), "")  # to past the end
    assert len(await wait_for_diagnostics(client, uri, 2)) == 0
    answer = await digest(client, uri)
    assert (answer.version, answer.sha256) == (2, sha(text[:-1]))
    edit(client, uri, 3, types.Position(last, 300), types.Position(last, 300), "\n")  # append
    await wait_for_diagnostics(client, uri, 3)
    assert (await digest(client, uri)).sha256 == sha(text[:-1] + "\n")


async def test_edit_past_the_end_of_a_line_means_its_end(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", BAD)
    line = position_of(BAD, "tile_q").line
    edit(
        client, uri, 2, types.Position(line, 500), types.Position(line + 1, 0), "\n"
    )  # replaces just the break
    await wait_for_diagnostics(client, uri, 2)
    assert (await digest(client, uri)).sha256 == sha(BAD)


async def test_odd_characters_do_not_break_lines(client: LanguageClient, tmp_path: Path):
    # form feed, vertical tab, \x1c-\x1e, NEL, LINE and PARAGRAPH SEPARATOR are not line breaks
    text = "# odd: \x0c \x0b \x1c \x1d \x1e \x85 \u2028 \u2029 end\n" + BAD
    uri = await open_document(client, tmp_path / "k.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    start = lsp_position(text, "tile_q")
    assert diagnostic.range == types.Range(start, types.Position(start.line, start.character + 6))
    # an incremental edit after those characters lands where the editor puts it
    edit(client, uri, 2, start, types.Position(start.line, start.character + 6), "tile_b")
    assert len(await wait_for_diagnostics(client, uri, 2)) == 0
    assert (await digest(client, uri)).sha256 == sha(text.replace("tile_q", "tile_b"))


async def test_lone_carriage_returns_end_lines_for_symbols_and_diagnostics(
    client: LanguageClient, tmp_path: Path
):
    text = "# one\r# two\r" + BAD
    uri = await open_document(client, tmp_path / "k.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert diagnostic.range.start == lsp_position(text, "tile_q") == types.Position(16, 32)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    demo = symbols[0]
    assert isinstance(demo, types.DocumentSymbol)
    assert demo.selection_range == types.Range(types.Position(6, 6), types.Position(6, 10))
    kernel = (demo.children or [])[0]
    assert kernel.selection_range == types.Range(types.Position(8, 8), types.Position(8, 14))


async def test_byte_order_mark_document_is_analysed(client: LanguageClient, tmp_path: Path):
    text = "\ufeff" + BAD
    uri = await open_document(client, tmp_path / "k.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert diagnostic.code == "E200"
    start = lsp_position(text, "tile_q")
    assert diagnostic.range == types.Range(start, types.Position(start.line, start.character + 6))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), lsp_position(text, "tile_a = ", 1))
    )
    assert hover is not None and "tile_a" in hover.contents.value  # type: ignore[union-attr]


async def test_stale_analysis_answers_through_unchanged_text_only(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    # two lines above `tile_c = ...`, the second of which does not parse
    anchor = position_of(KERNEL, "        tile_c = ")
    inserted = "        x = 1\n        y = (\n"
    edit(client, uri, 2, anchor, anchor, inserted)
    new = KERNEL.replace("        tile_c = ", inserted + "        tile_c = ", 1)
    assert [d.code for d in await wait_for_diagnostics(client, uri, 2)] == ["E000"]
    doc = types.TextDocumentIdentifier(uri)

    # below the change: answers from the last clean analysis, at the new places
    hover = await client.text_document_hover_async(
        types.HoverParams(doc, lsp_position(new, "result = ", 1))
    )
    assert hover is not None and "result" in hover.contents.value  # type: ignore[union-attr]
    assert hover.range == types.Range(
        lsp_position(new, "result = "), lsp_position(new, "result = ", 6)
    )
    rename = await client.text_document_rename_async(
        types.RenameParams(doc, lsp_position(new, "result = ", 1), "stored")
    )
    assert rename is not None and rename.changes is not None
    assert sorted((e.range.start, e.range.end) for e in rename.changes[uri]) == [  # type: ignore[type-var]
        (lsp_position(new, "result = "), lsp_position(new, "result = ", 6)),
        (lsp_position(new, "return result", 7), lsp_position(new, "return result", 13)),
    ]
    # above it: unchanged positions
    hover = await client.text_document_hover_async(
        types.HoverParams(doc, lsp_position(new, "tile_b = ", 1))
    )
    assert hover is not None and "tile_b" in hover.contents.value  # type: ignore[union-attr]
    # in the changed text that does not parse: nothing (the old analysis has another text there)
    assert (
        await client.text_document_hover_async(
            types.HoverParams(doc, lsp_position(new, "y = (", 0))
        )
        is None
    )
    assert (
        await client.text_document_rename_async(
            types.RenameParams(doc, lsp_position(new, "y = (", 0), "z")
        )
        is None
    )
    # a definition right after the inserted lines moved with them
    definition = await client.text_document_definition_async(
        types.DefinitionParams(doc, lsp_position(new, "tile_c, [0, 0]", 1))
    )
    assert isinstance(definition, types.Location)
    assert definition.range == types.Range(
        lsp_position(new, "tile_c = "), lsp_position(new, "tile_c = ", 6)
    )


async def test_indentation_error_comes_from_the_buffer_not_a_fifo_at_its_path(
    client: LanguageClient, tmp_path: Path
):
    path = tmp_path / "k.py"
    os.mkfifo(path)  # reading it would block for ever
    text = KERNEL.replace("        tile_b = pl.load", "      tile_b = pl.load")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    diagnostics = await wait_for_diagnostics(client, uri, 1, timeout=15)
    assert [(d.code, d.message, d.range.start.line) for d in diagnostics] == [
        (
            "E000",
            "unindent does not match any outer indentation level",
            lsp_position(text, "tile_b = ").line,
        )
    ]


async def test_configuration_change_never_publishes_an_older_version(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", BAD)
    assert [d.code for d in await wait_for_diagnostics(client, uri, 1)] == ["E200"]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument("print('no longer a kernel')\n")],
        )
    )
    assert len(await wait_for_diagnostics(client, uri, 2)) == 0
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ptoc": {"inlayHints": {"enabled": False}}})
    )
    await asyncio.sleep(1.0)
    versions = [p.version for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert versions[versions.index(2) :] == [2] * (len(versions) - versions.index(2))


async def test_preview_of_a_plain_python_document_answers_at_once(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "plain.py", "print('hello')\n")
    started = time.monotonic()
    answer = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "cce"}
    )
    assert time.monotonic() - started < 1.0
    assert answer.content == ""
