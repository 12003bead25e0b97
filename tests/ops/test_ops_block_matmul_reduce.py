"""Block matmul family (7.4) and reductions, broadcasts and transforms (7.5)."""

from __future__ import annotations

import pytest
from ir_builder import FP16, FP32, INT8, INT32, INT64, UINT64, i, ints, scalar, tensor, tile, tile_t
from ops_ir import assert_error, assert_type, deduce, error

from ptoc.ir import ScalarType
from ptoc.ops.rules import ACC_VIEW

# --- matmul / gemv ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["matmul", "gemv"])
def test_matmul(name: str) -> None:
    result = deduce(f"block.{name}", lhs=tile(16, 64, dtype=FP16), rhs=tile(64, 32, dtype=FP16))
    assert_type(result, tile_t(16, 32, dtype=FP32, view=ACC_VIEW))
    result = deduce(f"block.{name}", lhs=tile(16, 64, dtype=INT8), rhs=tile(64, 32, dtype=INT8))
    assert_type(result, tile_t(16, 32, dtype=INT32, view=ACC_VIEW))


@pytest.mark.parametrize("name", ["matmul", "gemv"])
def test_matmul_errors(name: str) -> None:
    op = f"block.{name}"
    assert_error(
        error(op, lhs=tile(16, 64, dtype=FP16), rhs=tile(64, 32, dtype=FP32)),
        "E306",
        "rhs",
        f"{op}: 'lhs' and 'rhs' must have the same dtype, got FP16 and FP32",
    )
    assert_error(
        error(op, lhs=tile(16, 64), rhs=tile(32, 32)),
        "E307",
        "rhs",
        f"{op}: inner dimensions differ: K of 'lhs' is 64 but K of 'rhs' is 32",
    )
    assert_error(
        error(op, lhs=tile(2, 16, 64), rhs=tile(64, 32)),
        "E307",
        "lhs",
        f"{op}: argument 'lhs' must be 2-D, got 3-D",
    )
    assert_error(error(op, lhs=tile(16, 64), rhs=tensor(64, 32)), "E306", "rhs", "must be a tile")
    k = scalar("K")  # a symbolic K cannot be checked
    assert_type(deduce(op, lhs=tile(16, k), rhs=tile(64, 32)), tile_t(16, 32, view=ACC_VIEW))


@pytest.mark.parametrize("name", ["matmul_acc", "gemv_acc"])
def test_matmul_acc(name: str) -> None:
    acc = tile(16, 32, dtype=FP32, name="acc")
    result = deduce(
        f"block.{name}", acc=acc, lhs=tile(16, 64, dtype=FP16), rhs=tile(64, 32, dtype=FP16)
    )
    assert_type(result, tile_t(16, 32, dtype=FP32, view=ACC_VIEW))


@pytest.mark.parametrize("name", ["matmul_acc", "gemv_acc"])
def test_matmul_acc_errors(name: str) -> None:
    op = f"block.{name}"
    lhs, rhs = tile(16, 64), tile(64, 32)
    assert_error(
        error(op, acc=tile(8, 32), lhs=lhs, rhs=rhs),
        "E307",
        "acc",
        f"{op}: M of 'acc' is 8 but the product has M = 16",
    )
    assert_error(
        error(op, acc=tile(16, 8), lhs=lhs, rhs=rhs),
        "E307",
        "acc",
        "N of 'acc' is 8 but the product has N = 32",
    )
    assert_error(
        error(op, acc=tile(16, 32), lhs=lhs, rhs=tile(16, 32)), "E307", "rhs", "K of 'lhs' is 64"
    )
    assert_error(
        error(op, acc=tile(16), lhs=lhs, rhs=rhs),
        "E307",
        "acc",
        "argument 'acc' must be 2-D, got 1-D",
    )


@pytest.mark.parametrize("name", ["matmul_bias", "gemv_bias"])
def test_matmul_bias(name: str) -> None:
    result = deduce(
        f"block.{name}",
        lhs=tile(16, 64, dtype=FP16),
        rhs=tile(64, 32, dtype=FP16),
        bias=tile(1, 32, dtype=FP32),
    )
    assert_type(result, tile_t(16, 32, dtype=FP32, view=ACC_VIEW))


@pytest.mark.parametrize("name", ["matmul_bias", "gemv_bias"])
def test_matmul_bias_errors(name: str) -> None:
    op = f"block.{name}"
    lhs, rhs = tile(16, 64), tile(64, 32)
    assert_error(
        error(op, lhs=lhs, rhs=rhs, bias=tile(2, 32)),
        "E307",
        "bias",
        f"{op}: 'bias' must be [1, 32], got Tile[[2, 32], FP32]",
    )
    assert_error(
        error(op, lhs=lhs, rhs=rhs, bias=tile(1, 16)), "E307", "bias", "'bias' must be [1, 32]"
    )
    assert_error(error(op, lhs=lhs, rhs=rhs, bias=tile(32)), "E307", "bias", "must be 2-D")
    assert_error(
        error(op, lhs=lhs, rhs=tile(32, 32), bias=tile(1, 32)),
        "E307",
        "rhs",
        "inner dimensions differ",
    )


def test_batch_matmul() -> None:
    result = deduce(
        "block.batch_matmul", lhs=tile(4, 1, 16, 64, dtype=FP16), rhs=tile(3, 64, 32, dtype=FP16)
    )
    assert_type(result, tile_t(4, 3, 16, 32, dtype=FP32, view=ACC_VIEW))
    assert_error(
        error("block.batch_matmul", lhs=tile(2, 16, 64), rhs=tile(3, 64, 32)),
        "E307",
        "rhs",
        "but got [2] and [3]",
    )
    assert_error(
        error("block.batch_matmul", lhs=tile(64), rhs=tile(64, 32)), "E307", "lhs", "at least 2-D"
    )


