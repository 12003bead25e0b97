"""From source text: front end -> the "ptoas" pass pipeline -> generate_pto."""

from __future__ import annotations

from pathlib import Path

from ptoc.codegen.pto import generate_pto
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source

MUL_KERNEL_2D = """import pypto.language as pl

@pl.program
class MulKernel:
    @pl.function
    def mul_kernel_2d(self,
                      a: pl.Tensor[[32, 32], pl.FP32],
                      b: pl.Tensor[[32, 32], pl.FP32],
                      c: pl.Tensor[[32, 32], pl.FP32]):
        # Load tiles
        tile_a = pl.load(a, [0, 0], [32, 32])
        tile_b = pl.load(b, [0, 0], [32, 32])

        # Multiply
        tile_c = pl.mul(tile_a, tile_b)

        # Store result
        pl.store(tile_c, [0, 0], [32, 32], c)
"""


def compile_source(text: str, pipeline: str = "ptoas") -> str:
    analysis = analyze_source(text, "mul.py")
    assert analysis.diagnostics == []
    result = run_pipeline(analysis.programs[0], pipeline)
    assert result.diagnostics == []
    generated = generate_pto(result.program)
    assert generated.diagnostics == []
    return generated.text


def test_the_seed_program_compiles_to_the_golden_text() -> None:
    golden = (Path(__file__).parent / "golden" / "mul_kernel_2d.mlir").read_text()
    assert compile_source(MUL_KERNEL_2D) == golden


def test_sync_inserted_by_the_default_pipeline_lowers_to_flags() -> None:
    text = compile_source(MUL_KERNEL_2D, "default")
    assert "    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]\n" in text
    assert "    pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]\n" in text


CALLS = """import pypto.language as pl


@pl.program
class Calls:
    @pl.function
    def twice(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        return x * 2

    @pl.function
    def kernel(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        y: pl.Scalar[pl.INT64] = self.twice(a)
        return y + 1
"""


def test_a_called_function_returns_its_result_and_a_kernel_stores_it() -> None:
    """``kernel`` is an entry (PTOAS: it returns nothing; its result goes through %arg1);
    ``twice``, which it calls, keeps its result (``func.call`` needs one)."""
    analysis = analyze_source(CALLS, "calls.py")
    assert analysis.diagnostics == []
    lowered = run_pipeline(analysis.programs[0], "ptoas")
    generated = generate_pto(lowered.program, function="kernel")  # brings its callee along
    assert generated.diagnostics == []
    text = generated.text
    assert "  func.func @twice(%arg0: i64) -> i64 {\n" in text
    assert "    return %2 : i64\n" in text
    # the module's entry: PTOAS makes it __global__ (a module of several has no other way)
    assert (
        "  func.func @kernel(%arg0: i64,\n"
        "                   %arg1: !pto.ptr<i64>) attributes {pto.entry} {\n"
    ) in text
    assert "    %0 = func.call @twice(%arg0) : (i64) -> i64\n" in text
    assert "pto.store_scalar %3, %arg1[%c0] : !pto.ptr<i64>, i64\n" in text
