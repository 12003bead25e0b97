"""PTOAS v0.57 accepts what ptoc writes for 2026-08's int literals (INDEX constants): beside an
INT32 scalar or tile they are i32 constants, in a comparison too, and offsets stay ``index``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_ptoas_accepts import explain

from ptoc.cli import main
from ptoc.codegen.pto.ptoas import run_ptoas

V057 = Path(__file__).resolve().parents[2].parent / "shared" / "vendor" / "ptoas-v0.57" / "ptoas"

KERNEL = """import pypto.language as pl


@pl.program
class Literals:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(
        self,
        a: pl.Tensor[[64, 64], pl.INT32],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
    ) -> pl.Tensor[[16, 64], pl.INT32]:
        row = (n - n + 1) * 16
        t = pl.tile.load(a, [row, 0], [16, 64])
        if n > 0:
            u = pl.tile.adds(t, n + 1)
        else:
            u = pl.tile.muls(t, -2)
        out = pl.tile.store(pl.tile.subs(u, 5), [0, 0], out)
        return out
"""


@pytest.fixture(scope="module")
def ptoas_v057() -> Path:
    if not (V057.is_file() and os.access(V057, os.X_OK)):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS v0.57 is missing at {V057}")
        pytest.skip(f"PTOAS v0.57 is missing at {V057}")
    return V057


def test_ptoas_v057_accepts_int_literals_beside_int32(ptoas_v057: Path, tmp_path: Path) -> None:
    source, out = tmp_path / "literals.py", tmp_path / "literals.pto"
    source.write_text(KERNEL, encoding="utf-8")
    assert main(["compile", str(source), "--target", "pto", "-o", str(out)]) == 0
    mlir = out.read_text(encoding="utf-8")
    for constant in ("%c1_i32 = arith.constant 1 : i32", "%c-2_i32 = arith.constant -2 : i32"):
        assert constant in mlir
    assert "arith.cmpi sgt, %arg1, %c0_i32 : i32" in mlir
    assert "arith.index_cast" in mlir  # the INT32 row, as the load's index offset
    result = run_ptoas(mlir, ptoas_v057)
    assert result.ok, f"PTOAS v0.57 rejects the kernel:\n{explain(result)}"
