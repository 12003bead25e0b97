"""The rest of the block ops and the tensor ops, on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import F16, F32, I16, I32, check, only_return, run, t, tile_op

from ptoc.interp import InterpError

ROW = np.array([[6, -7, 5]], I32)


@pytest.mark.parametrize(
    ("expr", "result", "expected"),
    [
        ("pl.block.xor(a, b, pl.block.create_tile([1, 3], dtype=pl.INT32))", I32, [[5, -8, 6]]),
        ("pl.block.ands(a, 6)", I32, [[6, 0, 4]]),
        ("pl.block.ors(a, 1)", I32, [[7, -7, 5]]),
        ("pl.block.xors(a, 1, pl.block.create_tile([1, 3], dtype=pl.INT32))", I32, [[7, -8, 4]]),
        ("pl.block.shls(a, 2)", I32, [[24, -28, 20]]),
        ("pl.block.shrs(a, 1)", I32, [[3, -4, 2]]),
        ("pl.block.rems(a, 4)", np.int64, [[2, 1, 1]]),
        ("pl.block.divs(a, 4)", np.int64, [[1, -1, 1]]),
        ("pl.block.mins(a, 0)", np.int64, [[0, -7, 0]]),
        ("pl.block.subc(a, b, b)", I32, [[6, -7, 5]]),
    ],
)
def test_integer_tile_ops(expr: str, result: type, expected: list[list[int]]) -> None:
    y = np.array([[3, 1, 3]], I32)
    check(tile_op(expr, ROW, y, result=t((1, 3), result)), expected, result)


def test_a_zero_scalar_divisor_is_an_error_for_floats_too() -> None:
    x = np.array([[1, 2]], F32)
    with pytest.raises(InterpError, match="block.divs: the scalar is zero"):
        tile_op("pl.block.divs(a, 0.0)", x, result=t((1, 2), F32))
    with pytest.raises(InterpError, match="block.rems: the scalar is zero"):
        tile_op("pl.block.rems(a, 0.0)", x, result=t((1, 2), F32))


def test_float_tile_ops() -> None:
    x = np.array([[2, -4, 6]], F32)
    y = np.array([[0.5, 0.5, 2]], F32)
    tmp = "pl.block.create_tile([1, 3], dtype=pl.FP32)"
    check(tile_op(f"pl.block.prelu(a, b, {tmp})", x, y, result=t((1, 3), F32)), [[2, -2, 6]], F32)
    check(tile_op("pl.block.addsc(a, 1.0, b)", x, y, result=t((1, 3), F32)), [[3.5, -2.5, 9]], F32)
    check(tile_op("pl.block.divs(a, 4.0)", x, result=t((1, 3), F32)), [[0.5, -1, 1.5]], F32)
    check(tile_op("pl.block.rems(a, 4.0)", x, result=t((1, 3), F32)), [[2, 0, 2]], F32)
    check(tile_op("pl.block.vec_move(a)", x, result=t((1, 3), F32)), x, F32)


def test_full_and_create_tile() -> None:
    x = np.zeros((1, 1), F32)
    check(
        tile_op("pl.block.full([2, 3], dtype=pl.FP16, value=1.5)", x, result=t((2, 3), F16)),
        np.full((2, 3), 1.5),
        F16,
    )
    check(
        tile_op("pl.block.create_tile([2, 2], dtype=pl.INT16)", x, result=t((2, 2), I16)),
        np.zeros((2, 2)),
        I16,
    )


def test_remaining_row_and_column_expansions() -> None:
    x = np.array([[1, 2], [3, 4]], F32)
    rows = np.array([[10], [100]], F32)
    cols = np.array([[2, 4]], F32)
    check(
        tile_op("pl.row_expand_add(a, b)", x, rows, result=t((2, 2), F32)),
        [[11, 12], [103, 104]],
        F32,
    )
    check(
        tile_op("pl.row_expand_mul(a, b)", x, rows, result=t((2, 2), F32)),
        [[10, 20], [300, 400]],
        F32,
    )
    check(
        tile_op("pl.col_expand_sub(a, b)", x, cols, result=t((2, 2), F32)), [[-1, -2], [1, 0]], F32
    )
    check(
        tile_op("pl.col_expand_div(a, b)", x, cols, result=t((2, 2), F32)),
        [[0.5, 0.5], [1.5, 1]],
        F32,
    )


def test_move_with_transpose() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], F32)
    expr = "pl.move(a, target_memory=pl.MemorySpace.Vec, transpose=True)"
    check(tile_op(expr, x, result=t((3, 2), F32)), x.T, F32)


CUBE = """
@pl.function
def f(x: pl.Tensor[[2, 2], pl.FP32], y: pl.Tensor[[2, 2], pl.FP32],
      bias: pl.Tensor[[1, 2], pl.FP32]) -> pl.Tile[[2, 2], pl.FP32]:
    a = pl.load(x, [0, 0], [2, 2], target_memory=pl.MemorySpace.Mat)
    b = pl.load(y, [0, 0], [2, 2], target_memory=pl.MemorySpace.Mat)
    left = pl.move(a, target_memory=pl.MemorySpace.Left)
    right = pl.move(b, target_memory=pl.MemorySpace.Right)
    bias_tile = pl.load(bias, [0, 0], [1, 2], target_memory=pl.MemorySpace.Mat)
    r = {expr}
    return r
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("pl.gemv(left, right)", [[19, 22], [43, 50]]),
        ("pl.gemv_acc(pl.gemv(left, right), left, right)", [[38, 44], [86, 100]]),
        ("pl.matmul_bias(left, right, bias_tile)", [[20, 20], [44, 48]]),
        ("pl.gemv_bias(left, right, bias_tile)", [[20, 20], [44, 48]]),
    ],
)
def test_cube_ops(expr: str, expected: list[list[int]]) -> None:
    inputs = {
        "x": np.array([[1, 2], [3, 4]], F32),
        "y": np.array([[5, 6], [7, 8]], F32),
        "bias": np.array([[1, -2]], F32),
    }
    check(only_return(CUBE.format(expr=expr), inputs), expected, F32)


