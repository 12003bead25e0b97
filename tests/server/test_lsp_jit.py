"""@pl.jit in the editor (issue #27): ``ptols/specialisations`` lists each kernel's
specialisations, labelled by where they come from, and ``ptols/preview`` shows the one chosen
(``specialisation``); the project's ``[tool.ptoc.jit]`` table is one of the sources."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import open_document, position_of
from pytest_lsp import LanguageClient
from test_lsp_preview import settled_preview

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)
CALL = "        tile_add(a, b, c)"
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
