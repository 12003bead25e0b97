"""E401 / E402 in the editor: computed per function in the background, published with the
front end's diagnostics once known, kept while the function is unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_helpers import KERNEL, open_document, position_of
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

# Three live 256x256 FP32 tiles (256 KiB each) cannot fit the 192 KiB of Vec.
BIG = KERNEL.replace("[64, 64]", "[256, 256]")


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


async def published_with(
    client: LanguageClient, uri: str, version: int, code: str, timeout: float = 20.0
) -> list[types.Diagnostic]:
    """The first diagnostics published for ``version`` that include ``code``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for params in client.published:  # type: ignore[attr-defined]
            if (
                params.uri == uri
                and params.version == version
                and any(d.code == code for d in params.diagnostics)
            ):
                return params.diagnostics
        await asyncio.sleep(0.01)
    raise TimeoutError(f"no {code} for {uri} version {version}")


async def test_capacity_overflow_is_a_live_diagnostic(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", BIG)
    found = await published_with(client, uri, 1, "E402")
    assert [d.code for d in found] == ["E402"]
    start = position_of(BIG, "tile_a = pl.load")  # the first tile that does not fit
    assert (found[0].range.start.line, found[0].range.start.character) == (
        start.line,
        start.character,
    )
    assert "need 786432 bytes, but the target's Vec capacity is 196608 bytes" in found[0].message
    assert "buffers: " in found[0].message
    # An edit in another function: the kernel is unchanged, its E402 comes with the first publish.
    edited = BIG.replace("r = self.kernel(a, b, out)", "r = self.kernel(a, b, out)  # edited")
    change(client, uri, 2, edited)
    first = await published_with(client, uri, 2, "E402", timeout=5.0)
    versions = [p.version for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert versions.count(2) == 1 and first


async def hover_text(client: LanguageClient, uri: str, text: str, at: str) -> str:
    found = ""
    for _ in range(200):  # the pipeline runs in the background once the file is idle
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, at))
        )
        found = hover.contents.value if hover is not None else ""
        if "after the pipeline" in found:
            break
        await asyncio.sleep(0.05)
    return found


async def test_hover_shows_no_address_when_allocation_failed(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", BIG)
    text = await hover_text(client, uri, BIG, "tile_b = ")
    assert (
        "after the pipeline: buffer `Vec#4` (262144 B), no address: allocation did not "
        "succeed" in text
    ), text
    assert "@0x" not in text


async def test_hover_shows_where_a_tile_lives(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_b = pl.load(b, [0, 0], [64, 64])",
        "tile_b = pl.load(b, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)",
    )
    text = text.replace("pl.add(tile_a, tile_b)", "pl.add(tile_a, tile_a)")
    uri = await open_document(client, tmp_path / "k.py", text)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, "tile_b = "))
    )
    assert "memory: Mat" in hover.contents.value


async def preview(client: LanguageClient, uri: str, **fields: object):
    return await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, **fields}
    )


async def test_preview_of_an_unknown_target_or_function_is_an_error(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    with pytest.raises(JsonRpcException) as target:
        await preview(client, uri, target="wasm")
    assert "unknown target 'wasm' (known: cce, pto, pto-cpp, ir, pass:" in str(target.value)
    assert "internal" not in str(target.value).lower()
    with pytest.raises(JsonRpcException) as function:
        await preview(client, uri, target="cce", function="kernl")
    assert "no function 'kernl' in this document; did you mean 'kernel'?" in str(function.value)
    result = await preview(client, uri, target="cce", function="kernel")
    assert "TADD(tile_c, tile_a, tile_b);" in result.content


MIXED = """import pypto.language as pl


@pl.program
class M:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.add(acc, bias), [0, 0])
        return out
"""


async def test_a_mixed_scope_split_is_an_information_on_the_scope(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "mixed.py", MIXED)
    found = await published_with(client, uri, 1, "I009")
    assert [(d.code, d.severity) for d in found] == [("I009", types.DiagnosticSeverity.Information)]
    scope = found[0].range
    assert (scope.start.line, scope.start.character, scope.end.line, scope.end.character) == (
        13,
        8,
        15,
        61,
    )
    assert found[0].message.startswith("this kernel scope is split into a cube kernel and a")
