"""PTOAS for the tests here: ``--ptoas PATH``, else ``$PTOAS``, else the vendor copy beside the
repository (``../shared/vendor/ptoas/ptoas``). Without it the tests skip with the reason,
except under ``CI=true``, where a missing PTOAS is a failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas
from ptoc.run.simulator import Toolchain
from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

CACHE = Path(__file__).resolve().parents[2] / ".cache" / "ptoc-exec"


@pytest.fixture(scope="session")
def ptoas(request: pytest.FixtureRequest) -> Path:
    try:
        return find_ptoas(request.config.getoption("--ptoas"))
    except PtoasMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS is missing: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    """pto-isa's CPU simulator, found as tests/execution finds it."""
    try:
        return Toolchain(find_compiler(), find_pto_isa(None), CACHE)
    except ToolMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))
