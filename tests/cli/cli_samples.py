"""Sample sources and a subprocess runner shared by the CLI tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# A kernel with exactly one mistake: `missing` is never defined (line 9, 1-based column 46).
BROKEN = """\
import pypto.language as pl


@pl.program
class Broken:
    @pl.function
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        t: pl.Tile[[32, 32], pl.FP32] = pl.load(x, [0, 0], [32, 32])
        u: pl.Tile[[32, 32], pl.FP32] = pl.add(t, missing)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.store(u, [0, 0], [32, 32], x)
        return r
"""
BROKEN_LINE = 9
BROKEN_COLUMN = BROKEN.splitlines()[BROKEN_LINE - 1].index("missing") + 1

# Two InCore functions in one program, for --function.
TWO_KERNELS = """\
import pypto.language as pl


@pl.program
class Pair:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Tensor[[32, 32], pl.FP32]):
        t: pl.Tile[[32, 32], pl.FP32] = pl.load(x, [0, 0], [32, 32])
        d: pl.Tile[[32, 32], pl.FP32] = pl.add(t, t)
        pl.store(d, [0, 0], [32, 32], out)

    @pl.function(type=pl.FunctionType.InCore)
    def square(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Tensor[[32, 32], pl.FP32]):
        t: pl.Tile[[32, 32], pl.FP32] = pl.load(x, [0, 0], [32, 32])
        s: pl.Tile[[32, 32], pl.FP32] = pl.mul(t, t)
        pl.store(s, [0, 0], [32, 32], out)
"""

# Plain Python: no pypto import, so a directory walk skips it.
PLAIN = "def helper(x):\n    return x + 1\n"


def run_ptoc(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptoc", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def tools_or_skip() -> None:
    """Skip a simulator run when clang or pto-isa is missing (fail under CI=true)."""
    try:
        find_compiler()
        find_pto_isa(None)
    except ToolMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))
