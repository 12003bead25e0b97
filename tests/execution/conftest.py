"""Execution tests: generated C++ on pto-isa's CPU simulator against the reference.

The tools come from ``ptoc.run.toolchain`` (``PTO_ISA_ROOT``, else ``../shared/vendor/pto-isa``;
``CXX``, else clang++-19). Without them the tests skip with the reason, except under
``CI=true``, where a missing tool is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptoc.run.simulator import Toolchain
from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

from .bench import Bench

# Built kernels by content hash (gitignored); PTOC_CACHE_DIR moves it (benchmarks use a fresh one).
CACHE = Path(
    os.environ.get("PTOC_CACHE_DIR") or Path(__file__).resolve().parents[2] / ".cache" / "ptoc-exec"
)


@pytest.fixture(scope="session")
def bench() -> Bench:
    try:
        toolchain = Toolchain(find_compiler(), find_pto_isa(None), CACHE)
    except ToolMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))
    return Bench(toolchain)
