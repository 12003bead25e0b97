"""The passes keep the program's meaning: after every pass of both pipelines the interpreter
computes exactly what it computes on the front end's IR, for every example and for kernels
that exercise what the passes rewrite (names, loop-carried tiles, calls, buffers, sync)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from interp_support import random_inputs

from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source
from ptoc.interp import InterpResult, run_function
from ptoc.ir.function import Program

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"
SOURCES = sorted((ROOT / "examples").rglob("*.py")) + [
    PROGRAMS / "control.py",
    PROGRAMS / "kernels.py",
]


def _cases() -> list[Any]:
    cases = []
    for path in SOURCES:
        analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
        for program in analysis.all_programs():
            for function in program.functions:
                label = f"{path.relative_to(ROOT).as_posix()}:{function.name}"
                cases.append(pytest.param(program, function.name, id=label))
    return cases


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    a_array, b_array = np.asarray(a), np.asarray(b)
    return a_array.dtype == b_array.dtype and np.array_equal(a_array, b_array, equal_nan=True)


def _assert_same(expected: InterpResult, actual: InterpResult, where: str) -> None:
    # ConvertTensorToBlockOps may add Out parameters (out_0, ...): outputs of their own.
    added = {name for name in actual.outputs if name not in expected.outputs}
    assert sorted(set(actual.outputs) - added) == sorted(expected.outputs), where
    assert all(name.startswith("out_") for name in added), where
    for name, array in expected.outputs.items():
        assert _same(actual.outputs[name], array), f"{where}: output '{name}' differs"
    assert len(actual.returns) == len(expected.returns), where
    for index, value in enumerate(expected.returns):
        assert _same(actual.returns[index], value), f"{where}: return value {index} differs"


@pytest.mark.parametrize(("program", "name"), _cases())
def test_every_pass_keeps_the_results(program: Program, name: str) -> None:
    function = program.function(name)
    assert function is not None
    inputs = random_inputs(function, seed=7)
    expected = run_function(program, name, inputs)
    for pipeline in ("default", "ptoas"):
        result = run_pipeline(program, pipeline)
        assert not result.has_errors, [d.format() for d in result.diagnostics]
        assert len(result.snapshots) >= 6
        for pass_name, snapshot in result.snapshots:
            _assert_same(
                expected,
                run_function(snapshot, name, _with_added(snapshot, name, inputs)),
                f"{pipeline}/{pass_name}",
            )


def _with_added(snapshot: Program, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """``inputs`` plus a value for each parameter a pass added (an Out tensor the caller
    provides; its initial contents must not matter)."""
    function = snapshot.function(name)
    assert function is not None
    extra = random_inputs(function, seed=11)
    return {**extra, **inputs}


def test_the_kernels_compute_what_they_say() -> None:
    path = SOURCES[-1]
    (program,) = analyze_source(path.read_text(encoding="utf-8"), str(path)).programs
    inputs: dict[str, Any] = {}

    def run(name: str) -> InterpResult:
        function = program.function(name)
        assert function is not None
        inputs.clear()
        inputs.update(random_inputs(function, seed=3))
        return run_function(program, name, inputs)

    fib = run("fibonacci")  # (a, b) -> (b, a + b) three times
    x, y = inputs["x"], inputs["y"]
    np.testing.assert_array_equal(fib.outputs["out_a"], (x + y) + y)
    np.testing.assert_array_equal(fib.outputs["out_b"], (x + y) + ((x + y) + y))

    doubled = run("windows_in_loops")
    np.testing.assert_array_equal(doubled.outputs["out"], inputs["x"] * 2)

    gemm = run("gemm_k_tiled")
    reference = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(gemm.outputs["c"], reference, rtol=1e-5, atol=1e-4)

    softmax = run("online_softmax")
    rows = inputs["x"].astype(np.float64).reshape(4, 16, 32).transpose(1, 0, 2).reshape(16, 128)
    peak = rows.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(softmax.outputs["out_max"], peak.astype(np.float32))
    np.testing.assert_allclose(
        softmax.outputs["out_sum"], np.exp(rows - peak).sum(axis=1, keepdims=True), rtol=1e-5
    )
