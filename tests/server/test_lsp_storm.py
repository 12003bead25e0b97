"""The seeded storm of issue #33 at CI length (storm.py): 2026-03 programs, the upstream 2026-08
examples and generated ones (JIT kernels with odd torch call sites and huge signatures, task
graphs with ``pl.at`` regions and with ``pl.submit``, distributed programs with window buffers
and ``device=r``, deep ``pl.at`` nesting with odd name-hint strings), every request the server
registers sent mid-edit, in both editions (chosen by the folder's pyproject.toml, as for `ptoc
check`) and with each file's spellings deciding.

Runs PTOLS_STORM_SECONDS per edition (default 6; 14 when CI=true) from PTOLS_STORM_SEED
(default 33). benchmarks/lsp_storm.py runs the 6,000-edit storm and the 100,000-edit soak.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from storm import Storm, handled_requests, programs

SECONDS = float(
    os.environ.get("PTOLS_STORM_SECONDS", "14" if os.environ.get("CI") == "true" else "6")
)
SEED = int(os.environ.get("PTOLS_STORM_SEED", "33"))


def test_the_storm_sends_the_new_requests_too() -> None:
    """The request list is the server's own: the custom requests are in it."""
    methods = set(handled_requests())
    assert {"ptols/preview", "ptols/timeline", "ptols/memoryMap", "ptols/run"} <= methods
    assert {"ptols/taskGraph", "ptols/passDiff", "ptols/specialisations"} <= methods
    assert {"ptols/instruction", "ptols/sourceMap", "ptols/textDigest"} <= methods
    assert {"textDocument/hover", "callHierarchy/incomingCalls"} <= methods
    assert "textDocument/didChange" not in methods and "exit" not in methods


def test_the_storm_pastes_today_s_forms() -> None:
    """The pastes hold each of today's forms (#33): upstream examples read in place, JIT
    kernels with torch call sites, `pl.submit` task graphs, `pld` window rings with
    `device=r`, odd `name_hint` strings inside `pl.at`, huge signatures."""
    pastes = programs(random.Random(SEED), 40)
    wanted = {
        "upstream": "pypto.ir.distributed_compiled_program",
        "jit call site": "torch.",
        "submit": "pl.submit(self.scale",
        "spmd submit": "pl.spmd_submit(",
        "task id array": "pl.array.create(",
        "window ring": "pld.alloc_window_buffer(",
        "device dispatch": "device=r)",
        "odd name hint": 'name_hint=f"s{0}"',
        "deep pl.at": "            with pl.at(level=pl.Level.CORE_GROUP",
        "huge signature": "p199: pl.Tensor",
    }
    assert {k: any(v in p for p in pastes) for k, v in wanted.items()} == dict.fromkeys(
        wanted, True
    )


@pytest.mark.parametrize("edition", ["2026-03", "2026-08", "auto"])
def test_seeded_storm_keeps_every_invariant(tmp_path: Path, edition: str) -> None:
    storm = Storm(tmp_path, SEED, None if edition == "auto" else edition)
    report = storm.run(seconds=SECONDS)
    assert report.problems() == {
        "desyncs": [],
        "stale": [],
        "hangs": [],
        "internal": [],
        "logged": [],
        "tracebacks": [],
        "mismatches": [],
        "dead": [],
    }
    assert set(report.methods) == set(handled_requests())
    assert report.edits > 100
