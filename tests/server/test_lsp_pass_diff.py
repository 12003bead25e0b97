"""The pass explorer over LSP: ptols/passDiff on a known kernel (issue #31)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import KERNEL, open_document
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from test_lsp_hardware import plain, request, rng

PASSES = [
    "ConvertToSSA",
    "FlattenCalls",
    "OutlineIncoreScopes",
    "InlineCalls",
    "ConvertTensorToBlockOps",
    "Verifier",
    "AddReductionScratch",
    "InitMemRef",
    "MemoryReuse",
    "InsertSync",
    "AllocateMemoryAddr",
]


async def pass_diff(client: LanguageClient, uri: str, **fields: Any) -> dict[str, Any]:
    found: dict[str, Any] = plain(await request(client, "ptols/passDiff", uri, **fields))
    return found


async def test_every_pass_with_its_counts_and_the_distinct_stages(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    found = await pass_diff(client, uri, function="kernel")
    assert (found["version"], found["pipeline"], found["diagnostics"]) == (1, "default", [])
    (program,) = found["programs"]
    assert program["program"] == "Demo"
    passes = program["passes"]
    assert [p["name"] for p in passes] == PASSES
    counts = [(p["before"], p["after"], p["added"], p["removed"]) for p in passes]
    assert counts == [(0, 0, 0, 0)] * 7 + [(0, 1, 17, 9), (1, 1, 0, 0), (1, 2, 12, 0), (2, 3, 3, 3)]
    assert [s["name"] for s in program["stages"]] == [
        "input",
        "InitMemRef",
        "InsertSync",
        "AllocateMemoryAddr",
    ]
    insert_sync = passes[9]
    assert insert_sync["description"] != ""
    assert insert_sync["changes"] == [[21, 21, 21, 27], [24, 24, 30, 36]]


async def test_the_stages_are_what_dump_passes_writes_and_keep_the_source_map(
    client: LanguageClient, tmp_path: Path
):
    path = tmp_path / "k.py"
    uri = await open_document(client, path, KERNEL)
    found = await pass_diff(client, uri, function="kernel")
    (program,) = found["programs"]
    dump = tmp_path / "dump"
    subprocess.run(
        [sys.executable, "-m", "ptoc", "compile", str(path), "--target", "ir"]
        + ["--function", "kernel", "--dump-passes", str(dump)],
        check=True,
        capture_output=True,
    )
    files = sorted(dump.iterdir())
    assert program["stages"][2]["content"] == files[10].read_text(encoding="utf-8")  # InsertSync
    after = program["stages"][2]
    lines = after["content"].split("\n")
    assert lines[21:27][0] == "        pl.system.sync_src("
    # the sync InsertSync added before tile_c = pl.add(...) maps to that statement
    (entry,) = [
        e
        for e in after["entries"]
        if e["generated"]["startLine"] <= 21 <= e["generated"]["endLine"]
    ]
    assert entry["source"] == rng(14, 8, 14, 39)


async def test_pipeline_and_function_are_checked(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    ptoas = await pass_diff(client, uri, function="kernel", pipeline="ptoas")
    assert ptoas["pipeline"] == "ptoas"
    names = [p["name"] for p in ptoas["programs"][0]["passes"]]
    assert "InsertSync" not in names and names[0] == "ConvertToSSA"
    with pytest.raises(JsonRpcException, match="no function 'kernal'"):
        await pass_diff(client, uri, function="kernal")


async def test_a_program_too_large_for_a_live_pass_diff_is_told_at_once(
    client: LanguageClient, tmp_path: Path
):
    """#33: a 2,000-submit orchestration made the pass explorer print and diff ~900 KB per
    stage (over 10 s, a ~20 MB answer); above 1,000 IR statements the answer is a W900."""
    sys.path.insert(0, str(Path(__file__).parent))
    import today

    source = today.submit_graph(random.Random(1), 400)
    uri = await open_document(client, tmp_path / "g.py", source)
    started = time.monotonic()
    found = await pass_diff(client, uri, function="main")
    assert time.monotonic() - started < 1.0
    assert found["programs"] == []
    assert [(d["code"], d["message"]) for d in found["diagnostics"]] == [
        (
            "W900",
            "the programs have 1,216 statements: the live pass diff stops at 1,000 "
            "(`ptoc compile --target ir --pass-diff` still shows it)",
        )
    ]
    small = await open_document(client, tmp_path / "s.py", today.submit_graph(random.Random(1), 8))
    assert [
        p["program"] for p in (await pass_diff(client, small, function="main"))["programs"]
    ] == ["Tasks"]