# --- sum / max / min ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "max", "min"])
@pytest.mark.parametrize(
    ("axis", "keepdim", "expected"),
    [
        (1, False, (32,)),
        (1, True, (32, 1)),
        (0, False, (64,)),
        (0, True, (1, 64)),
        (-1, True, (32, 1)),
        (-2, False, (64,)),
    ],
)
def test_reduce(name: str, axis: int, keepdim: bool, expected: tuple[int, ...]) -> None:
    result = deduce(
        f"block.{name}", {"axis": axis, "keepdim": keepdim}, tile=tile(32, 64, dtype=FP16)
    )
    assert_type(result, tile_t(*expected, dtype=FP16))


@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_reduce_to_scalar(name: str) -> None:
    assert deduce(f"block.{name}", {"axis": 0}, tile=tile(64, dtype=INT32)) == ScalarType(INT32)
    assert_type(deduce(f"block.{name}", {"axis": 0, "keepdim": True}, tile=tile(64)), tile_t(1))


@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_reduce_errors(name: str) -> None:
    op = f"block.{name}"
    assert_error(
        error(op, {"axis": 2}, tile=tile(8, 8)),
        "E309",
        "axis",
        f"{op}: axis 2 is out of range for a 2-D operand (expected -2..1)",
    )
    assert_error(
        error(op, {"axis": -3}, tile=tile(8, 8)), "E309", "axis", "axis -3 is out of range"
    )
    assert_error(
        error(op, {}, tile=tile(8, 8)), "E309", "axis", f"{op}: attribute 'axis' is required"
    )
    assert_error(
        error(op, {"axis": 1.0}, tile=tile(8, 8)),
        "E309",
        "axis",
        "attribute 'axis' must be an integer",
    )
    assert_error(
        error(op, {"axis": 0, "keepdim": 1}, tile=tile(8, 8)),
        "E309",
        "keepdim",
        "must be True or False",
    )
    assert_error(error(op, {"axis": 0}, tile=tensor(8, 8)), "E306", "tile", "must be a tile")


# --- row reductions and expansions --------------------------------------------------------------


@pytest.mark.parametrize("name", ["row_sum", "row_max", "row_min"])
def test_row_reductions(name: str) -> None:
    op = f"block.{name}"
    assert_type(
        deduce(op, tile=tile(16, 64, dtype=FP16), tmp_tile=tile(16, 64)),
        tile_t(16, 1, dtype=FP16),
    )
    assert_type(deduce(op, tile=tile(2, 16, 64)), tile_t(2, 16, 1))  # seed 004: no tmp tile
    assert_error(
        error(op, tile=tile(64), tmp_tile=tile(64)),
        "E307",
        "tile",
        f"{op}: argument 'tile' must be at least 2-D, got 1-D",
    )
    assert_error(
        error(op, tile=tile(16, 64), tmp_tile=scalar()), "E306", "tmp_tile", "must be a tile"
    )


def test_row_expand() -> None:
    assert_type(
        deduce("block.row_expand", tile=tile(16, 64, dtype=FP16)), tile_t(16, 64, dtype=FP16)
    )
    assert_error(error("block.row_expand", tile=tile(64)), "E307", "tile", "at least 2-D")


# --- view / reshape / transpose -----------------------------------------------------------------


def test_view() -> None:
    i = scalar("i", INT64)
    result = deduce(
        "block.view", tile=tile(64, 64, dtype=FP16), shape=ints(16, 64), offset=ints(i, 0)
    )
    assert_type(result, tile_t(16, 64, dtype=FP16))
    j = scalar("j", UINT64)
    assert_type(deduce("block.view", tile=tile(64), shape=ints(16), offset=ints(j)), tile_t(16))


def test_view_index_dtypes() -> None:
    narrow = scalar("k", INT32)
    assert_error(
        error("block.view", tile=tile(64, 64), shape=ints(16, 64), offset=ints(narrow, 0)),
        "E306",
        "offset",
        "block.view: elements of 'offset' must be INT64 or UINT64 scalars, got Scalar[INT32]",
    )
    assert_error(
        error("block.view", tile=tile(64), shape=i(16), offset=ints(0)),
        "E306",
        "shape",
        "must be a list of integers",
    )


def test_reshape() -> None:
    assert_type(deduce("block.reshape", tile=tile(16, 64), shape=ints(64, 16)), tile_t(64, 16))
    assert_error(
        error("block.reshape", tile=tile(16, 64), shape=ints(64, 64)),
        "E307",
        "shape",
        "block.reshape: cannot reshape [16, 64] (1024 elements) to [64, 64] (4096 elements)",
    )


def test_transpose() -> None:
    assert_type(
        deduce("block.transpose", tile=tile(16, 64), axis1=i(0), axis2=i(1)), tile_t(64, 16)
    )
    assert_error(
        error("block.transpose", tile=tile(16, 64), axis1=i(0), axis2=i(-2)),
        "E309",
        "axis2",
        "block.transpose: the two axes must differ, got 0 twice",
    )
    assert_error(
        error("block.transpose", tile=tile(16), axis1=i(0), axis2=i(1)),
        "E307",
        "tile",
        "at least 2-D",
    )
