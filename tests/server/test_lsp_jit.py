"""@pl.jit kernels in the editor: hover on the kernel and on its values, diagnostics at a call."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

JIT = """import pypto.language as pl
import torch


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [128, 128])
        tile_b = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(tile_a, tile_b), [0, 0], c)
    return c


if __name__ == "__main__":
    small = torch.zeros((64, 64), dtype=torch.float32)
    tile_add(small, small, small)
"""


FITS = JIT.replace("(64, 64)", "(128, 128)")


async def hover_text(client: LanguageClient, uri: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(FITS, needle))
    )
    assert hover is not None
    return hover.contents.value


async def test_hover_shows_the_kernels_signature_and_its_tiles(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", FITS)
    signature = await hover_text(client, uri, "tile_add(a")
    assert "def tile_add(a: Tensor[?, ?], b: Tensor[?, ?], c: Tensor[?, ?])" in signature
    assert (
        "# as the first call in this file gives it:\ndef tile_add(a: Tensor[[128, 128], FP32]"
        in (signature)
    )
    assert "(variable) tile_b: pl.Tile[[128, 128], pl.FP32]" in (
        await hover_text(client, uri, "tile_b = ")
    )


async def test_a_call_too_small_for_the_kernel_is_an_error_at_the_call(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", JIT)
    found: list[types.Diagnostic] = []
    for _ in range(200):
        found = client.diagnostics.get(uri, [])
        if found:
            break
        await asyncio.sleep(0.05)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == [
        ("E209", 15, 4)
    ]
