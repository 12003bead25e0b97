"""Op semantics on small hand-computed cases: dtype rounding, wrapping, pto-isa's encodings."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from interp_support import (
    BF16,
    F16,
    F32,
    I8,
    I16,
    I32,
    U8,
    check,
    only_return,
    program_of,
    t,
    tile_kernel,
    tile_op,
)

from ptoc.driver import run_pipeline
from ptoc.interp import InterpError
from ptoc.interp.opcall import OpCall
from ptoc.ir.expr import Call
from ptoc.ir.stmt import AssignStmt, SeqStmts, Stmt
from ptoc.ops.semantics import SEMANTICS

# --- arithmetic and rounding ----------------------------------------------------------------


def test_fp16_addition_rounds_to_half_after_each_operation() -> None:
    # 2048 + 1 is 2049, not a half: it rounds (to even) back to 2048; adding 1 twice in a
    # row with addc rounds twice, so 2048 + 1 + 1 stays 2048.
    x = np.array([[2048, 1]], F16)
    y = np.array([[1, 2]], F16)
    check(tile_op("pl.add(a, b)", x, y, result=t((1, 2), F16)), [[2048, 3]], F16)
    check(tile_op("pl.block.addc(a, b, b)", x, y, result=t((1, 2), F16)), [[2048, 5]], F16)


def test_bf16_multiplication_rounds_to_bfloat16() -> None:
    # 1.0078125 = 1 + 2**-7 is exact in bf16; its square 1 + 2**-6 + 2**-14 is not.
    x = np.array([[1.0078125, 3]], BF16)
    check(tile_op("pl.mul(a, a)", x, result=t((1, 2), BF16)), [[1.015625, 9]], BF16)


def test_int8_arithmetic_wraps() -> None:
    x = np.array([[127, -128, 100]], I8)
    y = np.array([[1, -1, 100]], I8)
    check(tile_op("pl.add(a, b)", x, y, result=t((1, 3), I8)), [[-128, 127, -56]], I8)
    check(tile_op("pl.mul(a, b)", x, y, result=t((1, 3), I8)), [[127, -128, 16]], I8)


def test_integer_division_truncates_and_rem_takes_the_divisors_sign() -> None:
    x = np.array([[7, -7, 7, -7]], I32)
    y = np.array([[2, 2, -2, -2]], I32)
    check(tile_op("pl.div(a, b)", x, y, result=t((1, 4), I32)), [[3, -3, -3, 3]], I32)
    check(tile_op("pl.rem(a, b)", x, y, result=t((1, 4), I32)), [[1, 1, -1, -1]], I32)


def test_float_rem_is_fmod_moved_to_the_divisors_sign() -> None:
    x = np.array([[5.5, -5.5, 5.5]], F32)
    y = np.array([[2, 2, -2]], F32)
    check(tile_op("pl.rem(a, b)", x, y, result=t((1, 3), F32)), [[1.5, 0.5, -0.5]], F32)


def test_integer_division_by_zero_is_an_error_at_the_call() -> None:
    x = np.array([[1, 2]], I32)
    y = np.array([[1, 0]], I32)
    with pytest.raises(InterpError) as error:
        tile_op("pl.div(a, b)", x, y, result=t((1, 2), I32))
    assert "integer division by zero" in str(error.value)
    span = error.value.span  # the call `pl.div(a, b)` on line 8 of the kernel
    assert (span.line, span.column, span.end_line, span.end_column) == (8, 8, 8, 20)


def test_float_division_by_zero_is_infinite() -> None:
    x = np.array([[1, -1]], F32)
    y = np.array([[0, 0]], F32)
    check(tile_op("pl.div(a, b)", x, y, result=t((1, 2), F32)), [[np.inf, -np.inf]], F32)


def test_scalar_operand_promotes_the_tile() -> None:
    # An INT32 tile plus the literal 1 (INT64) is an INT64 tile.
    x = np.array([[2**31 - 1, 0]], I32)
    check(tile_op("pl.add(a, 1)", x, result=t((1, 2), np.int64)), [[2**31, 1]], np.int64)


def test_fp32_scalar_ops() -> None:
    x = np.array([[1, -2, 3]], F32)
    check(tile_op("pl.mul(a, 0.5)", x, result=t((1, 3), F32)), [[0.5, -1, 1.5]], F32)
    check(tile_op("pl.block.maxs(a, 0.0)", x, result=t((1, 3), F32)), [[1, 0, 3]], F32)
    check(tile_op("pl.block.lrelu(a, 0.25)", x, result=t((1, 3), F32)), [[1, -0.5, 3]], F32)
    check(tile_op("pl.block.subsc(a, 1.0, a)", x, result=t((1, 3), F32)), [[1, -5, 5]], F32)


def test_broadcasting_row_against_matrix() -> None:
    x = arange2((2, 3), F32)
    y = np.array([[10, 20, 30]], F32)
    check(tile_op("pl.add(a, b)", x, y, result=t((2, 3), F32)), [[10, 21, 32], [13, 24, 35]], F32)


def arange2(shape: tuple[int, int], dtype: Any) -> np.ndarray:
    return np.arange(shape[0] * shape[1]).reshape(shape).astype(dtype)


def test_unary_ops() -> None:
    x = np.array([[4, 0.25, 1]], F32)
    check(tile_op("pl.sqrt(a)", x, result=t((1, 3), F32)), [[2, 0.5, 1]], F32)
    check(tile_op("pl.rsqrt(a)", x, result=t((1, 3), F32)), [[0.5, 2, 1]], F32)
    check(tile_op("pl.recip(a)", x, result=t((1, 3), F32)), [[0.25, 4, 1]], F32)
    check(
        tile_op("pl.log(a)", x, result=t((1, 3), F32)),
        [[np.float32(np.log(4.0)), np.float32(np.log(0.25)), 0]],
        F32,
    )
    y = np.array([[-3, 0, 2]], F32)
    check(tile_op("pl.neg(a)", y, result=t((1, 3), F32)), [[3, 0, -2]], F32)
    check(tile_op("pl.abs(a)", y, result=t((1, 3), F32)), [[3, 0, 2]], F32)
    check(tile_op("pl.relu(a)", y, result=t((1, 3), F32)), [[0, 0, 2]], F32)


def test_exp_of_an_integer_tile_truncates() -> None:
    x = np.array([[0, 1, 2, 3]], I32)  # e^x = 1, 2.718.., 7.389.., 20.08..
    check(tile_op("pl.exp(a)", x, result=t((1, 4), I32)), [[1, 2, 7, 20]], I32)


def test_exp_of_fp16_goes_through_float() -> None:
    x = np.array([[0, 1, -1]], F16)
    expected = np.exp(np.array([0, 1, -1], np.float64)).astype(F32).astype(F16)
    check(tile_op("pl.exp(a)", x, result=t((1, 3), F16)), [expected], F16)


def test_bitwise_and_shift_ops() -> None:
    x = np.array([[12, -1, 1]], I16)
    y = np.array([[10, 3, 15]], I16)
    check(tile_op("pl.and_(a, b)", x, y, result=t((1, 3), I16)), [[8, 3, 1]], I16)
    check(tile_op("pl.or_(a, b)", x, y, result=t((1, 3), I16)), [[14, -1, 15]], I16)
    check(tile_op("pl.block.shl(a, b)", x, y, result=t((1, 3), I16)), [[12288, -8, -32768]], I16)
    check(tile_op("pl.block.shr(a, b)", x, y, result=t((1, 3), I16)), [[0, -1, 0]], I16)
    check(tile_op("pl.not_(a)", x, result=t((1, 3), I16)), [[-13, 0, -2]], I16)


def test_minimum_and_maximum_of_tiles() -> None:
    x = np.array([[1, 5, -2]], F32)
    y = np.array([[3, 4, -2]], F32)
    check(tile_op("pl.maximum(a, b)", x, y, result=t((1, 3), F32)), [[3, 5, -2]], F32)
    check(tile_op("pl.minimum(a, b)", x, y, result=t((1, 3), F32)), [[1, 4, -2]], F32)


# --- casts ----------------------------------------------------------------------------------

CAST_INPUT = np.array([[2.5, -2.5, 3.5, -0.7, 1.2]], F32)
CAST_EXPECTED = {
    "round": [3, -3, 4, -1, 1],  # halves away from zero
    "rint": [2, -2, 4, -1, 1],  # halves to even
    "floor": [2, -3, 3, -1, 1],
    "ceil": [3, -2, 4, 0, 2],
    "trunc": [2, -2, 3, 0, 1],
    "none": [2, -2, 3, 0, 1],  # C's conversion truncates
    "odd": [3, -3, 3, -1, 1],  # halves to the odd neighbour
}


@pytest.mark.parametrize("mode", sorted(CAST_EXPECTED))
def test_float_to_int_cast_modes(mode: str) -> None:
    expr = f'pl.cast(a, target_type=pl.INT32, mode="{mode}")'
    check(tile_op(expr, CAST_INPUT, result=t((1, 5), I32)), [CAST_EXPECTED[mode]], I32)


def test_cast_mode_by_number() -> None:
    check(
        tile_op("pl.cast(a, target_type=pl.INT32, mode=3)", CAST_INPUT, result=t((1, 5), I32)),
        [CAST_EXPECTED["floor"]],
        I32,
    )


def test_float_to_half_cast_rounds_to_nearest_even_and_overflows_to_inf() -> None:
    x = np.array([[1 + 2**-11, 1 + 3 * 2**-11, 70000]], F32)
    check(
        tile_op("pl.cast(a, target_type=pl.FP16)", x, result=t((1, 3), F16)),
        [[1, 1 + 2**-9, np.inf]],
        F16,
    )


def test_int_to_int_cast_wraps() -> None:
    x = np.array([[300, -129, 127]], I32)
    check(tile_op("pl.cast(a, target_type=pl.INT8)", x, result=t((1, 3), I8)), [[44, 127, 127]], I8)


# --- comparison and selection ---------------------------------------------------------------


def test_cmp_is_one_where_the_comparison_holds_in_the_promoted_dtype() -> None:
    x = np.array([[1, 5, 3, 0], [9, 9, 9, 9]], F32)
    y = np.array([[2, 2, 4, 1], [0, 9, 10, 1]], F32)
    result = tile_op("pl.cmp(a, b, cmp_type=2)", x, y, result=t((2, 4), F32))
    check(result, [[1, 0, 1, 1], [0, 0, 1, 0]], F32)


@pytest.mark.parametrize(
    ("cmp_type", "values"),
    [
        (0, [0, 1, 0, 0]),
        (1, [1, 0, 1, 1]),
        (2, [1, 0, 0, 0]),
        (3, [1, 1, 0, 0]),
        (4, [0, 0, 1, 1]),
        (5, [0, 1, 1, 1]),
    ],
)
def test_every_compare_type(cmp_type: int, values: list[int]) -> None:
    x = np.array([[1, 2, 3, 4]], I32)
    y = np.array([[2, 2, 2, 2]], I32)
    result = tile_op(f"pl.cmp(a, b, cmp_type={cmp_type})", x, y, result=t((1, 4), I32))
    check(result, [values], I32)


def test_cmp_mask_packs_each_row_into_bits_as_tcmp_does_and_select_scalar_reads_them() -> None:
    # What block.cmp is computed with after AddReductionScratch. LT per row: bits 0, 2, 3,
    # 7, 8 of row 0 -> bytes 0b10001101 = 141 and 1; row 1: bits 3 and 8 -> 8 and 1; the rest
    # of each 32-byte mask row is zero. select_scalar reads row r's bit c from byte c // 8.
    x = np.array([[1, 5, 3, 0, 1, 1, 1, 1, 1], [9, 9, 9, 9, 9, 9, 9, 9, 0]], F32)
    y = np.array([[2, 2, 4, 1, 0, 0, 0, 2, 2], [0, 0, 0, 10, 0, 0, 0, 0, 1]], F32)
    source = tile_kernel(
        "a = pl.load(x, [0, 0], [2, 9])\n"
        "b = pl.load(y, [0, 0], [2, 9])\n"
        "r = pl.cmp(a, b, cmp_type=2)\n"
        "return r",
        "x: pl.Tensor[[2, 9], pl.FP32], y: pl.Tensor[[2, 9], pl.FP32]",
        t((2, 9), F32),
    )
    program = program_of(source)
    rewritten = run_pipeline(program, ["ConvertToSSA", "AddReductionScratch"]).program
    function = rewritten.function("f")
    assert function is not None
    calls = {s.var.name: s.value for s in _assignments(function.body)}
    mask = SEMANTICS["block.cmp_mask"](OpCall(calls["r_mask"], (x, y)))
    expected = np.zeros((2, 32), U8)
    expected[0, :2], expected[1, :2] = [141, 1], [8, 1]
    check(mask, expected, U8)
    tmp = np.zeros((1, 8), F32)
    picked = SEMANTICS["block.select_scalar"](
        OpCall(calls["r"], (mask, np.full(x.shape, 7, F32), tmp, 0.0))
    )
    check(picked, np.where(x < y, 7, 0), F32)


def _assignments(stmt: Stmt) -> list[AssignStmt]:
    if isinstance(stmt, SeqStmts):
        return [a for inner in stmt.stmts for a in _assignments(inner)]
    return [stmt] if isinstance(stmt, AssignStmt) else []


def test_cmps_is_one_where_the_comparison_with_the_scalar_holds() -> None:
    x = np.array([[i + 8 * r for i in range(8)] for r in range(4)], F32)
    result = tile_op("pl.cmps(a, 9.5, cmp_type=4)", x, result=t((4, 8), F32))
    check(result, (x > 9.5).astype(F32), F32)


def test_cmps_equality_is_within_1e_9_in_double() -> None:
    x = np.array([[1, 2, 1, 1, 1, 1, 1, 3]], F32)
    result = tile_op("pl.cmps(a, 1.0, cmp_type=0)", x, result=t((1, 8), F32))
    check(result, [[1, 0, 1, 1, 1, 1, 1, 0]], F32)
    result = tile_op("pl.cmps(a, 1.0, cmp_type=1)", x, result=t((1, 8), F32))
    check(result, [[0, 1, 0, 0, 0, 0, 0, 1]], F32)


def test_cmps_mask_packs_each_row_as_cmp_mask_does() -> None:
    # What block.cmps is computed with after AddReductionScratch: row 0 GE 3 holds at
    # columns 3..7 -> 0b11111000 = 248, row 1 everywhere -> 255; the rest of each 32-byte
    # mask row is zero (TCMPS on pto-isa's CPU simulator writes the same bytes).
    x = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]], F32)
    source = tile_kernel(
        "a = pl.load(x, [0, 0], [2, 8])\nr = pl.cmps(a, 3.0, cmp_type=5)\nreturn r",
        "x: pl.Tensor[[2, 8], pl.FP32]",
        t((2, 8), F32),
    )
    rewritten = run_pipeline(program_of(source), ["ConvertToSSA", "AddReductionScratch"])
    function = rewritten.program.function("f")
    assert function is not None
    calls = {s.var.name: s.value for s in _assignments(function.body)}
    assert isinstance(calls["r_mask"], Call) and calls["r_mask"].op_name == "block.cmps_mask"
    mask = SEMANTICS["block.cmps_mask"](OpCall(calls["r_mask"], (x, np.float32(3.0))))
    expected = np.zeros((2, 32), U8)
    expected[:, 0] = [248, 255]
    check(mask, expected, U8)


def test_sel_picks_lhs_where_cmp_is_one() -> None:
    x = np.array([[1, 5, 3, 0, 9, 9, 9, 9], [1, 1, 1, 1, 1, 1, 1, 8]], F32)
    y = np.array([[2, 2, 4, 1, 0, 0, 0, 10], [2, 2, 2, 2, 2, 2, 2, 2]], F32)
    result = tile_op("pl.sel(pl.cmp(a, b, cmp_type=2), a, b)", x, y, result=t((2, 8), F32))
    check(result, np.minimum(x, y), F32)


def test_sel_picks_lhs_where_the_mask_is_nonzero() -> None:
    mask = np.array([[0, 1, -2, 0.5], [np.nan, 0, -0.0, 3]], F32)
    x = np.full((2, 4), 1, F32)
    y = np.full((2, 4), 2, F32)
    result = tile_op("pl.sel(a, b, c)", mask, x, z=y, result=t((2, 4), F32))
    check(result, [[2, 1, 1, 1], [1, 2, 2, 1]], F32)


def test_sels_picks_lhs_only_for_mode_one() -> None:
    x = np.array([[1, 2]], F32)
    y = np.array([[3, 4]], F32)
    check(tile_op("pl.block.sels(a, b, 1)", x, y, result=t((1, 2), F32)), [[1, 2]], F32)
    check(tile_op("pl.block.sels(a, b, 2)", x, y, result=t((1, 2), F32)), [[3, 4]], F32)


# --- reductions and broadcasts --------------------------------------------------------------


def test_sum_over_rows_and_columns() -> None:
    x = arange2((2, 3), F32)
    check(tile_op("pl.sum(a, axis=1, keepdim=True)", x, result=t((2, 1), F32)), [[3], [12]], F32)
    check(tile_op("pl.sum(a, axis=0)", x, result=t((3,), F32)), [3, 5, 7], F32)
    check(tile_op("pl.max(a, axis=-1)", x, result=t((2,), F32)), [2, 5], F32)
    check(tile_op("pl.min(a, axis=0, keepdim=True)", x, result=t((1, 3), F32)), [[0, 1, 2]], F32)


def test_fp16_row_sum_accumulates_in_float_column_sum_in_half() -> None:
    # 2048 + 1 + 1: in float 2050 (a half); in half each + 1 rounds back to 2048.
    x = np.array([[2048, 1, 1], [1, 0, 0], [1, 0, 0]], F16)
    check(tile_op("pl.sum(a, axis=1)", x, result=t((3,), F16)), [2050, 1, 1], F16)
    check(tile_op("pl.sum(a, axis=0)", x.T.copy(), result=t((3,), F16)), [2048, 1, 1], F16)


def test_row_reductions_with_tmp_tile() -> None:
    x = np.array([[3, -1, 2], [0, 7, 7]], F32)
    tmp = "pl.block.create_tile([2, 3], dtype=pl.FP32)"
    check(tile_op(f"pl.block.row_max(a, {tmp})", x, result=t((2, 1), F32)), [[3], [7]], F32)
    check(tile_op(f"pl.block.row_min(a, {tmp})", x, result=t((2, 1), F32)), [[-1], [0]], F32)
    check(tile_op(f"pl.block.row_sum(a, {tmp})", x, result=t((2, 1), F32)), [[4], [14]], F32)


def test_row_and_column_expansions() -> None:
    x = arange2((2, 3), F32)
    rows = np.array([[10], [20]], F32)
    cols = np.array([[1, 2, 4]], F32)
    check(
        tile_op("pl.row_expand_sub(a, b)", x, rows, result=t((2, 3), F32)),
        [[-10, -9, -8], [-17, -16, -15]],
        F32,
    )
    check(
        tile_op("pl.row_expand_div(a, b)", x, rows, result=t((2, 3), F32)),
        [[0, 0.1, 0.2], [0.15, 0.2, 0.25]],
        F32,
    )
    check(
        tile_op("pl.col_expand_mul(a, b)", x, cols, result=t((2, 3), F32)),
        [[0, 2, 8], [3, 8, 20]],
        F32,
    )
    check(
        tile_op("pl.col_expand(a, b)", x, cols, result=t((2, 3), F32)), [[1, 2, 4], [1, 2, 4]], F32
    )
    check(tile_op("pl.row_expand(a)", x, result=t((2, 3), F32)), [[0, 0, 0], [3, 3, 3]], F32)
    check(tile_op("pl.expands(a, 7.0)", x, result=t((2, 3), F32)), np.full((2, 3), 7), F32)


def test_tile_view_reshape_transpose() -> None:
    x = arange2((3, 4), F32)
    check(
        tile_op("pl.block.view(a, [2, 2], [1, 2])", x, result=t((2, 2), F32)),
        [[6, 7], [10, 11]],
        F32,
    )
    check(
        tile_op("pl.block.reshape(a, [2, 6])", x, result=t((2, 6), F32)),
        np.arange(12).reshape(2, 6),
        F32,
    )
    check(
        tile_op("pl.block.transpose(a, 0, 1)", x, result=t((4, 3), F32)),
        np.arange(12).reshape(3, 4).T,
        F32,
    )


# --- matmul ---------------------------------------------------------------------------------

MATMUL_KERNEL = """
@pl.function
def f(x: pl.Tensor[[2, 3], {dt}], y: pl.Tensor[[3, 2], {dt}],
      out: pl.Tensor[[2, 2], pl.FP32]) -> pl.Tensor[[2, 2], pl.FP32]:
    a = pl.load(x, [0, 0], [2, 3], target_memory=pl.MemorySpace.Mat)
    b = pl.load(y, [0, 0], [3, 2], target_memory=pl.MemorySpace.Mat)
    left = pl.move(a, target_memory=pl.MemorySpace.Left)
    right = pl.move(b, target_memory=pl.MemorySpace.Right)
    c = pl.matmul(left, right)
    d = pl.matmul_acc(c, left, right)
    r = pl.l0c_store(d, [0, 0], [2, 2], out)
    return r
