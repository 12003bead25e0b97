"""Distributed (pld) ops have no lowering on either target, nor cross-core pipe ops on CCE: each
call gets a precise E400 naming its op and what is missing, never a crash or a silent omission.
On PTO the pipe ops are written (tests/ptoas/test_ptoas_pipes.py has PTOAS accept them); the
forms it cannot write get their own E400."""

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
    ("cce", "ok_cross_core_pipe.py", PIPE_OPS, "ptoc does not lower cross-core pipes to CCE yet"),
    ("cce", "ok_ring_program.py", PLD_OPS, "ptoc does not lower distributed PyPTO (pld) yet"),
    ("pto", "ok_ring_program.py", PLD_OPS, "ptoc does not lower distributed PyPTO (pld) yet"),
]


@pytest.mark.parametrize(
    ("target", "name", "ops", "why"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
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


def messages(name: str, target: str, **options: str) -> dict[str, str]:
    text = (DATA / name).read_text(encoding="utf-8")
    result = driver.compile_source(text, target, path=name, **options)  # type: ignore[arg-type]
    found = {}
    for d in result.diagnostics:
        m = re.match(r"'?([\w.]+)'?(?: has no|:)", d.message)
        assert m is not None, d.message
        found[m.group(1)] = d.message
    return found


def test_the_cce_e400_of_a_pipe_op_says_the_pto_target_writes_it() -> None:
    cce = messages("ok_cross_core_pipe.py", "cce")
    assert all("TPUSH / TPOP / TFREE need a TPipe" in m for m in cce.values())
    assert all(m.endswith("(the PTO target writes them)") for m in cce.values())


def test_the_pto_forms_ptoc_cannot_write_get_their_own_e400() -> None:
    assert messages("ok_cross_core_pipe.py", "pto") == {
        "system.reserve_buffer": "system.reserve_buffer: base=4096 has no PTO form here: PTOAS "
        "plans the local addresses in ptoc's flow (leave base out, or pl.AUTO)"
    }
    text = (DATA / "ok_cross_core_pipe.py").read_text(encoding="utf-8")
    text = text.replace(", base=0x1000", "").replace("FunctionType.AIC", "FunctionType.InCore")
    result = driver.compile_source(text, "pto", path="p.py")
    assert [d.message for d in result.diagnostics] == [
        "system.reserve_buffer: PTOAS places a reserved FIFO on one core: write it in an AIC or "
        "AIV function (pl.FunctionType.AIC / AIV)"
    ]
    text = (Path(__file__).parents[1] / "ptoas" / "v057" / "pipes.py").read_text("utf-8")
    result = driver.compile_source(text, "pto", path="k.py", ptoas_version="0.27")
    assert {d.code for d in result.diagnostics} == {"E400"}
    assert len(result.diagnostics) == 14  # every pipe op of the two kernels (7 each)
    assert result.diagnostics[0].message.endswith(
        "ptoc writes cross-core pipes for PTOAS v0.57 (pipe ids, slot counts); PTOAS v0.27 "
        "spells them without"
    )


def test_the_pto_text_of_a_pipe() -> None:
    text = (Path(__file__).parents[1] / "ptoas" / "v057" / "pipes.py").read_text("utf-8")
    result = driver.compile_source(text, "pto", path="k.py")
    assert result.diagnostics == []
    lines = [line.strip() for line in result.text.splitlines()]
    assert (
        "%pipe_slots1: !pto.ptr<i8>) attributes {pto.entry, pto.kernel_kind = "
        "#pto.kernel_kind<vector>} {" in lines
    )
    assert (
        '%4 = pto.reserve_buffer {name = "c2v", size = 2048, location = '
        "#pto.address_space<vec>, auto = true} -> i32" in lines
    )
    assert (
        "pto.aiv_initialize_pipe {id = 1, dir_mask = 1, slot_size = 1024, slot_num = 2, "
        "local_slot_num = 2}" in lines
    )
    assert (
        "(gm_slot_buffer = %pipe_slots1 : !pto.ptr<i8>, c2v_consumer_buf = %4 : i32, "
        "v2c_consumer_buf = %c0_i32 : i32)" in lines
    )
    assert any(
        line.startswith("pto.tpush_to_aic(%") and line.endswith("{id = 0, split = 0}")
        for line in lines
    )


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
