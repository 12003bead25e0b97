"""Element-wise ops of two tiles (or tensors) of different dtypes, end to end. Upstream's
rules promote (an FP16 tile plus an FP32 tile is FP32) and pto-isa's instructions take one
dtype (TADD's static_assert, include/pto/npu/a2a3/TAdd.hpp): AddReductionScratch converts the
narrower operand first (TCVT / pto.tcvt into a tile of the result's dtype). Both routes
(ptoc --target cce -> pto-isa's CPU simulator; ptoc --target pto -> PTOAS v0.57 -> C++ -> the
simulator) must compute what the reference interpreter computes, in both editions. Built in
one batch, cached by content hash, as the other execution tests are."""

from __future__ import annotations

from pathlib import Path

import pytest
from pto_bench import Bench, Kernel, expected_results, routed_kernel

from ptoc.editions import Edition
from ptoc.run.simulator import Toolchain

ROUTES = ("cce", "pto")
EDITIONS = {"2026-03": Edition.V2026_03, "2026-08": Edition.V2026_08}
_SIGNATURE = (
    "    def kernel(\n        self,\n        h: pl.Tensor[[16, 64], pl.FP16],\n"
    "        f: pl.Tensor[[16, 64], pl.FP32],\n        i: pl.Tensor[[16, 64], pl.INT32],\n"
    "        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],\n"
    "    ) -> pl.Tensor[[16, 64], pl.FP32]:\n"
    "        th = pl.load(h, [0, 0], [16, 64])\n"
    "        tf = pl.load(f, [0, 0], [16, 64])\n"
    "        ti = pl.load(i, [0, 0], [16, 64])\n"
)
# Kernel bodies over FP16 ``th``, FP32 ``tf`` and INT32 ``ti`` tiles: each stores an FP32 ``r``
# (or writes ``out`` itself).
CASES: dict[str, list[str]] = {
    "fp16_plus_fp32": ["r = pl.add(th, tf)"],
    "fp32_minus_fp16": ["r = pl.sub(tf, th)"],
    "int32_times_fp32": ["r = pl.mul(ti, tf)"],
    "maximum_of_fp16_and_int32": ["r = pl.maximum(th, pl.cast(ti, pl.FP32))"],
    "both_operands_converted": ["r = pl.add(th, pl.cast(ti, pl.FP32))", "r = pl.add(ti, r)"],
    "compare_fp16_with_fp32": ["r = pl.cmp(th, tf, cmp_type=4)"],
    "row_expand_add_of_an_fp16_column": [
        "col = pl.row_max(th, th)",
        "r = pl.row_expand_add(tf, col)",
    ],
    "three_tiles_of_three_dtypes": ["r = pl.addc(th, tf, ti)"],
    "and_of_int16_and_int32": [
        "narrow = pl.cast(ti, pl.INT16)",
        "r = pl.cast(pl.and_(narrow, ti), pl.FP32)",
    ],
    "tensor_level_add": ["out = pl.assemble(out, pl.add(h, f), [0, 0])"],
}
# Cases one edition has: 2026-08's pl.cmp of tiles is the packed mask comparison, whose
# operands are of one dtype (TCMP's TCmpCheck).
ONLY_IN = {"compare_fp16_with_fp32": "2026-03"}
KEYS = [
    (key, edition)
    for key in sorted(CASES)
    for edition in sorted(EDITIONS)
    if ONLY_IN.get(key, edition) == edition
]
_kernels: dict[str, Kernel] = {}


# The store in each edition's spelling.
STORES = {"2026-03": "pl.store(r, [0, 0], [16, 64], out)", "2026-08": "pl.store(r, [0, 0], out)"}


def kernel_source(body: list[str], edition: str) -> str:
    lines = "".join(f"        {line}\n" for line in body)
    writes_out = body[-1].startswith("out = ")
    store = "" if writes_out else f"        out = {STORES[edition]}\n"
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"{_SIGNATURE}{lines}{store}        return out\n"
    )


def kernel_for(key: str, edition: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{edition}@{route}"
    if name not in _kernels:
        source = kernel_source(CASES[key], edition)
        _kernels[name] = routed_kernel(name, source, EDITIONS[edition], route, ptoas)
    return _kernels[name]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    bench = Bench(toolchain)
    kernels = [kernel_for(key, edition, route, ptoas) for key, edition in KEYS for route in ROUTES]
    bench.build_all(kernels)
    return bench


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("key", "edition"), KEYS)
def test_a_kernel_of_mixed_dtypes_matches_the_reference(
    key: str, edition: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, edition, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
