"""Two forms of the paged-attention examples (PyPTO 2026-08), in FP16 / FP32 kernels the
CPU simulator computes exactly (it holds BF16 as FP16, so the examples' own BF16 kernels are
known defects there):

* ``q @ kᵀ`` through ``pl.tile.transpose_view`` (``kernel_qk_matmul``): k loaded into Mat as
  it lies in DDR ([n, d], fractals column by column), viewed as its transpose ([d, n],
  fractals row by row: the layout TMATMUL reads Right in) without copying, moved into Right
  and multiplied;
* ``pl.read`` of a block table in a kernel (``KernelQkMatmul`` of the batch / SPMD examples):
  an element of a tensor parameter read by the scalar unit, which picks the rows a load reads
  (at a column clamped with scalar ``pl.min`` / ``pl.max``, as the SPMD example clamps).

Run on both routes (ptoc --target cce -> pto-isa's CPU simulator; ptoc --target pto -> PTOAS
v0.57 -> C++ -> the simulator), each must compute what the reference interpreter computes;
kernels built in one batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pto_bench import Bench, Kernel, expected_results, routed_kernel

from ptoc.editions import Edition
from ptoc.run.simulator import Toolchain

ROUTES = ("cce", "pto")
EDITION = Edition.V2026_08


def scores_source(dtype: str, rows: int, n: int, d: int) -> str:
    """``output = q @ kᵀ`` for q [rows, d] and k [n, d] of ``dtype``."""
    return f"""\
import pypto.language as pl


@pl.program
class Scores:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        q: pl.Tensor[[{rows}, {d}], pl.{dtype}],
        k: pl.Tensor[[{n}, {d}], pl.{dtype}],
        output: pl.Out[pl.Tensor[[{rows}, {n}], pl.FP32]],
    ) -> pl.Tensor[[{rows}, {n}], pl.FP32]:
        q_mat = pl.load(q, [0, 0], [{rows}, {d}], target_memory=pl.MemorySpace.Mat)
        k_mat = pl.load(k, [0, 0], [{n}, {d}], target_memory=pl.MemorySpace.Mat)
        k_t = pl.tile.transpose_view(k_mat)
        q_left = pl.move(q_mat, target_memory=pl.MemorySpace.Left)
        k_right = pl.move(k_t, target_memory=pl.MemorySpace.Right)
        acc = pl.matmul(q_left, k_right)
        output = pl.store(acc, [0, 0], output)
        return output
"""


def block_table_source(dtype: str) -> str:
    """``out`` = the 16-row blocks of ``cache`` that ``table[1, min(first + i, 3)]`` names
    (i < 2: a scalar min / max as the examples clamp a valid length), each added to itself."""
    return f"""\
import pypto.language as pl


@pl.program
class Table:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        table: pl.Tensor[[2, 4], pl.INT32],
        cache: pl.Tensor[[64, 64], pl.{dtype}],
        first: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[32, 64], pl.{dtype}]],
    ) -> pl.Tensor[[32, 64], pl.{dtype}]:
        for i in pl.range(2):
            column = pl.max(pl.min(first + i, 3), 0)
            block = pl.read(table, [1, column])
            rows = pl.load(cache, [block * 16, 0], [16, 64], target_memory=pl.MemorySpace.Vec)
            out = pl.store(pl.add(rows, rows), [i * 16, 0], out)
        return out
"""


TABLE = {"table": np.array([[0, 0, 0, 0], [3, 0, 2, 1]], dtype=np.int32)}
CASES: dict[str, tuple[str, dict[str, np.ndarray]]] = {
    "scores_FP16_16x64_d128": (scores_source("FP16", 16, 64, 128), {}),
    "scores_FP32_16x32_d32": (scores_source("FP32", 16, 32, 32), {}),
    "scores_FP16_32x128_d64": (scores_source("FP16", 32, 128, 64), {}),
    "block_table_FP32": (block_table_source("FP32"), {**TABLE, "first": np.array(1)}),
    "block_table_FP16": (block_table_source("FP16"), {**TABLE, "first": np.array(3)}),
}
_kernels: dict[str, Kernel] = {}


def kernel_for(key: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{route}"
    if name not in _kernels:
        source, given = CASES[key]
        _kernels[name] = routed_kernel(name, source, EDITION, route, ptoas, given)
    return _kernels[name]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, route, ptoas) for key in CASES for route in ROUTES])
    return bench


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(CASES))
def test_paged_attention_form_matches_the_reference(
    key: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
