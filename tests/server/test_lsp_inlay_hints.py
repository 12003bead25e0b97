"""Inlay hints: types of unannotated assignments."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features.inlay_hints import inlay_hints


async def test_inlay_hints_for_unannotated_assignments(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    lines = KERNEL.count("\n")
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(0, 0), types.Position(lines, 0)),
        )
    )
    labels = {(h.position.line, h.label) for h in hints}
    assert (position_of(KERNEL, "tile_c = ").line, ": pl.Tile[[64, 64], pl.FP32]") in labels
    assert (position_of(KERNEL, "result = ").line, ": pl.Tensor[[64, 64], pl.FP32]") in labels


# --- ptols.features.inlay_hints called directly, without a client --------------------------------


def test_inlay_hints_module_hints_only_the_requested_lines():
    a = analysed()
    lines = a.text.split("\n")
    tile = ": pl.Tile[[64, 64], pl.FP32]"
    hints = inlay_hints(a.analysis, lines, a.positions, 15, 15)
    assert [(h.position, h.label) for h in hints] == [(types.Position(14, 14), tile)]
    every = inlay_hints(a.analysis, lines, a.positions, 1, len(lines))
    assert [(h.position.line, h.label) for h in every][:3] == [(12, tile), (13, tile), (14, tile)]
