"""A matmul's product cast with ``mode="rint"`` and multiplied again in the same kernel (issue
#29, upstream's AutoTileMatmulL0 cast-fold): the cast becomes the converting move Acc -> Mat
(``block.move(..., dtype=FP16)``: TMOV's FIXPIPE pre-quantisation, round half to even) and the
second matmul reads that Mat tile. Upstream's kernels (advanced/02_auto_tile_matmul.py,
fits_l0c_*) are BF16, which pto-isa's CPU simulator holds as _Float16 here; these are the same
shapes in FP16: the simulator must compute what the reference interpreter computes."""

from __future__ import annotations

import re

import pytest

from ptoc import driver
from ptoc.cli import analyze
from ptoc.diagnostics import Severity

from .bench import Bench
from .test_orchestration import run_end_to_end

SOURCE = """\
import pypto.language as pl


@pl.program
class Chained:
    @pl.function(type=pl.FunctionType.Orchestration)
    def full_k(
        self,
        a: pl.Tensor[[128, 64], pl.FP16],
        b: pl.Tensor[[64, 128], pl.FP16],
        e: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def split_k(
        self,
        a: pl.Tensor[[128, 512], pl.FP16],
        b: pl.Tensor[[512, 128], pl.FP16],
        e: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out
"""
FUNCTIONS = ("full_k", "split_k")


def compiled(function: str, target: str) -> str:
    result = driver.compile_source(analyze(SOURCE, "program.py"), target, function, path="x.py")
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    return "\n".join(p.text for p in result.programs)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_cast_is_one_converting_move_on_both_routes(function: str) -> None:
    assert compiled(function, "cce")
    text = compiled(function, "pto")
    moves = re.findall(
        r"pto\.tmov ins\(%\w+ : !pto\.tile_buf<loc=(\w+), dtype=(\w+)[^\n]*\n"
        r"\s*outs\(%\w+ : !pto\.tile_buf<loc=(\w+), dtype=(\w+)",
        text,
    )
    assert ("acc", "f32", "mat", "f16") in moves
    assert "pto.tcvt" not in text


# The reference sums K = 512 in one order; the kernel sums two slices of 256 (TMATMUL_ACC adds a
# slice's sum to Acc, pto-isa cpu/TMatmul.hpp:74), and the FP16 cast turns a last-bit FP32
# difference into one FP16 step in a few elements (61 of 8192). With inputs whose sums are exact
# the chain matches on both routes, PTO included (tests/ptoas/test_ptoas_lifetimes.py).
SLICED = "the reference and the kernel sum K in a different order, which the FP16 cast amplifies"


@pytest.mark.parametrize(
    "function",
    ["full_k", pytest.param("split_k", marks=pytest.mark.xfail(strict=True, reason=SLICED))],
)
def test_the_chain_runs_on_the_simulator_as_on_the_interpreter(function: str, bench: Bench) -> None:
    assert run_end_to_end(bench, SOURCE, function) == []
