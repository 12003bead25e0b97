"""``q @ kᵀ`` through ``pl.tile.transpose_view`` (PyPTO 2026-08; the paged-attention examples'
``kernel_qk_matmul``): k loaded into Mat as it lies in DDR ([n, d], fractals column by
column), viewed as its transpose ([d, n], fractals row by row: the layout TMATMUL reads Right
in) without copying, moved into Right and multiplied. Run on both routes (ptoc --target cce
-> pto-isa's CPU simulator; ptoc --target pto -> PTOAS v0.57 -> C++ -> the simulator), each
must compute what the reference interpreter computes; kernels built in one batch."""

from __future__ import annotations

from pathlib import Path

import pytest
from pto_bench import Bench, Kernel, expected_results

from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.run.execute import cce_kernel, tensor_level
from ptoc.run.inputs import generate_inputs
from ptoc.run.pto_kernel import pto_kernel
from ptoc.run.simulator import Toolchain

ROUTES = ("cce", "pto")
EDITION = (Edition.V2026_08, EditionSource.FLAG)


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


CASES = {
    "FP16_16x64_d128": ("FP16", 16, 64, 128),
    "FP32_16x32_d32": ("FP32", 16, 32, 32),
    "FP16_32x128_d64": ("FP16", 32, 128, 64),
}
_kernels: dict[str, Kernel] = {}


def kernel_for(key: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{route}"
    if name not in _kernels:
        analysis = analyze_source(scores_source(*CASES[key]), f"{key}.py", edition=EDITION)
        assert [d.format() for d in analysis.diagnostics] == []
        level, found = tensor_level(analysis.programs[0], "kernel")
        kernel = Kernel(name, level, found, generate_inputs(level, found, 0))
        if route == "cce":
            kernel.text, diagnostics = cce_kernel(level, "kernel")
        else:
            kernel.text, diagnostics = pto_kernel(level, "kernel", ptoas)
        if kernel.text is None:
            kernel.problem = "; ".join(d.format() for d in diagnostics)
        _kernels[name] = kernel
    return _kernels[name]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, route, ptoas) for key in CASES for route in ROUTES])
    return bench


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(CASES))
def test_scores_through_a_transposed_view_match_the_reference(
    key: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
