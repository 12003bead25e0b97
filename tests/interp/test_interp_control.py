"""Control flow, calls, buffers and errors of the reference interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from interp_support import program_of, run

from ptoc.frontend import analyze_source
from ptoc.interp import InterpError, run_function

F32 = np.float32

PROGRAMS = Path(__file__).parent / "programs" / "control.py"
LOOPS, TILES = analyze_source(PROGRAMS.read_text(encoding="utf-8"), str(PROGRAMS)).programs


@pytest.mark.parametrize(
    ("name", "inputs", "expected"),
    [
        ("total", {"n": 5}, 110),
        ("total", {"n": 0}, 100),  # no iteration: the initial value
        ("countdown", {"n": 9}, 4),  # 9 -> 4 -> 2 -> 1 -> 0
        ("natural", {"n": 10}, 27),
        ("reassigned", {"n": 4}, 19),  # 2, 4, 8 + 1, 18 + 1
        ("pick", {"x": 3}, 6),
        ("pick", {"x": -5}, -2),  # // floors, as in the DSL
    ],
)
def test_scalar_control_flow(name: str, inputs: dict[str, int], expected: int) -> None:
    (value,) = run_function(LOOPS, name, inputs).returns
    assert value == expected and isinstance(value, np.int64)


def test_int32_scalars_wrap() -> None:
    source = """
    @pl.function
    def f(x: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        y: pl.Scalar[pl.INT32] = x * x
        return y
    """
    (value,) = run(source, {"x": 65536}).returns
    assert value == 0 and isinstance(value, np.int32)


def test_nested_loops_carry_tiles_and_store_into_the_output_buffer() -> None:
    x = np.arange(32, dtype=F32).reshape(4, 8)
    result = run_function(TILES, "blocks", {"x": x, "out": np.zeros((2, 4), F32), "flag": 2})
    blocks = [x[r : r + 2, c : c + 4] for r in (0, 2) for c in (0, 4)]
    expected = 2 * (x[0:2, 0:4] + sum(blocks))
    unscaled = run_function(TILES, "blocks", {"x": x, "out": np.zeros((2, 4), F32), "flag": 0})
    np.testing.assert_array_equal(unscaled.outputs["out"], expected / 2)
    np.testing.assert_array_equal(result.outputs["out"], expected)
    np.testing.assert_array_equal(result.returns[0], expected)
    np.testing.assert_array_equal(result.outputs["x"], x)


def test_calls_pass_tensors_by_reference_and_inputs_are_not_changed() -> None:
    x = np.arange(32, dtype=F32).reshape(4, 8)
    out = np.zeros((2, 4), F32)
    result = run_function(TILES, "twice", {"x": x, "out": out, "flag": 2})
    once = run_function(TILES, "blocks", {"x": x, "out": out, "flag": 0}).outputs["out"]
    np.testing.assert_array_equal(result.outputs["out"], once)
    assert not out.any()  # the caller's array is untouched


def test_tuple_returns() -> None:
    source = """
    @pl.program
    class P:
        @pl.function
        def two(self, a: pl.Scalar[pl.INT64]) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
            return a + 1, a * 10

        @pl.function
        def main(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            p, q = self.two(a)
            return p - q
    """
    assert run(source, {"a": 3}, "main").returns == [4 - 30]
    assert run(source, {"a": 3}, "two").returns == [4, 30]


DYNAMIC = """
N = pl.dynamic("N")


@pl.function
def f(x: pl.Tensor[[N, 4], pl.FP32], out: pl.Tensor[[N, 4], pl.FP32]
      ) -> pl.Tensor[[N, 4], pl.FP32]:
    for i in pl.range(N // 2):
        part = pl.load(x, [i * 2, 0], [2, 4])
        out = pl.store(pl.mul(part, part), [i * 2, 0], [2, 4], out)
    return out
"""


def test_dynamic_dimensions_take_their_size_from_the_inputs() -> None:
    x = np.arange(24, dtype=F32).reshape(6, 4)
    result = run(DYNAMIC, {"x": x, "out": np.zeros((6, 4), F32)})
    np.testing.assert_array_equal(result.outputs["out"], x * x)


def test_a_dimension_bound_twice_must_agree() -> None:
    with pytest.raises(InterpError, match="dimension 'N' is 6 elsewhere but 'out' has 4"):
        run(DYNAMIC, {"x": np.zeros((6, 4), F32), "out": np.zeros((4, 4), F32)})


def test_a_dynamic_dimension_without_a_value_is_an_error() -> None:
    source = """
    N = pl.dynamic("N")


    @pl.function
    def f(n: pl.Scalar[pl.INT64]) -> pl.Tensor[[N, 4], pl.FP32]:
        t = pl.tensor.create([N, 4], dtype=pl.FP32)
        return t
    """
    with pytest.raises(InterpError, match="'N' has no value here") as error:
        run(source, {"n": 3})
    assert error.value.span.line == 10  # the statement that needs it


def test_a_window_outside_the_tensor_is_an_error_at_the_load() -> None:
    source = """
    @pl.function
    def f(x: pl.Tensor[[4, 4], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Tile[[2, 4], pl.FP32]:
        t = pl.load(x, [n, 0], [2, 4])
        return t
    """
    x = np.zeros((4, 4), F32)
    np.testing.assert_array_equal(run(source, {"x": x, "n": 2}).returns[0], np.zeros((2, 4)))
    with pytest.raises(InterpError) as error:
        run(source, {"x": x, "n": 3})
    assert str(error.value) == (
        "kernel.py:7:9: block.load: window 3..5 on dimension 0 is outside the extent 4"
    )


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"x": np.zeros((4, 4), F32)}, "no input for parameter 'n'"),
        ({"x": np.zeros((4, 4), F32), "n": 0, "m": 1}, "'f' has no parameter 'm'"),
        ({"x": np.zeros((4, 5), F32), "n": 0}, "'x' has 5 on a dimension of static size 4"),
        ({"x": np.zeros(4, F32), "n": 0}, "'x' must be a 2-D array"),
    ],
)
def test_bad_inputs_are_errors(inputs: dict[str, object], message: str) -> None:
    source = """
    @pl.function
    def f(x: pl.Tensor[[4, 4], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Tile[[2, 4], pl.FP32]:
        t = pl.load(x, [n, 0], [2, 4])
        return t
    """
    with pytest.raises(InterpError, match=message):
        run(source, inputs)


def test_unknown_function_and_unsupported_dtype_are_errors() -> None:
    program = program_of("""
    @pl.function
    def f(x: pl.Tensor[[4, 4], pl.FP4]) -> pl.Tensor[[4, 4], pl.FP4]:
        return x
    """)
    with pytest.raises(InterpError, match="no function 'g' in program 'f'"):
        run_function(program, "g", {})
    with pytest.raises(InterpError, match="no numpy representation of FP4"):
        run_function(program, "f", {"x": np.zeros((4, 4))})


def test_block_idx_is_an_input_of_the_run() -> None:
    program = program_of("""
    @pl.function
    def f(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.UINT64]:
        b = pl.block.get_block_idx()
        return b
    """)
    assert run_function(program, "f", {"n": 0}, block_idx=3).returns == [3]


def test_numpy_is_not_imported_on_the_check_and_compile_path() -> None:
    code = (
        "import sys, ptoc.cli, ptoc.frontend, ptoc.passes, ptoc.codegen, ptoc.ops; "
        "print('numpy' in sys.modules)"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "False"


def test_inputs_that_are_not_numbers_are_errors() -> None:
    source = """
    @pl.function
    def f(x: pl.Tensor[[2], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return n
    """
    with pytest.raises(InterpError, match="'n' must be a number for Scalar\\[INT64\\]"):
        run(source, {"x": np.zeros(2, F32), "n": "three"})
    with pytest.raises(InterpError, match="'x' must be an array of numbers"):
        run(source, {"x": ["a", "b"], "n": 1})


def test_a_loop_that_would_run_too_long_is_an_error() -> None:
    program = program_of("""
    @pl.function
    def f(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        k = 0
        for i in pl.range(n):
            k = k + i
        while k >= 0:
            k = k + 1
        return k
    """)
    with pytest.raises(InterpError, match="the loop would run 1000 times \\(more than 10\\)"):
        run_function(program, "f", {"n": 1000}, max_iterations=10)
    with pytest.raises(InterpError, match="the loop ran more than 10 times"):
        run_function(program, "f", {"n": 3}, max_iterations=10)


def test_float_scalars_round_to_their_dtype() -> None:
    source = """
    @pl.function
    def f(x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
        y: pl.Scalar[pl.FP32] = x + 1.0
        z: pl.Scalar[pl.FP32] = pl.max(y, x * 0.5)
        return z
    """
    (value,) = run(source, {"x": 2.0**24}).returns
    assert value == np.float32(2.0**24) and isinstance(value, np.float32)