def test_fillpad_without_a_valid_region_is_a_copy() -> None:
    x = np.array([[1, 2]], F32)
    check(tile_op("pl.block.fillpad(a)", x, result=t((1, 2), F32)), x, F32)


TENSORS = """
@pl.function
def f(x: pl.Tensor[[2, 3], pl.FP32], y: pl.Tensor[[3, 2], pl.FP32],
      big: pl.Tensor[[4, 4], pl.FP32]) -> {result}:
    r = {expr}
    return r
"""
X = np.array([[1, 2, 3], [4, 5, 6]], F32)
Y = np.array([[1, 0], [0, 1], [2, 2]], F32)


@pytest.mark.parametrize(
    ("expr", "result", "expected"),
    [
        ("pl.matmul(x, y)", "pl.Tensor[[2, 2], pl.FP32]", [[7, 8], [16, 17]]),
        ("pl.matmul(x, x, b_trans=True)", "pl.Tensor[[2, 2], pl.FP32]", [[14, 32], [32, 77]]),
        (
            "pl.matmul(y, y, a_trans=True, out_dtype=pl.FP16)",
            "pl.Tensor[[2, 2], pl.FP16]",
            [[5, 4], [4, 5]],
        ),
        ("pl.add(x, 1.0)", "pl.Tensor[[2, 3], pl.FP32]", [[2, 3, 4], [5, 6, 7]]),
        ("pl.tensor.sub(x, 1.0)", "pl.Tensor[[2, 3], pl.FP32]", [[0, 1, 2], [3, 4, 5]]),
        ("pl.mul(x, x)", "pl.Tensor[[2, 3], pl.FP32]", [[1, 4, 9], [16, 25, 36]]),
        ("pl.div(x, 2.0)", "pl.Tensor[[2, 3], pl.FP32]", [[0.5, 1, 1.5], [2, 2.5, 3]]),
        (
            "pl.maximum(x, pl.tensor.view(big, [2, 3], [1, 1]))",
            "pl.Tensor[[2, 3], pl.FP32]",
            [[5, 6, 7], [9, 10, 11]],
        ),
        ("pl.row_max(x)", "pl.Tensor[[2, 1], pl.FP32]", [[3], [6]]),
        ("pl.row_sum(x)", "pl.Tensor[[2, 1], pl.FP32]", [[6], [15]]),
        ("pl.tensor.reshape(x, [3, 2])", "pl.Tensor[[3, 2], pl.FP32]", [[1, 2], [3, 4], [5, 6]]),
        ("pl.tensor.transpose(x, 0, 1)", "pl.Tensor[[3, 2], pl.FP32]", [[1, 4], [2, 5], [3, 6]]),
        (
            "pl.tensor.cast(x, target_type=pl.INT32)",
            "pl.Tensor[[2, 3], pl.INT32]",
            [[1, 2, 3], [4, 5, 6]],
        ),
        ("pl.tensor.read(x, [1, 2])", "pl.Scalar[pl.FP32]", 6),
        ("pl.tensor.dim(y, -2)", "pl.Scalar[pl.INT64]", 3),
    ],
)
def test_tensor_ops(expr: str, result: str, expected: object) -> None:
    big = np.arange(16, dtype=F32).reshape(4, 4)
    value = only_return(TENSORS.format(expr=expr, result=result), {"x": X, "y": Y, "big": big})
    np.testing.assert_array_equal(value, np.asarray(expected))


