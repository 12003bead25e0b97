"""Preview hovers' facts over LSP: ptols/instruction answers from the op registry (issue #31)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient
from test_lsp_hardware import plain

from ptoc.driver import compile_file
from ptoc.instructions import lookup

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def instruction(client: LanguageClient, **params: Any) -> list[dict[str, Any]]:
    found = plain(await client.protocol.send_request_async("ptols/instruction", params))
    entries: list[dict[str, Any]] = found["entries"]
    return entries


async def test_tadd_is_block_add_on_the_v_pipe(client: LanguageClient):
    (entry,) = await instruction(client, name="TADD", target="cce")
    assert entry == {
        "instruction": "TADD",
        "target": "cce",
        "op": "block.add",
        "form": "",
        "description": "Element-wise addition of two tiles, with broadcasting.",
        "pipe": "V",
        "operands": [{"name": "lhs", "traits": "in Vec"}, {"name": "rhs", "traits": "in Vec"}],
        "attributes": [],
        "note": "the seed's three-operand block.add(a, b, c) is block.addc (TADDC)",
    }


async def test_mlir_spellings_variants_and_unknown_names(client: LanguageClient):
    (tload,) = await instruction(client, name="pto.tload")
    assert (tload["target"], tload["op"], tload["pipe"]) == ("pto", "block.load", "MTE2")
    assert [o["name"] for o in tload["operands"]] == ["tensor", "offsets", "shapes"]
    both = await instruction(client, name="TROWEXPANDADD", target="cce")
    assert [(e["op"], e["form"]) for e in both] == [
        ("block.add", "row vector rhs"),
        ("block.row_expand_add", ""),
    ]
    (sync,) = await instruction(client, name="set_flag", target="cce")
    assert (sync["op"], sync["attributes"]) == (
        "system.sync_src",
        ["set_pipe", "wait_pipe", "event_id"],
    )
    assert await instruction(client, name="TNOSUCH") == []
    # C++ writes TADD, MLIR pto.tadd: the case is not asked
    assert [e["op"] for e in await instruction(client, name="tadd", target="cce")] == ["block.add"]


def test_every_instruction_the_cce_generator_writes_for_the_examples_is_known():
    called = re.compile(r"\b(T[A-Z_]+)\(")
    for example in ("simple_add.py", "loop_sum.py", "block_computation.py", "tensor_attention.py"):
        path = EXAMPLES / example
        result = compile_file(str(path), "cce")
        names = set(called.findall(result.text))
        assert names, example
        # TASSIGN binds a tile to the address AllocateMemoryAddr gave it: no op lowers to it
        assert [n for n in sorted(names - {"TASSIGN"}) if not lookup(n, "cce")] == [], example
