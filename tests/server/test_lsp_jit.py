"""@pl.jit in the editor (issue #27): ``ptols/specialisations`` lists each kernel's
specialisations, labelled by where they come from, and ``ptols/preview`` shows the one chosen
(``specialisation``); the project's ``[tool.ptoc.jit]`` table is one of the sources."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import change, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_lsp_preview import settled_preview

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)
CALL = "        tile_add(a, b, c)"
PTO_ISA = Path(__file__).resolve().parents[3] / "shared" / "vendor" / "pto-isa"
TABLE = '[tool.ptoc.jit]\ntile_add = "a=[256, 64]:FP16 b=[256, 64]:FP16 c=[256, 64]:FP16"\n'


async def request(client: LanguageClient, method: str, uri: str, **fields: object):
    return await client.protocol.send_request_async(
        method, {"textDocument": {"uri": uri}, **fields}
    )


async def test_specialisations_list_each_source_and_the_preview_shows_the_chosen_one(
    client: LanguageClient, tmp_path: Path
):
    (tmp_path / "pyproject.toml").write_text(TABLE, encoding="utf-8")
    uri = await open_document(client, tmp_path / "k.py", EXAMPLE)
    found = await request(client, "ptols/specialisations", uri)
    (kernel,) = found.kernels
    line = position_of(EXAMPLE, CALL.strip()).line + 1
    assert kernel.name == "tile_add"
    assert kernel.range.start.line == position_of(EXAMPLE, "def tile_add").line
    assert [(s.index, s.label) for s in kernel.specialisations] == [
        (1, "[tool.ptoc.jit] tile_add #1: a: [256, 64] FP16, b: [256, 64] FP16, c: [256, 64] FP16"),
        (2, f"call at line {line}: a: [64, 64] FP32, b: [64, 64] FP32, c: [64, 64] FP32"),
        (3, f"call at line {line}: a: [128, 128] FP32, b: [128, 128] FP32, c: [128, 128] FP32"),
    ]
    first = await settled_preview(client, {"textDocument": {"uri": uri}, "target": "ir"})
    third = await settled_preview(
        client, {"textDocument": {"uri": uri}, "target": "ir", "specialisation": 3}
    )
    assert "-> pl.Tensor[[256, 64], pl.FP16]:" in first.content
    assert "-> pl.Tensor[[128, 128], pl.FP32]:" in third.content
    assert "[256, 64]" not in third.content


# A kernel whose buffers differ per specialisation (FP32, then FP16 tiles).
TWO_DTYPES = """\
import pypto.language as pl
import torch


@pl.jit
def scale(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 32])
        pl.store(pl.add(t, t), [0, 0], c)
    return c


if __name__ == "__main__":
    a = torch.zeros((32, 32), dtype=torch.float32)
    c = torch.zeros((32, 32), dtype=torch.float32)
    scale(a, c)
    b = torch.zeros((32, 32), dtype=torch.float16)
    d = torch.zeros((32, 32), dtype=torch.float16)
    scale(b, d)
"""
FP32_KEY = "a: Tensor[[32, 32], FP32], c: Tensor[[32, 32], FP32]"
FP16_KEY = "a: Tensor[[32, 32], FP16], c: Tensor[[32, 32], FP16]"
FP32_CALL = "    scale(a, c)\n"


async def tile_dtypes(client: LanguageClient, uri: str, **chosen: object) -> tuple[set[str], Any]:
    found = await request(client, "ptols/memoryMap", uri, function="scale", **chosen)
    return {b.dtype for f in found.functions for b in f.buffers}, getattr(found, "note", None)


async def test_the_memory_map_shows_the_chosen_specialisation_kept_by_its_key(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", TWO_DTYPES)
    (kernel,) = (await request(client, "ptols/specialisations", uri)).kernels
    assert [(s.index, s.key) for s in kernel.specialisations] == [
        (1, f"scale({FP32_KEY})"),
        (2, f"scale({FP16_KEY})"),
    ]
    assert await tile_dtypes(client, uri) == ({"FP32"}, None)
    assert await tile_dtypes(client, uri, specialisation=2) == ({"FP16"}, None)
    chosen = {"specialisation": 2, "specialisationKey": FP16_KEY}
    assert await tile_dtypes(client, uri, **chosen) == ({"FP16"}, None)
    # the FP32 call is deleted: the FP16 specialisation is now the first, found by its key
    change(client, uri, 2, TWO_DTYPES.replace(FP32_CALL, ""))
    assert await tile_dtypes(client, uri, **chosen) == ({"FP16"}, None)
    preview = await settled_preview(
        client, {"textDocument": {"uri": uri}, "target": "ir", "function": "scale", **chosen}
    )
    assert "pl.FP16" in preview.content and getattr(preview, "note", None) is None
    # by its index alone it is gone: the first, with a note saying so
    gone = (
        "'scale': specialisation 2 is no longer in the file; using its first (call at line 18: "
        "a: [32, 32] FP16, c: [32, 32] FP16)"
    )
    assert await tile_dtypes(client, uri, specialisation=2) == ({"FP16"}, gone)
    # the chosen one itself is gone: the first, and the note names the key
    change(client, uri, 3, TWO_DTYPES.replace("(b, d)", "(a, c)"))
    dtypes, note = await tile_dtypes(client, uri, **chosen)
    assert dtypes == {"FP32"}
    assert note == (
        f"'scale': the chosen specialisation ({FP16_KEY}) is no longer in the file; using its "
        "first (call at line 16: a: [32, 32] FP32, c: [32, 32] FP32)"
    )


# Two kernels with the same parameter types, called in opposite orders.
TWO_KERNELS = TWO_DTYPES.replace(
    "    scale(b, d)\n", "    scale(b, d)\n    twice(b, d)\n    twice(a, c)\n"
).replace(
    "\n\nif __name__",
    """

