"""Cross-core pipe ops and distributed (pld) ops have no lowering on either target yet: each call
gets a precise E400 naming its op and what is missing, never a crash or a silent omission."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity

DATA = Path(__file__).parent.parent / "data" / "pipes"
PIPE_OPS = [
    (8, "system.import_peer_buffer"),
    (9, "system.aiv_initialize_pipe"),
    (11, "system.tpush_to_aic"),
    (15, "system.reserve_buffer"),
    (16, "system.aic_initialize_pipe"),
    (17, "system.tpop_from_aiv"),
    (19, "system.tfree_to_aiv"),
]
PLD_OPS = [
    (14, "pld.system.get_comm_ctx"),
    (15, "pld.system.rank"),
    (15, "pld.system.nranks"),
    (16, "pld.tile.remote_load"),
    (18, "pld.tensor.barrier"),
    (19, "pld.tensor.put"),
    (20, "pld.system.notify"),
    (21, "pld.system.wait"),
    (22, "pld.tile.remote_store"),
]
CASES = [
    ("ok_cross_core_pipe.py", PIPE_OPS, "ptoc does not lower cross-core pipes yet"),
    ("ok_ring_program.py", PLD_OPS, "ptoc does not lower distributed PyPTO (pld) yet"),
]


@pytest.mark.parametrize("target", ["cce", "pto"])
@pytest.mark.parametrize(("name", "ops", "why"), CASES, ids=[c[0] for c in CASES])
def test_every_call_gets_an_e400_naming_its_op(
    target: str, name: str, ops: list[tuple[int, str]], why: str
) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    result = driver.compile_source(text, target, path=name)
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    assert {d.code for d in errors} == {"E400"}
    found = [
        (d.span.line, re.match(r"'?([\w.]+)'? has no (?:CCE|PTO) lowering", d.message))
        for d in errors
    ]
    assert [(line, m.group(1) if m else None) for line, m in found] == ops
    assert all(why in d.message for d in errors)


PTOAS_SPELLING = {
    "system.import_peer_buffer": "pto.import_reserved_buffer",
    "system.aiv_initialize_pipe": "pto.aiv_initialize_pipe",
    "system.tpush_to_aic": "pto.tpush_to_aic",
    "system.reserve_buffer": "pto.reserve_buffer",
    "system.aic_initialize_pipe": "pto.aic_initialize_pipe",
    "system.tpop_from_aiv": "pto.tpop_from_aiv",
    "system.tfree_to_aiv": "pto.tfree_from_aiv",
}


def messages(name: str, target: str) -> dict[str, str]:
    text = (DATA / name).read_text(encoding="utf-8")
    result = driver.compile_source(text, target, path=name)
    found = {}
    for d in result.diagnostics:
        m = re.match(r"'?([\w.]+)'? has no", d.message)
        assert m is not None
        found[m.group(1)] = d.message
    return found


def test_the_pto_e400_of_a_pipe_op_names_its_ptoas_spelling_and_what_is_missing() -> None:
    found = messages("ok_cross_core_pipe.py", "pto")
    for op, spelled in PTOAS_SPELLING.items():
        assert (
            f"PTOAS v0.57 spells it {spelled}, and on A2/A3 the pipe's setup needs a GM "
            in (found[op])
        )
    cce = messages("ok_cross_core_pipe.py", "cce")
    assert all("TPUSH / TPOP / TFREE need a TPipe" in m for m in cce.values())


def test_the_e400_of_a_pld_op_says_what_it_lacks() -> None:
    found = messages("ok_ring_program.py", "pto")
    assert found["pld.tensor.put"].endswith(
        "PTOAS v0.57's pto.comm.tput needs a kernel parameter for the communication context, "
        "which ptoc's PTO signatures lack)"
    )
    assert "composite of notify / wait / put" in found["pld.tensor.barrier"]
    cce = messages("ok_ring_program.py", "cce")
    assert cce["pld.tile.remote_load"].endswith(
        "the kernel would need the communication context (the peers' window addresses)"
    )
