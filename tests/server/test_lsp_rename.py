"""Rename never changes what a name refers to: a new name that would capture, or be captured
by, another binding in scope is refused with a clear message, as is a keyword."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import KERNEL, open_document, position_of
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

SCALE = KERNEL.replace(
    "        tile_c = pl.add(tile_a, tile_b)\n",
    "        alpha = 2.0\n        p = 3.0\n        tile_s = pl.muls(tile_a, alpha)\n"
    "        tile_c = pl.add(tile_s, tile_b)\n        tile_d = pl.muls(tile_c, p)\n",
)


async def rename(client: LanguageClient, uri: str, text: str, at: str, new_name: str):
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=position_of(text, at),
            new_name=new_name,
        )
    )


async def test_rename_refuses_a_name_that_would_capture(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", SCALE)
    with pytest.raises(JsonRpcException) as refused:
        await rename(client, uri, SCALE, "alpha = ", "p")
    line = position_of(SCALE, "p = 3.0").line + 1
    assert f"cannot rename 'alpha' to 'p': 'p' already names another value (line {line})" in str(
        refused.value
    )
    with pytest.raises(JsonRpcException) as parameter:
        await rename(client, uri, SCALE, "alpha = ", "out")
    assert "'out' already names a parameter" in str(parameter.value)


async def test_rename_refuses_keywords(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", SCALE)
    for word in ("class", "match"):
        with pytest.raises(JsonRpcException) as refused:
            await rename(client, uri, SCALE, "alpha = ", word)
        assert f"cannot rename 'alpha' to '{word}': '{word}' is a Python keyword" in str(
            refused.value
        )
        assert "internal" not in str(refused.value)


async def test_rename_to_a_free_name_and_across_functions(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", SCALE)
    edit = await rename(client, uri, SCALE, "alpha = ", "gain")
    assert sorted(e.range.start.line for e in edit.changes[uri]) == [
        position_of(SCALE, "alpha = ").line,
        position_of(SCALE, "alpha)").line,
    ]
    # `r` is bound in main only: the kernel's own names do not stand in the way.
    edit = await rename(client, uri, SCALE, "tile_a = ", "r")
    assert len(edit.changes[uri]) == 2
