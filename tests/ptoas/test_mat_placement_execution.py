"""A product over Acc cast (``mode="rint"``) into a second matmul's operand (upstream's
AutoTileMatmulL0, Mat placement: advanced/02_auto_tile_matmul.py's ``mat_*`` kernels, in FP16
since pto-isa's CPU simulator holds BF16 as _Float16 here) end to end on both routes: ptoc
--target cce -> pto-isa's CPU simulator, and ptoc --target pto -> PTOAS v0.57 -> C++ -> the
simulator. The [256, 256] FP32 product (256 KB; A2/A3's L0C holds 128 KB) is computed in blocks
of 64 rows (16 rows of 4096 columns: in blocks of 1024 columns), each converted into its window
of one FP16 Mat tile (``block.insert``: TINSERT / pto.tinsert Acc -> Mat), which the second
matmul reads in slices of K (TEXTRACT / pto.textract). Small integers make every sum exact in
any order, so the simulator must compute the interpreter's numbers exactly: a block in the
wrong window, a slice of the wrong columns or a second rounding cannot pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pto_bench import Bench, Kernel, expected_results, routed_kernel

from ptoc.editions import Edition
from ptoc.run.simulator import Toolchain

ROUTES = ("cce", "pto")
EDITION = Edition.V2026_08
# [M, K] x [K, N] of the first product. K = 32 fits Left and Right at once (upstream's full-K),
# 192 is summed in two slices of 96 (split-K); 16 rows of 4096 columns are blocked by columns.
# "right_operand": the Mat tile is the second product's right operand (e @ cb).
CASES = {
    "full_k": (256, 32, 256),
    "split_k": (256, 192, 256),
    "column_blocks": (16, 32, 4096),
    "right_operand": (256, 32, 256),
}
_kernels: dict[str, Kernel] = {}


def kernel_source(m: int, k: int, n: int, right: bool = False) -> str:
    if right:  # e [64, M] @ cb [M, N]
        e, out, product = f"[64, {m}]", f"[64, {n}]", "pl.matmul(e, cb, out_dtype=pl.FP32)"
    else:  # cb [M, N] @ e [N, 64]
        e, out, product = f"[{n}, 64]", f"[{m}, 64]", "pl.matmul(cb, e, out_dtype=pl.FP32)"
    return f"""\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[{m}, {k}], pl.FP16],
        b: pl.Tensor[[{k}, {n}], pl.FP16],
        e: pl.Tensor[{e}, pl.FP16],
        out: pl.Out[pl.Tensor[{out}, pl.FP32]],
    ) -> pl.Tensor[{out}, pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        cb = pl.cast(c, pl.FP16, mode="rint")
        d = {product}
        out = pl.assemble(out, d, [0, 0])
        return out
"""


def small_integers(m: int, k: int, n: int, right: bool = False) -> dict[str, np.ndarray]:
    """-2..2: |c| <= 4 * 192 is an FP16 integer, |d| <= 4096 * 4 * 32 * 2 < 2 ** 24 an FP32
    one."""
    rng = np.random.default_rng(1)
    shapes = {"a": (m, k), "b": (k, n), "e": (64, m) if right else (n, 64)}
    return {name: rng.integers(-2, 3, shape).astype(np.float16) for name, shape in shapes.items()}


def kernel_for(key: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{route}"
    if name not in _kernels:
        dims, right = CASES[key], key == "right_operand"
        source = kernel_source(*dims, right=right)
        given = small_integers(*dims, right=right)
        _kernels[name] = routed_kernel(name, source, EDITION, route, ptoas, given)
    return _kernels[name]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, route, ptoas) for key in CASES for route in ROUTES])
    return bench


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(CASES))
def test_the_blocked_chain_matches_the_reference(
    key: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
    assert np.abs(kernel.inputs["a"]).max() == 2  # (the inputs are the small integers)
