"""Signature help inside op calls."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features import signature_help


async def test_signature_help_for_op_call(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_c = pl.add(tile_a, tile_b)",
        "tile_c = pl.add(tile_a, tile_b)\n        s = pl.load(a, [0, 0], ",
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    pos = position_of(text, "pl.load(a, [0, 0], ", len("pl.load(a, [0, 0], "))
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(types.TextDocumentIdentifier(uri), pos)
    )
    assert help_ is not None
    signature = help_.signatures[0]
    assert signature.label.startswith("pl.load(tensor, offsets, shapes")
    assert help_.active_parameter == 2


# --- ptols.features.signature_help called directly, without a client -----------------------------


def test_signature_help_module_follows_the_active_argument():
    a = analysed()
    first = signature_help.signature_help(a.text, a.offset("pl.add(", 7), a.analysis)
    second = signature_help.signature_help(a.text, a.offset("tile_b)", 0), a.analysis)
    assert first is not None and second is not None
    assert first.signatures[0].label == "pl.add(lhs, rhs)"
    assert (first.active_parameter, second.active_parameter) == (0, 1)
    assert signature_help.signature_help(a.text, a.offset("tile_c = ", 0), a.analysis) is None


JIT = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)


async def test_signature_help_on_a_jit_call_shows_what_each_argument_needs(
    client: LanguageClient, tmp_path: Path
):
    text = JIT.replace("tile_add(a, b, c)", "tile_add(a, b, c)\n        tile_add(a, ")
    uri = await open_document(client, tmp_path / "k.py", text)
    pos = position_of(text, "tile_add(a, \n", len("tile_add(a, "))
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(types.TextDocumentIdentifier(uri), pos)
    )
    assert help_ is not None
    (signature,) = help_.signatures
    assert signature.label == (
        "def tile_add(a: Tensor[?, ?], b: Tensor[?, ?], c: Tensor[?, ?]) -> Tensor[?, ?]"
    )
    assert [(p.label, p.documentation) for p in signature.parameters or []] == [
        ("a: Tensor[?, ?]", "a needs rank 2, at least [64, 64]"),
        ("b: Tensor[?, ?]", "b needs rank 2, at least [64, 64]"),
        ("c: Tensor[?, ?]", "c needs rank 2"),
    ]
    assert help_.active_parameter == 1
    assert signature.documentation == (
        "a needs rank 2, at least [64, 64]\nb needs rank 2, at least [64, 64]\nc needs rank 2"
    )
