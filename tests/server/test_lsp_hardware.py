"""The hardware view over LSP: ptols/sourceMap, ptols/memoryMap, sync inlay hints, CodeLens,
hover notes (ptols/run is in test_lsp_run.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import KERNEL, open_document, position_of
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient


def rng(line: int, start: int, end_line: int, end: int) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": line, "character": start},
        "end": {"line": end_line, "character": end},
    }


async def request(client: LanguageClient, method: str, uri: str, **fields: Any) -> Any:
    return await client.protocol.send_request_async(
        method, {"textDocument": {"uri": uri}, **fields}
    )


def plain(value: Any) -> Any:
    """pygls hands custom results back as attribute objects: as plain data."""
    if hasattr(value, "_asdict"):  # pygls's named tuples for untyped objects
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


async def test_source_map_of_cce_matches_the_preview(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    mapped = plain(await request(client, "ptols/sourceMap", uri, target="cce", function="kernel"))
    preview = await request(client, "ptols/preview", uri, target="cce", function="kernel")
    assert mapped["content"] == preview.content and mapped["version"] == 1
    lines = mapped["content"].split("\n")
    tadd = lines.index("    TADD(tile_c, tile_a, tile_b);")
    (entry,) = [e for e in mapped["entries"] if e["generated"]["endLine"] == tadd]
    assert entry == {
        "generated": {"startLine": tadd - 2, "endLine": tadd},  # set_flag, wait_flag, TADD
        "source": rng(14, 8, 14, 39),  # tile_c = pl.add(tile_a, tile_b)
    }
    assert lines[tadd - 2].strip() == "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);"
    starts = [e["generated"]["startLine"] for e in mapped["entries"]]
    assert starts == sorted(starts)


async def test_source_map_of_mlir_for_one_function(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    mapped = plain(await request(client, "ptols/sourceMap", uri, target="pto", function="kernel"))
    lines = mapped["content"].split("\n")
    tadd = next(i for i, line in enumerate(lines) if "pto.tadd" in line)
    (entry,) = [
        e
        for e in mapped["entries"]
        if e["generated"]["startLine"] <= tadd <= e["generated"]["endLine"]
    ]
    assert entry["source"] == rng(14, 8, 14, 39)
    with pytest.raises(JsonRpcException, match="no function 'kernal'"):
        await request(client, "ptols/sourceMap", uri, target="pto", function="kernal")


async def test_memory_map_of_a_known_kernel(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    found = plain(await request(client, "ptols/memoryMap", uri, function="kernel"))
    assert found["version"] == 1 and found["diagnostics"] == []
    (fn,) = found["functions"]
    assert (fn["name"], fn["range"]["start"], fn["statements"]) == (
        "kernel",
        {"line": 6, "character": 4},
        5,
    )
    assert fn["spaces"] == [{"space": "Vec", "capacity": 196608, "used": 49152, "overflow": False}]
    assert [
        (
            b["name"],
            b["space"],
            b["start"],
            b["size"],
            b["firstUse"]["index"],
            b["lastUse"]["index"],
        )
        for b in fn["buffers"]
    ] == [
        ("tile_a", "Vec", 0, 16384, 0, 2),
        ("tile_b", "Vec", 16384, 16384, 1, 2),
        ("tile_c", "Vec", 32768, 16384, 2, 3),
    ]
    tile_c = fn["buffers"][2]
    assert tile_c["firstUse"]["range"] == rng(14, 8, 14, 39)
    assert tile_c["lastUse"]["range"] == rng(15, 8, 15, 56)
    assert (tile_c["reuseGroup"], tile_c["dtype"], tile_c["shape"]) == (None, "FP32", [64, 64])
    everything = plain(await request(client, "ptols/memoryMap", uri))
    # main calls the kernel, which the pipeline inlines there: main has those tiles too
    assert [f["name"] for f in everything["functions"]] == ["kernel", "main"]


async def test_memory_map_shows_an_overflow(client: LanguageClient, tmp_path: Path):
    big = KERNEL.replace("[64, 64]", "[256, 256]")
    uri = await open_document(client, tmp_path / "k.py", big)
    found = plain(await request(client, "ptols/memoryMap", uri, function="kernel"))
    (fn,) = found["functions"]
    assert fn["spaces"] == [{"space": "Vec", "capacity": 196608, "used": 786432, "overflow": True}]
    assert [d["code"] for d in found["diagnostics"]] == ["E402"]


async def all_hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(30, 0)),
        )
    )
    return list(found or [])


async def hints_labelled(client: LanguageClient, uri: str, prefix: str) -> list[types.InlayHint]:
    """The hints whose label starts with ``prefix``, once there are some (the facts they come
    from are computed once the document is idle)."""
    hints: list[types.InlayHint] = []
    for _ in range(200):
        hints = [h for h in await all_hints(client, uri) if str(h.label).startswith(prefix)]
        if hints:
            break
        await asyncio.sleep(0.05)
    return hints


async def sync_hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    return await hints_labelled(client, uri, "⇄")


async def turn_off(
    client: LanguageClient, uri: str, setting: str, prefix: str
) -> list[types.InlayHint]:
    """Sets ``inlayHints.<setting>`` false; once the hints starting with ``prefix`` are gone,
    the hints left."""
    client.set_configuration({"inlayHints": {"enabled": True, setting: False}}, section="ptoc")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ptoc": {"inlayHints": {setting: False}}})
    )
    for _ in range(100):
        left = await all_hints(client, uri)
        if not [h for h in left if str(h.label).startswith(prefix)]:
            return left
        await asyncio.sleep(0.05)
    raise AssertionError(f"{prefix} hints still shown with inlayHints.{setting} false")


async def test_sync_inlay_hints(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hints = await sync_hints(client, uri)
    lines = KERNEL.split("\n")
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [
        (14, len(lines[14]), "⇄ MTE2→V"),
        (15, len(lines[15]), "⇄ V→MTE3"),
    ]
    tooltip = hints[0].tooltip
    assert isinstance(tooltip, types.MarkupContent)
    assert "`set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)`" in tooltip.value
    await turn_off(client, uri, "sync", "⇄")


async def test_code_lens_above_incore_functions(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert lenses is not None
    name = position_of(KERNEL, "kernel(")
    assert [
        (lens.range.start.line, lens.range.start.character, lens.command.title)
        for lens in lenses
        if lens.command is not None and not lens.command.title.startswith("≈")  # cycles: later
    ] == [(name.line, name.character, title) for title in ("C++", "MLIR", "Memory", "Run")]
    for _ in range(400):  # once the facts are known the client is told to refresh
        if client.code_lens_refreshes:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.05)
    assert client.code_lens_refreshes >= 1  # type: ignore[attr-defined]
    commands = [
        (lens.command.command, list(lens.command.arguments or []))
        for lens in lenses
        if lens.command and not lens.command.title.startswith("≈")
    ]
    assert commands == [
        ("ptols.showPreview", [uri, "cce", "kernel"]),
        ("ptols.showPreview", [uri, "pto", "kernel"]),
        ("ptols.showMemoryMap", [uri, "kernel"]),
        ("ptols.runFunction", [uri, "kernel"]),
    ]


async def hover_text(client: LanguageClient, uri: str, needle: str) -> str:
    """The hover's text at the first ``needle`` of KERNEL."""
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, needle))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hover_shows_address_and_generated_code(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    await sync_hints(client, uri)  # the facts are known once the hints are
    text = await hover_text(client, uri, "tile_b = ")
    assert "address: `Vec [0x4000, 0x8000)` · 16384 B" in text
    assert "generated (CCE):\n```cpp\n" in text
    assert "TLOAD(tile_b, bGlobal);" in text
