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


async def test_parameter_name_hints_are_a_setting_off_by_default(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    params = types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(types.Position(12, 0), types.Position(16, 0)),
    )

    async def parameter_hints() -> list[tuple[int, int, object]]:
        hints = await client.text_document_inlay_hint_async(params)
        return [
            (h.position.line, h.position.character, h.label)
            for h in hints or []
            if h.kind == types.InlayHintKind.Parameter
        ]

    assert await parameter_hints() == []
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"ptoc": {"inlayHints": {"enabled": True, "parameterNames": True}}}
        )
    )
    found: list[tuple[int, int, object]] = []
    for _ in range(500):
        found = await parameter_hints()
        if found:
            break
    assert found == [
        (12, 25, "tensor:"),  # tile_a = pl.load(a, [0, 0], [64, 64])
        (12, 28, "offsets:"),
        (12, 36, "shapes:"),
        (13, 25, "tensor:"),
        (13, 28, "offsets:"),
        (13, 36, "shapes:"),
        (14, 24, "lhs:"),  # pl.add(tile_a, tile_b)
        (14, 32, "rhs:"),
        (15, 26, "tile:"),  # pl.store(tile_c, [0, 0], [64, 64], out)
        (15, 34, "offsets:"),
        (15, 42, "shapes:"),
        (15, 52, "output_tensor:"),
    ]


def test_parameter_hints_skip_keywords_and_arguments_named_like_their_parameter():
    from ptols.features.parameter_hints import parameter_hints

    text = KERNEL.replace(
        "pl.load(a, [0, 0], [64, 64])", "pl.load(tensor=a, offsets=[0, 0], shapes=[64, 64])"
    ).replace("pl.add(tile_a, tile_b)", "pl.add(tile_a, rhs=tile_b)")
    a = analysed(text)
    found = [(h.position.line, h.label) for h in parameter_hints(a.analysis, a.positions, 13, 15)]
    assert found == [(13, "tensor:"), (13, "offsets:"), (13, "shapes:"), (14, "lhs:")]
