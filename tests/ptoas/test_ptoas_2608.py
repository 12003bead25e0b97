"""PTOAS v0.57, the assembler PyPTO 2026-08 pins, accepts what ptoc writes for the 2026-08 ops
it lowers (kernels/ops_2608.py; test_ptoas_accepts runs the same kernel through the default
PTOAS)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_ptoas_accepts import explain

from ptoc.cli import main
from ptoc.codegen.pto.ptoas import run_ptoas
from ptoc.ops import REGISTRY

KERNEL = Path(__file__).parent / "kernels" / "ops_2608.py"
V057_ONLY = Path(__file__).parent / "kernels" / "ops_2608_v057.py"  # (pto.tinsert Vec -> Vec)
V057 = Path(__file__).resolve().parents[2].parent / "shared" / "vendor" / "ptoas-v0.57" / "ptoas"


@pytest.fixture(scope="module")
def ptoas_v057() -> Path:
    if not (V057.is_file() and os.access(V057, os.X_OK)):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS v0.57 is missing at {V057}")
        pytest.skip(f"PTOAS v0.57 is missing at {V057}")
    return V057


def test_ptoas_v057_accepts_the_2026_08_ops(ptoas_v057: Path, tmp_path: Path) -> None:
    emitted: set[str] = set()
    for kernel in (KERNEL, V057_ONLY):
        out = tmp_path / f"{kernel.stem}.pto"
        assert main(["compile", str(kernel), "--target", "pto", "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        result = run_ptoas(text, ptoas_v057)
        assert result.ok, f"PTOAS v0.57 rejects {kernel.name}:\n{explain(result)}"
        emitted |= set(re.findall(r"\b(pto\.[a-z_.0-9]+)\b", text))
    # the kernels exercise every 2026-08 tile op that has a PTO lowering
    lowered = {
        op.pto.instruction
        for op in REGISTRY
        if op.since.value == "2026-08" and op.namespace == "block" and op.pto.instruction
    }
    assert lowered - emitted == set()
    mlir = (tmp_path / f"{KERNEL.stem}.pto").read_text(encoding="utf-8")
    # tile.extract's row and column are index operands: an INT64 scalar is converted
    row = r"(%\d+) = arith.index_cast %arg2 : i64 to index\n\s*pto.textract ins\(%\d+, \1, %c0 :"
    assert re.search(row, mlir)


INDEX_KERNEL = """import pypto.language as pl


@pl.program
class IndexMath:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(
        self,
        a: pl.Tensor[[128, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        m: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        block = pl.tile.get_block_idx()
        for i in pl.range(4):
            row = (block * 4 + i) * 16 % n
            col = i * m - i * m
            t = pl.load(a, [row, col], [16, 64])
            out = pl.store(t, [row, col], out)
        return out
"""


def test_ptoas_v057_accepts_2026_08_index_arithmetic(ptoas_v057: Path, tmp_path: Path) -> None:
    """INDEX (loop variables, the block index, an INDEX parameter) is MLIR's ``index``; the
    block index instruction gives i64, converted once."""
    source, out = tmp_path / "index_math.py", tmp_path / "index_math.pto"
    source.write_text(INDEX_KERNEL, encoding="utf-8")
    assert main(["compile", str(source), "--target", "pto", "-o", str(out)]) == 0
    mlir = out.read_text(encoding="utf-8")
    assert re.search(r"%arg1: index,", mlir)
    block = re.search(r"(%\d+) = pto\.get_block_idx\n", mlir)
    assert block is not None
    assert f"arith.index_cast {block.group(1)} : i64 to index" in mlir
    result = run_ptoas(mlir, ptoas_v057)
    assert result.ok, f"PTOAS v0.57 rejects the INDEX kernel:\n{explain(result)}"
