"""Every ``@pl.jit`` entry of today's upstream examples (``../shared/pypto-2026-08/examples``,
read in place) that a call in its file specialises (issue #27): it compiles for that
specialisation to CCE C++ and to PTO MLIR that PTOAS v0.57 accepts, and its orchestration
with its kernels runs on pto-isa's CPU simulator matching the reference interpreter
(``run_end_to_end``: executables cached by content hash, as the other execution tests)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ptoc import driver
from ptoc.cli import analyze
from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas
from ptoc.diagnostics import Severity

from .bench import Bench
from .matrix import NO_SIM_BF16
from .test_orchestration import run_end_to_end

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "pypto-2026-08" / "examples"

# Entries that do not compile today, and why (each is an xfail that must keep failing): none
# since mat_split_k / mat_full_k compile (block.insert into a Mat tile) and mixed_matmul_bias /
# _lr are split into a cube and a vector kernel (passes/mixed_scopes.py).
NOT_COMPILED: dict[str, str] = {
    # specialised since kernel.lower(*samples) / kernel.compile(...) are calls of the kernel
    **{
        f"distributed/{key}": "pld's communication ops have no lowering (E400)"
        for key in (
            "04_barrier.py::barrier_program_builtin",
            "04_barrier.py::barrier_program_hand",
            "05_remote_load_store.py::ring_shift_load",
            "05_remote_load_store.py::ring_shift_store",
            "06_put_get.py::ring_get",
            "06_put_get.py::ring_put",
            "07_dynamic_rank_count.py::ring_get",
            "07_dynamic_rank_count.py::ring_put",
        )
    },
    "intermediate/05_assemble.py::tile_assemble_acc_mat": (
        "an Acc -> Mat pl.tile.assemble has no lowering (E400; TINSERT converts on the FIX pipe)"
    ),
    "intermediate/07_task_graph.py::declared_edge": (
        "deps= (TaskId edges) has no lowering to the PTO2 runtime's task submission (E400)"
    ),
}
# Compiles to CCE, not to PTO.
NO_PTO: dict[str, str] = {}  # (staged_matmul_bias compiles since tensor.assemble lowers)
# Compiles to PTO MLIR that PTOAS v0.57 rejects (E405). None since dyn_valid_shape_if_else's
# branches no longer cast the outer scalars they yield (PTOAS aborted on it; see
# codegen/pto/statements.py, _convert_passed_on) and fits_l0c_split_k's second
# matmul allocates its Right tile after the K-loop, where the loop's 64 KB Right slice is dead
# (codegen/pto/lifetimes.py; before, "right overflow": 64 + 16 KB of L0B's 64 KB).
PTOAS_REJECTS: dict[str, str] = {}
# A reshape of a loaded tile must share its source buffer (passes/init_memref.py): entries
# that fail only for want of it (none since it does).
NEEDS_RESHAPE_ALIAS: dict[str, str] = {}  # (rms_norm and layer_norm run since it was)
# Entries whose BF16 pto-isa's CPU simulator holds as _Float16 (the FP16 chain of
# test_folded_cast.py runs the same shapes).
SIM_BF16 = {
    f"advanced/02_auto_tile_matmul.py::{name}": NO_SIM_BF16
    for name in ("fits_l0c_full_k", "fits_l0c_split_k", "mat_split_k", "mat_full_k")
}
# Entries whose host code compiles but a kernel they launch does not.
NOT_RUN: dict[str, str] = {  # (staged_matmul_bias runs since tensor.assemble lowers)
    # host functions (@pl.jit.host): ptoc generates the chip programs they launch (I010)
    **{
        key: "runs on the host (I010): ptoc run --sim refuses it"
        for key in (
            "distributed/01_hello_rank.py::hello_rank",
            "distributed/02_programming_model.py::host_orch",
            "distributed/03_window_buffer.py::window_program",
            "runtime/multi_program_kv_cache.py::prefill",
            "runtime/multi_program_kv_cache.py::decode",
        )
    },
    "models/qwen3_jit/qwen3_decode.py::qwen3_decode": (
        "BF16 (the simulator's _Float16), and seq_lens drawn at random index past rope_cos"
    ),
}
# Inputs an entry's meaning needs (upstream's __main__ values); the rest are drawn at random.
GIVEN: dict[str, dict[str, np.ndarray]] = {
    "intermediate/06_dyn_valid_shape.py::dyn_valid_shape": {"vlen": np.array(32, np.int64)},
    "intermediate/06_dyn_valid_shape.py::dyn_valid_shape_if_else": {
        "cfg": np.array([1, 48, 64], np.int64)
    },
    "intermediate/06_dyn_valid_shape.py::dyn_valid_shape_loop": {
        "cfg": np.array([2, 48, 64], np.int64)
    },
}


def specialised_entries() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    found: list[str] = []
    for path in sorted(EXAMPLES.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "@pl.jit" not in text:
            continue
        analysis = analyze(text, str(path))
        relative = path.relative_to(EXAMPLES).as_posix()
        found += [f"{relative}::{name}" for name, p in analysis.jit_specialisations.items() if p]
    return found


ENTRIES = specialised_entries()
# 35 before kernel.lower / kernel.compile, tables of cases and chosen kernels were read as calls
COUNT = 63
RUNNABLE = [key for key in ENTRIES if key not in NOT_COMPILED]


def marked(keys: list[str], known: dict[str, str]) -> list[object]:
    return [
        pytest.param(
            key,
            id=key,
            marks=[pytest.mark.xfail(strict=True, reason=known[key])] if key in known else [],
        )
        for key in keys
    ]


def test_the_lists_name_specialised_entries() -> None:
    if not EXAMPLES.is_dir():
        pytest.skip("the upstream examples are not beside the repo")
    listed = {*NOT_COMPILED, *NO_PTO, *PTOAS_REJECTS, *NEEDS_RESHAPE_ALIAS, *NOT_RUN, *SIM_BF16}
    assert listed <= set(ENTRIES) and set(GIVEN) <= set(RUNNABLE)
    assert len(ENTRIES) == COUNT and len(RUNNABLE) == COUNT - len(NOT_COMPILED)


def compile_errors(key: str, target: str, ptoas: Path | None = None) -> list[str]:
    """The errors of compiling the entry (with ``ptoas``: PTOAS's verdict on the MLIR too)."""
    relative, name = key.split("::")
    path = EXAMPLES / relative
    analysis = analyze(path.read_text(encoding="utf-8"), str(path))
    result = driver.compile_source(analysis, target, name, path=str(path), ptoas=ptoas)
    assert result.programs or result.diagnostics
    return [d.format() for d in result.diagnostics if d.severity is Severity.ERROR]


@pytest.mark.parametrize("key", marked(ENTRIES, NOT_COMPILED))
def test_the_entry_compiles_to_cce_for_its_call(key: str) -> None:
    assert compile_errors(key, "cce") == []


@pytest.mark.parametrize("key", marked(ENTRIES, {**NOT_COMPILED, **NO_PTO}))
def test_the_entry_compiles_to_pto_for_its_call(key: str) -> None:
    assert compile_errors(key, "pto") == []


@pytest.fixture(scope="module")
def ptoas(request: pytest.FixtureRequest) -> Path:
    """PTOAS: ``--ptoas``, else found as ``ptoc compile --verify`` finds it (v0.57)."""
    try:
        return find_ptoas(request.config.getoption("--ptoas"))
    except PtoasMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS is missing: {exc}")
        pytest.skip(str(exc))


@pytest.mark.parametrize("key", marked(ENTRIES, {**NOT_COMPILED, **NO_PTO, **PTOAS_REJECTS}))
def test_ptoas_accepts_the_entrys_mlir(key: str, ptoas: Path) -> None:
    assert compile_errors(key, "pto", ptoas) == []


@pytest.mark.parametrize("key", marked(RUNNABLE, {**NEEDS_RESHAPE_ALIAS, **NOT_RUN, **SIM_BF16}))
def test_the_entry_runs_on_the_simulator_as_on_the_interpreter(key: str, bench: Bench) -> None:
    relative, name = key.split("::")
    path = EXAMPLES / relative
    source = path.read_text(encoding="utf-8")
    assert run_end_to_end(bench, source, name, GIVEN.get(key), str(path)) == []
