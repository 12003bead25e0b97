"""From source text: front end -> the "ptoas" pass pipeline -> generate_pto."""

from __future__ import annotations

from pathlib import Path

from ptoc.codegen.pto import generate_pto
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source

MUL_KERNEL_2D = '''import pypto.language as pl

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
'''


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
