"""What the interpreter computes for the ops PyPTO 2026-08 added (ops/semantics_2608.py)."""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import F32, I32, check, only_return, t, tile_op

from ptoc.interp import InterpError

X = np.array([[1, -2, 3], [4, 5, -6]], F32)


def test_column_reductions_keep_a_row() -> None:
    check(tile_op("pl.block.col_max(a)", X, result=t((1, 3), F32)), [[4, 5, 3]], F32)
    check(tile_op("pl.block.col_min(a)", X, result=t((1, 3), F32)), [[1, -2, -6]], F32)
    check(tile_op("pl.block.col_sum(a)", X, result=t((1, 3), F32)), [[5, 3, -3]], F32)
    check(tile_op("pl.block.col_prod(a)", X, result=t((1, 3), F32)), [[4, -10, -18]], F32)


def test_row_product_and_concat() -> None:
    check(tile_op("pl.block.row_prod(a, a)", X, result=t((2, 1), F32)), [[-6], [-120]], F32)
    joined = tile_op("pl.block.concat(a, a)", X, result=t((2, 6), F32))
    check(joined, np.concatenate([X, X], axis=1), F32)


def test_fmod_takes_the_dividends_sign() -> None:
    x = np.array([[5.5, -5.5, 7]], F32)
    y = np.array([[2, 2, -4]], F32)
    check(tile_op("pl.block.fmod(a, b)", x, y, result=t((1, 3), F32)), [[1.5, -1.5, 3]], F32)
    check(tile_op("pl.block.fmods(a, 2.0)", x, result=t((1, 3), F32)), [[1.5, -1.5, 1]], F32)
    with pytest.raises(InterpError, match="fmod by zero"):
        tile_op("pl.block.fmods(a, 0.0)", x, result=t((1, 3), F32))


def test_sine_and_cosine() -> None:
    x = np.array([[0, np.pi / 2]], F32)
    check(tile_op("pl.block.sin(a)", x, result=t((1, 2), F32)), [[0, 1]], F32)
    cos = tile_op("pl.block.cos(a)", x, result=t((1, 2), F32))
    np.testing.assert_allclose(cos, [[1, 0]], atol=1e-7)


def test_integer_column_sum() -> None:
    x = np.array([[1, 2], [3, 4]], I32)
    check(tile_op("pl.block.col_sum(a)", x, result=t((1, 2), I32)), [[4, 6]], I32)


TENSOR_ACC = """
@pl.function
def f(acc: pl.Tensor[[2, 2], pl.FP32], x: pl.Tensor[[2, 3], pl.FP32],
      y: pl.Tensor[[3, 2], pl.FP32]) -> pl.Tensor[[2, 2], pl.FP32]:
    r = pl.tensor.matmul_acc(acc, {operands})
    return r
"""


@pytest.mark.parametrize(
    ("operands", "product"),
    [("x, y", [[7, 8], [16, 17]]), ("y, x, True, True", [[7, 16], [8, 17]])],
)
def test_tensor_matmul_acc_adds_the_product_to_the_accumulator(
    operands: str, product: list[list[int]]
) -> None:
    """acc + x @ y (the transposed operands: y.T @ x.T = (x @ y).T)."""
    x = np.array([[1, 2, 3], [4, 5, 6]], F32)
    y = np.array([[1, 0], [0, 1], [2, 2]], F32)
    acc = np.array([[1, 2], [3, 4]], F32)
    value = only_return(TENSOR_ACC.format(operands=operands), {"acc": acc, "x": x, "y": y})
    check(value, acc + np.asarray(product, F32), F32)


def test_a_tile_assembled_into_a_tile_keeps_the_rest_of_the_target() -> None:
    """pl.tile.assemble (TINSERT Vec -> Vec): the source at the offset, the target elsewhere."""
    target = np.arange(16, dtype=F32).reshape(4, 4)
    source = np.full((2, 2), -1, dtype=F32)
    expected = target.copy()
    expected[1:3, 2:4] = -1
    assembled = tile_op("pl.tile.assemble(a, b, [1, 2])", target, source, result=t((4, 4), F32))
    check(assembled, expected, F32)
    with pytest.raises(InterpError, match="outside"):  # TINSERT asserts the window fits
        tile_op("pl.tile.assemble(a, b, [3, 3])", target, source, result=t((4, 4), F32))
