"""``tensor.assemble`` in a kernel (``out[rows, :] = ...``, ``pl.assemble(..., atomic=...)``,
``pl.full`` stored) end to end: ConvertTensorToBlockOps makes it a store of the source's tile
into the target's window, as upstream's ConvertTensorToTileOps does; both routes (ptoc
--target cce -> pto-isa's CPU simulator; ptoc --target pto -> PTOAS v0.57 -> C++ -> the
simulator) must compute what the reference interpreter computes. Built in one batch, cached
by content hash, as the other execution tests are."""

from __future__ import annotations

from pathlib import Path

import pytest
from pto_bench import Bench, Kernel, expected_results, routed_kernel

from ptoc.editions import Edition
from ptoc.run.simulator import Toolchain

ROUTES = ("cce", "pto")
EDITION = Edition.V2026_08
_SIGNATURE = (
    "    def kernel(\n        self,\n        a: pl.Tensor[[64, 32], pl.FP32],\n"
    "        b: pl.Tensor[[32, 32], pl.FP32],\n"
    "        out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]],\n"
    "    ) -> pl.Tensor[[64, 32], pl.FP32]:\n"
)
# Kernel bodies over a [64, 32] ``a``, a [32, 32] ``b`` and the [64, 32] ``out`` they update
# (the rows they do not write keep their values).
CASES: dict[str, list[str]] = {
    "one_window": ["out = pl.assemble(out, pl.exp(a[0:32, :]), [32, 0])"],
    "a_window_per_step": [
        "for i in pl.range(4):",
        "    out[i * 16 : i * 16 + 16, :] = pl.mul(a[i * 16 : i * 16 + 16, :], 2.0)",
    ],
    "a_copied_window": ["out = pl.assemble(out, a[8:40, :], [16, 0])"],
    "a_filled_window": [
        "out = pl.assemble(out, pl.full([16, 32], dtype=pl.FP32, value=2.5), [8, 0])"
    ],
    "added_into_the_window": [
        "out = pl.assemble(out, pl.add(b, 1.0), [16, 0], atomic=pl.AtomicType.Add)"
    ],
    "a_product_added_into_the_window": [
        "out = pl.assemble(out, pl.matmul(b, b), [32, 0], atomic=pl.AtomicType.Add)"
    ],
}
_kernels: dict[str, Kernel] = {}


def kernel_source(body: list[str]) -> str:
    lines = "".join(f"        {line}\n" for line in body)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"{_SIGNATURE}{lines}        return out\n"
    )


def kernel_for(key: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{route}"
    if name not in _kernels:
        _kernels[name] = routed_kernel(name, kernel_source(CASES[key]), EDITION, route, ptoas)
    return _kernels[name]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, route, ptoas) for key in CASES for route in ROUTES])
    return bench


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(CASES))
def test_an_assembling_kernel_matches_the_reference(
    key: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
