"""The predicted timeline over LSP: ptols/timeline, per-line cycle hints, the hover line and
the ``≈ N cycles`` CodeLens, on KERNEL (64 x 64 FP32: two loads, an add, a store).

The figures are the cost model's (tests/timeline holds them to pto-isa's __COSTMODEL build):
each TLOAD 279 cycles on MTE2, TADD 138 on V, TSTORE 149 on MTE3, 848 in all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import KERNEL, open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_lsp_hardware import hints_labelled, hover_text, plain, request, rng, turn_off

from ptoc.run.toolchain import ToolMissing, find_pto_isa


@pytest.fixture(autouse=True)
def pto_isa() -> None:
    try:
        find_pto_isa(None)
    except ToolMissing as exc:  # as the execution suite: only CI must have it
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))


async def test_timeline_of_a_known_kernel(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    found = plain(await request(client, "ptols/timeline", uri, function="kernel"))
    assert (found["version"], found["frequencyHz"], found["message"]) == (1, 1.85e9, "")
    (fn,) = found["functions"]
    assert (fn["name"], fn["range"]["start"], fn["total"]) == (
        "kernel",
        rng(6, 4, 6, 4)["start"],
        848,
    )
    assert fn["lanes"] == [
        {"pipe": "MTE2", "busy": 558, "utilisation": 0.658},
        {"pipe": "MTE3", "busy": 149, "utilisation": 0.1757},
        {"pipe": "V", "busy": 138, "utilisation": 0.1627},
    ]
    assert [
        (i["name"], i["pipe"], i["start"], i["cycles"], i["line"]) for i in fn["instructions"]
    ] == [
        ("TLOAD", "MTE2", 3, 279, 12),
        ("TLOAD", "MTE2", 282, 279, 13),
        ("TADD", "V", 561, 138, 14),
        ("TSTORE", "MTE3", 699, 149, 15),
    ]
    assert fn["arrows"] == [
        {
            "signal": "MTE2",
            "wait": "V",
            "setTime": 561,
            "waitTime": 561,
            "setLine": 14,
            "waitLine": 14,
        },
        {
            "signal": "V",
            "wait": "MTE3",
            "setTime": 699,
            "waitTime": 699,
            "setLine": 15,
            "waitLine": 15,
        },
    ]
    assert fn["criticalPath"] == [0, 1, 2, 3]
    assert fn["bottleneck"] == "MTE2"
    # MTE2 never waits: the longest wait of any pipe is MTE3's for the add
    assert fn["longestWait"] == {
        "pipe": "MTE3",
        "signal": "V",
        "cycles": 696,
        "waitLine": 15,
        "setLine": 15,
    }
    assert fn["notes"] == []
    everything = plain(await request(client, "ptols/timeline", uri))
    # main calls the kernel, which the pipeline inlines there
    assert [(f["name"], f["total"]) for f in everything["functions"]] == [
        ("kernel", 848),
        ("main", 848),
    ]


async def cycle_hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    return await hints_labelled(client, uri, "≈")


async def test_cycle_hints_on_each_line_with_pipe_work(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hints = await cycle_hints(client, uri)
    lines = KERNEL.split("\n")
    assert [(h.position.line, h.position.character, h.label, h.tooltip) for h in hints] == [
        (12, len(lines[12]), "≈ 279 cycles (MTE2)", "MTE2 279 cycles, 33 % of the kernel"),
        (13, len(lines[13]), "≈ 279 cycles (MTE2)", "MTE2 279 cycles, 33 % of the kernel"),
        (14, len(lines[14]), "≈ 138 cycles (V)", "V 138 cycles, 16 % of the kernel"),
        (15, len(lines[15]), "≈ 149 cycles (MTE3)", "MTE3 149 cycles, 18 % of the kernel"),
    ]
    left = await turn_off(client, uri, "cycles", "≈")
    assert "⇄ MTE2→V" in [str(h.label) for h in left]  # the sync hints stay


async def test_hover_line_on_a_kernel_statement(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    await cycle_hints(client, uri)  # the facts are known once the hints are
    text = await hover_text(client, uri, "tile_c = ")
    assert "\n\npredicted: V 138 cycles, 16 % of the kernel\n\n" in text
    assert "predicted:" not in await hover_text(client, uri, "out: pl")


async def test_cycles_lens_opens_the_timeline(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    await cycle_hints(client, uri)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    name = position_of(KERNEL, "kernel(")
    found: list[Any] = [
        (
            lens.range.start,
            lens.command.title,
            lens.command.command,
            list(lens.command.arguments or []),
        )
        for lens in lenses or []
        if lens.command is not None and lens.command.title.startswith("≈")
    ]
    assert found == [(name, "≈ 848 cycles", "ptols.showTimeline", [uri, "kernel"])]