"""


def test_matmul_then_accumulate_and_store_from_acc() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], F16)
    y = np.array([[1, 0], [0, 1], [1, 1]], F16)
    value = only_return(
        MATMUL_KERNEL.format(dt="pl.FP16"), {"x": x, "y": y, "out": np.zeros((2, 2), F32)}
    )
    check(value, 2 * np.array([[4, 5], [10, 11]]), F32)


def test_matmul_accumulates_in_float_with_one_fused_step_per_k() -> None:
    # 2**24 + 1 + 1: each step rounds in float, so the two ones are lost one at a time.
    x = np.array([[2**24, 1, 1], [0, 0, 0]], F32)
    y = np.array([[1, 0], [1, 0], [1, 0]], F32)
    value = only_return(
        MATMUL_KERNEL.format(dt="pl.FP32"), {"x": x, "y": y, "out": np.zeros((2, 2), F32)}
    )
    check(value, [[2 * 2**24, 0], [0, 0]], F32)


def test_fp32_row_sum_adds_in_order() -> None:
    # TROWSUM's loop: 1e8 absorbs every 1 (half an ulp or less), then -1e8 cancels: 0. A
    # pairwise or vectorised sum would keep some of the ones.
    x = np.ones((1, 64), F32)
    x[0, 0], x[0, 63] = 1e8, -1e8
    check(tile_op("pl.sum(a, axis=1)", x, result=t((1,), F32)), [0], F32)
