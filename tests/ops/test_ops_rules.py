"""The shared rules of spec section 6: promotion, broadcasting, symbolic dims, unknown operands."""

from __future__ import annotations

import pytest
from ir_builder import (
    BF16,
    FP16,
    FP32,
    INT8,
    INT32,
    INT64,
    UINT16,
    i,
    ints,
    scalar,
    tensor,
    tensor_t,
    tile,
    tile_t,
)
from ops_ir import assert_error, assert_type, deduce, error

from ptoc.ir import UNKNOWN, DataType, MemorySpace, TileView, Var, make_tuple
from ptoc.ir.types import BLayout
from ptoc.ops.rules import ACC_VIEW, MAT_VIEW, const_int_value, promote_all, view_for


@pytest.mark.parametrize(
    ("dtypes", "expected"),
    [
        ((FP32, FP32), FP32),
        ((INT32, FP16), FP16),  # float beats int
        ((FP16, FP32), FP32),  # wider wins
        ((INT8, INT32), INT32),
        ((UINT16, DataType.INT16), DataType.INT16),  # equal width: the signed one
        ((FP16, BF16), FP16),  # equal width floats: the first
        ((INT32, INT64, FP16), FP16),
    ],
)
def test_promotion(dtypes: tuple[DataType, ...], expected: DataType) -> None:
    assert promote_all(dtypes) is expected


def test_int32_tile_plus_int_literal_is_int64() -> None:
    # The original's checked behaviour: a literal is INT64, so the promotion widens.
    assert_type(
        deduce("block.adds", lhs=tile(8, 8, dtype=INT32), scalar=i(1)),
        tile_t(8, 8, dtype=INT64),
    )


@pytest.mark.parametrize(
    ("lhs", "rhs", "expected"),
    [
        ((32, 32), (32, 32), (32, 32)),
        ((32, 32), (1, 32), (32, 32)),
        ((32, 1), (1, 16), (32, 16)),
        ((4, 32, 32), (32, 32), (4, 32, 32)),  # missing leading dims come from the longer one
        ((32,), (4, 8, 32), (4, 8, 32)),
        ((1, 1), (7, 9), (7, 9)),
    ],
)
def test_broadcast_shapes(
    lhs: tuple[int, ...], rhs: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    assert_type(deduce("tensor.add", lhs=tensor(*lhs), rhs=tensor(*rhs)), tensor_t(*expected))


def test_broadcast_failure_message() -> None:
    failure = error("tensor.add", lhs=tensor(32, 32), rhs=tensor(16, 16))
    assert_error(
        failure,
        "E307",
        "rhs",
        "tensor.add requires compatible shapes, but got [32, 32] and [16, 16]",
    )


def test_same_dynamic_name_is_the_same_dim() -> None:
    # Each annotation builds its own Var for pl.dynamic("M"); the name makes them one dim.
    first, second = scalar("M"), scalar("M")
    assert first is not second
    result = deduce("tensor.add", lhs=tensor(first, 64), rhs=tensor(second, 64))
    assert_type(result, tensor_t(first, 64))


def test_different_dynamic_names_do_not_broadcast() -> None:
    failure = error("tensor.add", lhs=tensor(scalar("M"), 64), rhs=tensor(scalar("N"), 64))
    assert_error(failure, "E307", "rhs", "but got [M, 64] and [N, 64]")


def test_symbolic_dim_broadcasts_against_one() -> None:
    n = scalar("N")
    assert_type(deduce("block.add", lhs=tile(n, 64), rhs=tile(1, 64)), tile_t(n, 64))


def test_unknown_list_element_is_silent() -> None:
    # A list element whose type is unknown comes from an earlier error: no second error.
    window = make_tuple((Var(UNKNOWN, name="bad"), i(0)))
    assert (
        deduce("block.load", tensor=tensor(64, 64), offsets=window, shapes=ints(32, 32)) == UNKNOWN
    )


def test_unknown_operand_is_silent() -> None:
    assert deduce("block.add", lhs=Var(UNKNOWN, name="bad"), rhs=tile(8, 8)) == UNKNOWN


def test_negated_literal_is_a_constant() -> None:
    from ptoc.ir import Unary, UnaryOp

    negated = Unary(scalar().type, op=UnaryOp.Neg, operand=i(3))
    assert const_int_value(negated) == -3
    assert const_int_value(scalar()) is None


def test_memory_space_views() -> None:
    assert view_for(MemorySpace.Vec) is None
    assert view_for(MemorySpace.Mat) == MAT_VIEW
    assert MAT_VIEW.blayout is BLayout.col_major
    assert view_for(MemorySpace.Left) == TileView(
        blayout=BLayout.row_major, slayout=BLayout.row_major
    )
    assert view_for(MemorySpace.Right) == TileView(
        blayout=BLayout.row_major, slayout=BLayout.col_major
    )
    assert view_for(MemorySpace.Acc) == ACC_VIEW
    assert (ACC_VIEW.blayout, ACC_VIEW.slayout, ACC_VIEW.fractal) == (
        BLayout.col_major,
        BLayout.row_major,
        1024,
    )