@pl.jit
def twice(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 32])
        pl.store(pl.mul(t, t), [0, 0], c)
    return c


if __name__""",
)


async def test_the_key_names_its_kernel_so_kernels_with_the_same_types_keep_apart(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", TWO_KERNELS)
    found = (await request(client, "ptols/specialisations", uri)).kernels
    assert [(k.name, [s.key for s in k.specialisations]) for k in found] == [
        ("scale", [f"scale({FP32_KEY})", f"scale({FP16_KEY})"]),
        ("twice", [f"twice({FP16_KEY})", f"twice({FP32_KEY})"]),
    ]

    async def dtypes(key: str) -> dict[str, set[str]]:
        found = await request(client, "ptols/memoryMap", uri, specialisationKey=key)
        assert getattr(found, "note", None) is None
        return {f.name: {b.dtype for b in f.buffers} for f in found.functions}

    # twice's FP32 one is its second: each kernel's second (the types alone found scale's first)
    assert await dtypes(f"twice({FP32_KEY})") == {
        "scale_incore_0": {"FP16"},
        "twice_incore_0": {"FP32"},
    }
    assert await dtypes(f"scale({FP32_KEY})") == {
        "scale_incore_0": {"FP32"},
        "twice_incore_0": {"FP16"},
    }
    # a key from an older server (the types alone) still matches, the first kernel with them
    assert await dtypes(FP32_KEY) == {"scale_incore_0": {"FP32"}, "twice_incore_0": {"FP16"}}


@pytest.mark.skipif(
    shutil.which("clang++-19") is None or not PTO_ISA.is_dir(),
    reason="needs clang-19 and pto-isa (../shared/vendor/pto-isa)",
)
async def test_run_runs_the_chosen_specialisation_on_the_simulator(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", TWO_DTYPES)
    chosen = {"specialisation": 1, "specialisationKey": FP16_KEY}  # the key wins
    result = await request(client, "ptols/run", uri, function="scale", **chosen)
    assert result.ok, result.log
    assert result.specialisation == 2
    assert result.message == (
        "scale: simulator (host code and 1 kernel(s) run as tasks in program order) and "
        "reference interpreter agree on 2 results"
    )
    assert "ptoc: note: 'scale' specialisation 2 of 2: call at line 19: a: [32, 32] FP16, " in (
        result.log
    )
    assert "a (FP16): max abs error 0" in result.log


# A kernel no call gives shapes: its values' dtypes are its parameters'.
UNCALLED = """\
import pypto.language as pl


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [128, 128])
        tile_b = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(tile_a, tile_b), [0, 0], c)
    return c
"""


async def hover_text(client: LanguageClient, uri: str, position: types.Position) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hover_and_inlay_hints_show_a_parameters_dtype_where_no_call_gives_one(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", UNCALLED)
    assert await hover_text(client, uri, position_of(UNCALLED, "tile_b =")) == (
        "```python\n(variable) tile_b: pl.Tile[[128, 128], dtype(b)]\n```\n\n"
        "16384 elements\n\nmemory: Vec"
    )
    assert (await hover_text(client, uri, position_of(UNCALLED, "a, [0, 0]"))).startswith(
        "```python\n(parameter) a: pl.Tensor[[a_dim0, a_dim1], dtype(a)]\n```"
    )
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(12, 0)),
        )
    )
    assert [h.label for h in hints or []] == [
        ": pl.Tile[[128, 128], dtype(a)]",
        ": pl.Tile[[128, 128], dtype(b)]",
    ]
    # a call gives the concrete types
    called = UNCALLED + (
        '\n\nif __name__ == "__main__":\n'
        "    x = torch.zeros((128, 128), dtype=torch.float16)\n"
        "    tile_add(x, x, x)\n"
    ).replace("if __name__", "import torch\n\nif __name__")
    change(client, uri, 2, called)
    assert not await wait_for_diagnostics(client, uri, 2)
    assert (await hover_text(client, uri, position_of(called, "tile_b ="))).startswith(
        "```python\n(variable) tile_b: pl.Tile[[128, 128], pl.FP16]\n```\n\n16384 elements · "
        "32768 bytes"
    )


async def test_a_sum_of_two_parameters_tiles_shows_their_promotion(
    client: LanguageClient, tmp_path: Path
):
    """``pl.add`` promotes: its result's dtype is ``promote(dtype(a), dtype(b))``, not the
    left operand's; its size in bytes is not known."""
    text = UNCALLED.replace(
        "        pl.store(pl.add(tile_a, tile_b), [0, 0], c)\n",
        "        total = pl.add(tile_a, tile_b)\n        pl.store(total, [0, 0], c)\n",
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    assert await hover_text(client, uri, position_of(text, "total =")) == (
        "```python\n(variable) total: pl.Tile[[128, 128], promote(dtype(a), dtype(b))]\n```"
        "\n\n16384 elements\n\nmemory: Vec"
    )
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(12, 0)),
        )
    )
    assert [h.label for h in hints or []][-1] == (
        ": pl.Tile[[128, 128], promote(dtype(a), dtype(b))]"
    )
