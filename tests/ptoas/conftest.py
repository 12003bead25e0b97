"""PTOAS for the tests here: ``--ptoas PATH``, else ``$PTOAS``, else the vendor copy of v0.57
beside the repository (``../shared/vendor/ptoas-v0.57/ptoas``); ``ptoas_each`` is every
supported version (v0.57, v0.27), each its vendor copy (or ``--ptoas``/``$PTOAS`` when that
is the version). Without it the tests skip with the reason, except under ``CI=true``, where
a missing PTOAS is a failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas, vendor_ptoas
from ptoc.codegen.pto.versions import VERSIONS
from ptoc.run.simulator import Toolchain
from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

CACHE = Path(__file__).resolve().parents[2] / ".cache" / "ptoc-exec"


@pytest.fixture(scope="session")
def ptoas(request: pytest.FixtureRequest) -> Path:
    try:
        return find_ptoas(request.config.getoption("--ptoas"))
    except PtoasMissing as exc:
        missing(exc)
        raise


@pytest.fixture(scope="session", params=VERSIONS, ids=[f"v{v}" for v in VERSIONS])
def ptoas_each(request: pytest.FixtureRequest) -> Path:
    version: str = request.param
    vendor = vendor_ptoas(version)
    if vendor.is_file():
        return vendor
    try:
        return find_ptoas(request.config.getoption("--ptoas"), version)
    except PtoasMissing as exc:
        missing(exc)
        raise


def missing(exc: Exception) -> None:
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
