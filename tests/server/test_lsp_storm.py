"""The seeded storm of issue #33 at CI length (storm.py): 2026-03 programs, the upstream 2026-08
examples and generated ones (JIT kernels with odd torch call sites and huge signatures, task
graphs, distributed programs, deep ``pl.at`` nesting), every request the server registers sent
mid-edit, in both editions (chosen by the folder's pyproject.toml, as for `ptoc check`) and with
each file's spellings deciding.

Runs PTOLS_STORM_SECONDS per edition (default 6; 14 when CI=true) from PTOLS_STORM_SEED
(default 33). benchmarks/lsp_storm.py runs the 6,000-edit storm and the 100,000-edit soak.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from storm import Storm, handled_requests

SECONDS = float(
    os.environ.get("PTOLS_STORM_SECONDS", "14" if os.environ.get("CI") == "true" else "6")
)
SEED = int(os.environ.get("PTOLS_STORM_SEED", "33"))


def test_the_storm_sends_the_new_requests_too() -> None:
    """The request list is the server's own: the custom requests are in it."""
    methods = set(handled_requests())
    assert {"ptols/preview", "ptols/timeline", "ptols/memoryMap", "ptols/run"} <= methods
    assert {"textDocument/hover", "callHierarchy/incomingCalls"} <= methods
    assert "textDocument/didChange" not in methods and "exit" not in methods


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
