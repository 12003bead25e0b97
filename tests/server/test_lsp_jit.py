"""@pl.jit kernels in the editor: hover on the kernel and on its values, diagnostics at a call."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

# The project's JIT example: 64 x 64 load windows, called with 64 x 64 and 128 x 128 tensors.
FITS = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)
SMALL = FITS.replace("for n in (64, 128):", "for n in (32,):")


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
    assert "# as the first call in this file gives it:\ndef tile_add(a: Tensor[[64, 64], FP32]" in (
        signature
    )
    assert "(variable) tile_b: pl.Tile[[64, 64], pl.FP32]" in (
        await hover_text(client, uri, "tile_b = ")
    )


async def test_a_call_too_small_for_the_kernel_is_an_error_at_the_call(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", SMALL)
    found: list[types.Diagnostic] = []
    for _ in range(200):
        found = client.diagnostics.get(uri, [])
        if found:
            break
        await asyncio.sleep(0.05)
    call = position_of(SMALL, "tile_add(a, b, c)")
    assert [(d.code, d.range.start) for d in found] == [("E209", call)]
