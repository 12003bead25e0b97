"""Kernels written in PyPTO 2026-08's spelling: each compiles for both targets and runs on
pto-isa's CPU simulator matching the reference interpreter (the one with a ``pl.at`` scope
through the orchestration shim). They use the 2026-08 forms of the core language: the
``pl.tile`` namespace, the three-argument store, ``pl.at``, ``pl.unroll`` and ``pl.pipeline``
loops, numpy-style windows, renamed ops, a tile-scalar op that keeps the tile's dtype,
a scalar ``pl.cast``, INDEX arithmetic (loop variables with literals and an INT32), int
literals (INDEX) that stay INT32 beside an INT32 scalar or tile, and a valid region filled by
``pl.tile.fillpad``."""

from __future__ import annotations

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity
from ptoc.editions import Edition

from .bench import Bench, expected_results, load_kernel
from .test_orchestration import run_end_to_end

SOURCE = """\
import pypto.language as pl


@pl.program
class Today:
    @pl.function(type=pl.FunctionType.InCore)
    def add_rows(
        self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.unroll(0, 4):
            t = pl.tile.load(x, [i * 16, 0], [16, 64])
            u = pl.tile.add(t, t)
            y = pl.tile.store(u, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def clamp(
        self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        for j in pl.pipeline(0, 2, stage=2):
            t = pl.load(x, [j * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
            m = pl.maximums(t, 0.0)
            y = pl.store(m, [j * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def window(
        self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]
    ) -> pl.Tensor[[8, 64], pl.FP32]:
        t = pl.tile.load(x, [16, 0], [16, 64])
        y = pl.store(pl.tile.muls(t[8:16, :], 3.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def int_scale(
        self, x: pl.Tensor[[16, 64], pl.INT32], y: pl.Out[pl.Tensor[[16, 64], pl.INT32]]
    ) -> pl.Tensor[[16, 64], pl.INT32]:
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(pl.add(t, 7), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def shifted(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        n: pl.Scalar[pl.INT32],
        y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        f = pl.cast(n, target_type=pl.FP32)
        y = pl.store(pl.add(t, f), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def index_rows(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        n: pl.Scalar[pl.INT32],
        y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            row = 16 * (3 - i)
            col = i * n - n * i
            t = pl.tile.load(x, [row, col], [16, 64])
            y = pl.tile.store(t, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def literals(
        self,
        x: pl.Tensor[[64, 64], pl.INT32],
        n: pl.Scalar[pl.INT32],
        y: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
    ) -> pl.Tensor[[16, 64], pl.INT32]:
        row = (n - n + 1) * 16
        k = n - n + 3
        t = pl.tile.load(x, [row, 0], [16, 64])
        u = pl.tile.muls(pl.tile.adds(t, k), -2)
        y = pl.tile.store(pl.tile.subs(u, 5), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def padded(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 40])
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        y = pl.store(p, [0, 0], y)
        return y

    @pl.function
    def scoped(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y: pl.Tensor[[64, 64], pl.FP32] = pl.exp(x)
        return y
"""
KERNELS = [
    "add_rows",
    "clamp",
    "window",
    "int_scale",
    "shifted",
    "index_rows",
    "literals",
    "padded",
]


def test_the_program_is_read_as_2026_08() -> None:
    from ptoc.frontend import analyze_source

    analysis = analyze_source(SOURCE, "today.py")
    assert analysis.edition is not None and analysis.edition.edition is Edition.V2026_08
    assert [d.format() for d in analysis.diagnostics] == []


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_every_2026_08_kernel_compiles_for_both_targets(target: str) -> None:
    result = driver.compile_source(SOURCE, target, path="today.py")
    assert [d.format() for d in result.diagnostics if d.severity is not Severity.HINT] == []


@pytest.mark.parametrize("function", KERNELS)
def test_2026_08_kernel_matches_the_reference(function: str, bench: Bench) -> None:
    kernel = load_kernel(function, SOURCE, function)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())


def test_a_pl_at_scope_runs_with_its_orchestration(bench: Bench) -> None:
    assert run_end_to_end(bench, SOURCE, "scoped") == []