def test_tensor_exp_of_integers_is_float() -> None:
    source = """
    @pl.function
    def f(x: pl.Tensor[[1, 2], pl.INT32]) -> pl.Tensor[[1, 2], pl.FP32]:
        r = pl.exp(x)
        return r
    """
    value = only_return(source, {"x": np.array([[0, 1]], I32)})
    check(value, [[1, np.float32(np.e)]], F32)


def test_assemble_and_views_write_into_the_tensor() -> None:
    source = """
    @pl.function
    def f(big: pl.Tensor[[4, 4], pl.FP32], x: pl.Tensor[[2, 2], pl.FP32]
          ) -> pl.Tensor[[4, 4], pl.FP32]:
        fresh = pl.create_tensor([2, 2], dtype=pl.FP32)
        big = pl.assemble(big, x, [2, 1])
        corner = pl.tensor.view(big, [2, 2], [0, 0])
        corner = pl.assemble(corner, fresh, [0, 0])
        return big
    """
    big = np.ones((4, 4), F32)
    result = run(source, {"big": big, "x": np.array([[5, 6], [7, 8]], F32)})
    expected = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [1, 5, 6, 1], [1, 7, 8, 1]], F32)
    np.testing.assert_array_equal(result.outputs["big"], expected)
    np.testing.assert_array_equal(result.returns[0], expected)
    assert big.sum() == 16  # the input itself is untouched


def test_an_atomic_assemble_or_store_adds_into_the_window() -> None:
    """``atomic=pl.AtomicType.Add`` (split-K's partial products) adds; Max keeps the larger;
    without it the window is overwritten."""
    source = """
    @pl.function
    def f(big: pl.Tensor[[2, 4], pl.FP32], x: pl.Tensor[[2, 2], pl.FP32]
          ) -> pl.Tensor[[2, 4], pl.FP32]:
        big = pl.assemble(big, x, [0, 0], atomic=pl.AtomicType.Add)
        big = pl.assemble(big, x, [0, 0], atomic=pl.AtomicType.Add)
        big = pl.assemble(big, x, [0, 2], atomic=pl.AtomicType.Max)
        t: pl.Tile[[2, 2], pl.FP32] = pl.load(x, [0, 0], [2, 2])
        big = pl.store(t, [0, 1], big, atomic=pl.AtomicType.Add)
        return big
    """
    big = np.array([[1, 1, 9, 0], [1, 1, 0, 9]], F32)
    x = np.array([[5, 6], [7, 8]], F32)
    result = run(source, {"big": big, "x": x})
    expected = np.array([[11, 18, 15, 6], [15, 24, 15, 9]], F32)
    np.testing.assert_array_equal(result.returns[0], expected)
