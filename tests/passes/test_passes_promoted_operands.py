"""AddReductionScratch converts an element-wise op's tile operands of another dtype than its
promoted result first (pto-isa's TADD and the other binary instructions take one dtype), and
both code generators emit the conversion."""

from __future__ import annotations

from ptoc.driver import analyze, compile_source, run_pipeline
from ptoc.printer import print_program

SOURCE = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, h: pl.Tensor[[16, 64], pl.FP16], f: pl.Tensor[[16, 64], pl.FP32],
          i: pl.Tensor[[16, 64], pl.INT32], s: pl.Tensor[[16, 64], pl.INT16],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        th = pl.load(h, [0, 0], [16, 64])
        tf = pl.load(f, [0, 0], [16, 64])
        ti = pl.load(i, [0, 0], [16, 64])
        ts = pl.load(s, [0, 0], [16, 64])
{body}
"""


def body_after_the_pass(body: list[str]) -> list[str]:
    source = SOURCE.format(body="".join(f"        {line}\n" for line in body))
    program = analyze(source, "k.py").all_programs()[0]
    result = run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "AddReductionScratch"])
    assert result.diagnostics == []
    text = print_program(result.program, line_length=200)
    lines = [line.strip() for line in text.splitlines() if " = pl." in line]
    return [line for line in lines if "pl.block.load(" not in line]


def test_the_narrower_operand_of_a_binary_op_is_converted_into_the_result_dtype() -> None:
    assert body_after_the_pass(["r = pl.add(th, tf)", "q = pl.sub(tf, ti)"]) == [
        'r_lhs: pl.Tile[[16, 64], pl.FP32] = pl.block.cast(th, target_type=pl.FP32, mode="rint")',
        "r: pl.Tile[[16, 64], pl.FP32] = pl.block.add(r_lhs, tf)",
        'q_rhs: pl.Tile[[16, 64], pl.FP32] = pl.block.cast(ti, target_type=pl.FP32, mode="rint")',
        "q: pl.Tile[[16, 64], pl.FP32] = pl.block.sub(tf, q_rhs)",
    ]


def test_operands_of_one_dtype_and_ops_keeping_the_lhs_dtype_are_left_as_they_are() -> None:
    assert body_after_the_pass(
        ["r = pl.add(tf, tf)", "q = pl.shl(ti, ts)", "p = pl.muls(th, 2.0)"]
    ) == [
        "r: pl.Tile[[16, 64], pl.FP32] = pl.block.add(tf, tf)",
        "q: pl.Tile[[16, 64], pl.INT32] = pl.block.shl(ti, ts)",
        # one tile and a scalar: the code generators convert the tile into the destination
        "p: pl.Tile[[16, 64], pl.FP32] = pl.block.muls(th, 2.0)",
    ]


def test_a_three_tile_op_converts_each_operand_then_takes_its_pair_form() -> None:
    assert body_after_the_pass(["r = pl.addc(th, tf, ti)"]) == [
        'r_lhs: pl.Tile[[16, 64], pl.FP32] = pl.block.cast(th, target_type=pl.FP32, mode="rint")',
        'r_rhs2: pl.Tile[[16, 64], pl.FP32] = pl.block.cast(ti, target_type=pl.FP32, mode="rint")',
        "r_pair: pl.Tile[[16, 64], pl.FP32] = pl.block.add(r_lhs, tf)",
        "r: pl.Tile[[16, 64], pl.FP32] = pl.block.add(r_pair, r_rhs2)",
    ]


TENSORS = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, h: pl.Tensor[[16, 64], pl.FP16], f: pl.Tensor[[16, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.assemble(y, pl.add(h, f), [0, 0])
        return y
"""


def test_a_tensor_add_of_two_dtypes_becomes_a_converted_tile_add() -> None:
    result = compile_source(TENSORS, "cce", path="k.py")
    assert not result.has_errors, result.diagnostics
    lines = [line.strip() for line in result.text.splitlines()]
    converts = [n for n, line in enumerate(lines) if line.startswith("TCVT(")]
    adds = [n for n, line in enumerate(lines) if line.startswith("TADD(")]
    assert len(converts) == 1 and len(adds) == 1 and converts[0] < adds[0]
    assert lines[converts[0]].endswith(", RoundMode::CAST_RINT);")


def test_both_generators_emit_the_conversion_before_the_instruction() -> None:
    source = SOURCE.format(
        body="        r = pl.add(th, tf)\n        pl.store(r, [0, 0], [16, 64], y)\n"
    )
    cce = compile_source(source, "cce", path="k.py")
    assert not cce.has_errors, cce.diagnostics
    cce_lines = [line.strip() for line in cce.text.splitlines()]
    assert "using r_lhsType = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1>;" in (
        cce_lines
    )
    start = cce_lines.index("TCVT(r_lhs, th, RoundMode::CAST_RINT);")
    assert cce_lines[start : start + 3] == [
        "TCVT(r_lhs, th, RoundMode::CAST_RINT);",
        "pipe_barrier(PIPE_V);",
        "TADD(r, r_lhs, tf);",
    ]
    pto = compile_source(source, "pto", path="k.py")
    assert not pto.has_errors, pto.diagnostics
    ops = [line.strip().split(" ")[0] for line in pto.text.splitlines() if "pto.t" in line]
    instructions = [op for op in ops if op in ("pto.tcvt", "pto.tadd")]
    assert instructions == ["pto.tcvt", "pto.tadd"]
    tadd = next(line for line in pto.text.splitlines() if "pto.tadd" in line)
    assert "dtype=f16" not in tadd


def test_a_column_vector_is_converted_through_its_own_row_view_in_pto() -> None:
    # PTOAS runs element-wise ops on row-major tiles: the [16, 1] FP16 column and its FP32
    # conversion are each reshaped to [1, 16] of their own dtype ("pto.tcvt op expects src
    # and dst to have compatible shapes" otherwise).
    source = SOURCE.format(
        body="        col = pl.row_max(th, th)\n        r = pl.row_expand_add(tf, col)\n"
        "        pl.store(r, [0, 0], [16, 64], y)\n"
    )
    pto = compile_source(source, "pto", path="k.py")
    assert not pto.has_errors, pto.diagnostics
    lines = pto.text.splitlines()
    start = next(n for n, line in enumerate(lines) if "pto.tcvt" in line)
    row = "rows=1, cols=16, v_row=1, v_col=16, blayout=row_major"
    assert f"dtype=f16, {row}" in lines[start]
    assert f"dtype=f32, {row}" in lines[start + 1]
