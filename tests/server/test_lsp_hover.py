"""Hover: deduced types, op docs, buffers and addresses after the pipeline."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features import hover
from ptols.features.common import occurrence_at


async def test_hover_variable_shows_deduced_type(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "tile_c = ", 2))
    )
    assert hover is not None
    assert "(variable) tile_c: pl.Tile[[64, 64], pl.FP32]" in hover.contents.value


async def test_hover_op_shows_signature_rule_and_lowering(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "pl.add", 4))
    )
    assert hover is not None
    text = hover.contents.value
    assert "pl.block.add(lhs, rhs)" in text
    assert "CCE: `TADD (row vector rhs: TROWEXPANDADD; column vector rhs: TCOLEXPANDADD)`" in text
    assert "PTO: `pto.tadd (row vector rhs: pto.trowexpandadd;" in text
    assert "Role: `elementwise` · Pipe: `V` · Scalar form: `block.adds`" in text
    assert "- `lhs`: Left tile operand _(in Vec)_" in text
    assert "Tile[[64, 64], FP32]" in text or "pl.Tile[[64, 64], pl.FP32]" in text


async def test_hover_shows_buffer_and_address_after_the_pipeline(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    position = position_of(KERNEL, "tile_b = ")
    text = ""
    for _ in range(200):  # the pipeline runs in the background once the file is idle
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position)
        )
        text = hover.contents.value if hover is not None else ""
        if "after the pipeline" in text:
            break
        await asyncio.sleep(0.05)
    assert "after the pipeline: buffer `Vec#4 @0x4000 (16384 B)`" in text, text


async def test_hover_on_any_expression(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_c = pl.add(tile_a, tile_b)",
        "tile_c = pl.add(tile_a, tile_b)\n        n = (3 + 4) * 8",
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, "3 + 4"))
    )
    assert hover is not None and "(expression) 3 + 4: pl.Scalar[pl.INT64]" in hover.contents.value
    hover = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), position_of(text, "[0, 0], [64, 64])", 1)
        )
    )
    assert (
        hover is not None
        and "(expression) [0, 0]: tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]"
        in hover.contents.value
    )


# --- ptols.features.hover called directly --------------------------------------------------------


def test_hover_module_shows_a_variable_with_its_type_size_and_memory():
    a = analysed()
    occ = occurrence_at(a.analysis, *a.at("tile_c = ", 2))
    assert occ is not None
    found = hover.hover(a.analysis, occ, a.positions.range(occ.span))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value == (
        "```python\n(variable) tile_c: pl.Tile[[64, 64], pl.FP32]\n```\n\n"
        "4096 elements · 16384 bytes\n\nmemory: Vec"
    )
    assert found.range == types.Range(types.Position(14, 8), types.Position(14, 14))


def test_a_cursor_just_after_a_name_still_finds_it():
    a = analysed()
    after = occurrence_at(a.analysis, *a.at("tile_c = ", 6))
    inside = occurrence_at(a.analysis, *a.at("tile_c = ", 2))
    assert after is not None and after is inside


LOOP_KERNEL = """import pypto.language as pl


@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        for i in pl.range(4):
            row = i * 16
            t = pl.load(a, [row, 0], [16, 64])
            out = pl.store(t, [row, 0], out)
        return out
"""


async def test_hover_types_a_loop_variable_by_the_edition_in_force(
    client: LanguageClient, tmp_path: Path
):
    shown = {}
    for edition in ("2026-03", "2026-08"):
        folder = tmp_path / edition
        folder.mkdir()
        (folder / "pyproject.toml").write_text(f'[tool.ptoc]\nedition = "{edition}"\n')
        uri = await open_document(client, folder / "k.py", LOOP_KERNEL)
        hovers = [
            await client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(uri), position_of(LOOP_KERNEL, at))
            )
            for at in ("i in pl.range", "row = ")
        ]
        assert all(h is not None for h in hovers)
        shown[edition] = [h.contents.value for h in hovers if h is not None]
    old, new = shown["2026-03"], shown["2026-08"]
    assert "i: pl.Scalar[pl.INT64]" in old[0] and "row: pl.Scalar[pl.INT64]" in old[1], old
    assert "i: pl.Scalar[pl.INDEX]" in new[0] and "row: pl.Scalar[pl.INDEX]" in new[1], new


LITERAL_KERNEL = """import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def kern(n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
    x = 7
    m = n + 1
    y = (x + 2) * 3
    return m
"""


async def test_hover_types_an_int_literal_by_the_edition_in_force(
    client: LanguageClient, tmp_path: Path
):
    """An int literal is INT64 in 2026-03 and INDEX in 2026-08, where it takes the dtype of an
    integer it is paired with (spec §4): ``n + 1`` of an INT32 stays INT32 there."""
    shown = {}
    for edition in ("2026-03", "2026-08"):
        folder = tmp_path / edition
        folder.mkdir()
        (folder / "pyproject.toml").write_text(f'[tool.ptoc]\nedition = "{edition}"\n')
        uri = await open_document(client, folder / "k.py", LITERAL_KERNEL)
        hovers = [
            await client.text_document_hover_async(
                types.HoverParams(
                    types.TextDocumentIdentifier(uri), position_of(LITERAL_KERNEL, at, offset)
                )
            )
            for at, offset in (("x = 7", 0), ("x + 2", 2), ("m = n + 1", 0), ("kern(", 0))
        ]
        assert all(h is not None for h in hovers)
        shown[edition] = [h.contents.value for h in hovers if h is not None]
    old, new = shown["2026-03"], shown["2026-08"]
    assert "(variable) x: pl.Scalar[pl.INT64]" in old[0], old
    assert "(expression) x + 2: pl.Scalar[pl.INT64]" in old[1], old
    assert "(variable) m: pl.Scalar[pl.INT64]" in old[2], old
    assert "(variable) x: pl.Scalar[pl.INDEX]" in new[0], new
    assert "(expression) x + 2: pl.Scalar[pl.INDEX]" in new[1], new
    assert "(variable) m: pl.Scalar[pl.INT32]" in new[2], new
    # the function's hover says which edition applied
    assert "_Edition: PyPTO 2026-03 (set by [tool.ptoc] edition)_" in old[3], old
    assert "_Edition: PyPTO 2026-08 (set by [tool.ptoc] edition)_" in new[3], new
