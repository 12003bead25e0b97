"""The statements of the language reference (docs/language.md, "Statements"), one function
each: every one compiles for both targets, and runs on pto-isa's CPU simulator matching the
reference interpreter (the kernels alone; the function with an incore scope with its kernel
through the orchestration shim)."""

from __future__ import annotations

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity

from .bench import Bench, expected_results, load_kernel
from .test_orchestration import run_end_to_end

# Tuple unpacking of a call's results, counted and parallel loops, pl.while_ with pl.cond, a
# plain while, if / elif / else with yields, an incore scope.
SOURCE = """\
import pypto.language as pl


@pl.program
class Constructs:
    @pl.function
    def pair(self, n: pl.Scalar[pl.INT64]) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
        a: pl.Scalar[pl.INT64] = n + 1
        return a, n

    @pl.function
    def unpack(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        a, b = self.pair(n)
        c: pl.Scalar[pl.INT64] = a + b
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def loops(
        self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Tensor[[64, 64], pl.FP32]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 64])
            pl.store(t, [i * 16, 0], [16, 64], y)
        for j in pl.parallel(0, 4, 1):
            u = pl.load(x, [j * 16, 0], [16, 64])
            pl.store(u, [j * 16, 0], [16, 64], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def whiles(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        for (k,) in pl.while_(init_values=(0,)):
            pl.cond(k < n)
            k2 = pl.yield_(k + 1)
        return k2

    @pl.function(type=pl.FunctionType.InCore)
    def plain_while(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        m: pl.Scalar[pl.INT64] = n
        while m > 0:
            m = m - 1
        return m

    @pl.function(type=pl.FunctionType.InCore)
    def branches(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if n > 3:
            v = pl.yield_(n)
        elif n > 1:
            v = pl.yield_(n * 2)
        else:
            v = pl.yield_(0)
        return v

    @pl.function
    def scoped(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.incore():
            y: pl.Tensor[[64, 64], pl.FP32] = pl.exp(x)
        return y
"""
KERNELS = ["unpack", "loops", "whiles", "plain_while", "branches"]


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_every_statement_compiles_for_both_targets(target: str) -> None:
    result = driver.compile_source(SOURCE, target, path="constructs.py")
    assert [d.format() for d in result.diagnostics if d.severity is not Severity.HINT] == []


@pytest.mark.parametrize("function", KERNELS)
def test_statement_kernel_matches_the_reference(function: str, bench: Bench) -> None:
    kernel = load_kernel(function, SOURCE, function)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())


def test_an_incore_scope_runs_with_its_orchestration(bench: Bench) -> None:
    assert run_end_to_end(bench, SOURCE, "scoped") == []
