"""Type rules of the tensor ops (spec section 7.1): results and every error."""

from __future__ import annotations

import pytest
from ir_builder import FP16, FP32, INT32, INT64, f, i, ints, scalar, tensor, tensor_t, tile
from ops_ir import assert_error, assert_type, deduce, error

from ptoc.ir import DataType, ScalarType

# --- tensor.create / read / dim ---------------------------------------------------------------


def test_create() -> None:
    n = scalar("N")
    assert_type(
        deduce("tensor.create", {"dtype": FP16}, shape=ints(n, 64)), tensor_t(n, 64, dtype=FP16)
    )


def test_create_errors() -> None:
    assert_error(
        error("tensor.create", {}, shape=ints(4)), "E309", "dtype", "attribute 'dtype' is required"
    )
    assert_error(
        error("tensor.create", {"dtype": FP16}, shape=i(4)),
        "E306",
        "shape",
        "tensor.create",
        "'shape' must be a list of integers",
    )
    bad = ints(4, scalar("f", FP32))
    assert_error(
        error("tensor.create", {"dtype": FP16}, shape=bad),
        "E306",
        "shape",
        "elements of 'shape' must be integer scalars, got Scalar[FP32]",
    )
    assert_error(
        error("tensor.create", {"dtype": "FP16"}, shape=ints(4)),
        "E309",
        "dtype",
        "attribute 'dtype' must be a data type",
    )


def test_read() -> None:
    i = scalar("i", INT64)
    assert_type(
        deduce("tensor.read", tensor=tensor(8, 8, dtype=INT32), indices=ints(i, 0)),
        ScalarType(INT32),
    )


def test_read_errors() -> None:
    assert_error(
        error("tensor.read", tensor=tensor(8, 8), indices=ints(0)),
        "E307",
        "indices",
        "tensor.read: expected 2 indices for the 2-D tensor, got 1",
    )
    assert_error(
        error("tensor.read", tensor=tile(8, 8), indices=ints(0, 0)),
        "E306",
        "tensor",
        "tensor.read: argument 'tensor' must be a tensor, got Tile[[8, 8], FP32]",
    )


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_dim(axis: int) -> None:
    assert_type(deduce("tensor.dim", tensor=tensor(8, 16), axis=i(axis)), ScalarType(INT64))


def test_dim_errors() -> None:
    assert_error(
        error("tensor.dim", tensor=tensor(8, 16), axis=i(2)),
        "E309",
        "axis",
        "tensor.dim: axis 2 is out of range for a 2-D operand (expected -2..1)",
    )
    assert_error(
        error("tensor.dim", tensor=tensor(8, 16), axis=scalar()),
        "E306",
        "axis",
        "argument 'axis' must be a constant integer",
    )


# --- view / assemble / reshape / transpose ----------------------------------------------------


def test_view_may_change_rank() -> None:
    i = scalar("i", INT64)
    result = deduce(
        "tensor.view",
        tensor=tensor(4, 64, 64, dtype=FP16),
        shape=ints(64, 64),
        offset=ints(i, 0, 0),
    )
    assert_type(result, tensor_t(64, 64, dtype=FP16))


def test_view_errors() -> None:
    assert_error(
        error("tensor.view", tensor=tensor(8), shape=ints(f(1.0)), offset=ints(0)),
        "E306",
        "shape",
        "elements of 'shape' must be integer scalars",
    )
    assert_error(
        error("tensor.view", tensor=tensor(8), shape=ints(4), offset=i(0)),
        "E306",
        "offset",
        "'offset' must be a list of integers",
    )


def test_assemble() -> None:
    result = deduce(
        "tensor.assemble",
        target=tensor(64, 64, dtype=FP16),
        source=tensor(16, 64),
        offset=ints(16, 0),
    )
    assert_type(result, tensor_t(64, 64, dtype=FP16))


def test_assemble_errors() -> None:
    assert_error(
        error("tensor.assemble", target=tensor(64), source=tile(16), offset=ints(0)),
        "E306",
        "source",
        "tensor.assemble: argument 'source' must be a tensor, got Tile[[16], FP32]",
    )
    assert_error(
        error("tensor.assemble", target=tensor(64), source=tensor(16), offset=ints(f(0.5))),
        "E306",
        "offset",
        "elements of 'offset' must be integer scalars",
    )


def test_reshape() -> None:
    assert_type(deduce("tensor.reshape", tensor=tensor(4, 8), shape=ints(32)), tensor_t(32))
    n = scalar("N")  # a symbolic count cannot be checked
    assert_type(deduce("tensor.reshape", tensor=tensor(n, 8), shape=ints(64)), tensor_t(64))


def test_reshape_element_count() -> None:
    assert_error(
        error("tensor.reshape", tensor=tensor(4, 8), shape=ints(5, 7)),
        "E307",
        "shape",
        "tensor.reshape: cannot reshape [4, 8] (32 elements) to [5, 7] (35 elements)",
    )


def test_transpose() -> None:
    assert_type(
        deduce("tensor.transpose", tensor=tensor(2, 3, 4), axis1=i(0), axis2=i(-1)),
        tensor_t(4, 3, 2),
    )


def test_transpose_errors() -> None:
    assert_error(
        error("tensor.transpose", tensor=tensor(8), axis1=i(0), axis2=i(0)),
        "E307",
        "tensor",
        "tensor.transpose: argument 'tensor' must be at least 2-D, got 1-D",
    )
    assert_error(
        error("tensor.transpose", tensor=tensor(2, 3), axis1=i(1), axis2=i(-1)),
        "E309",
        "axis2",
        "the two axes must differ",
    )
    assert_error(
        error("tensor.transpose", tensor=tensor(2, 3), axis1=i(0), axis2=i(2)),
        "E309",
        "axis2",
        "axis 2 is out of range",
    )
    assert_error(
        error("tensor.transpose", tensor=tensor(2, 3), axis1=scalar(), axis2=i(1)),
        "E306",
        "axis1",
        "'axis1' must be a constant integer",
    )


# --- element-wise ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum"])
def test_binary(name: str) -> None:
    result = deduce(f"tensor.{name}", lhs=tensor(4, 1, 8, dtype=FP16), rhs=tensor(6, 1, dtype=FP32))
    assert_type(result, tensor_t(4, 6, 8, dtype=FP32))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum"])
def test_binary_errors(name: str) -> None:
    assert_error(
        error(f"tensor.{name}", lhs=tensor(8), rhs=tile(8)),
        "E306",
        "rhs",
        f"tensor.{name}: argument 'rhs' must be a tensor, got Tile[[8], FP32]",
    )
    assert_error(
        error(f"tensor.{name}", lhs=tensor(8), rhs=scalar()), "E306", "rhs", "must be a tensor"
    )
    assert_error(
        error(f"tensor.{name}", lhs=tensor(8), rhs=tensor(4)),
        "E307",
        "rhs",
        f"tensor.{name} requires compatible shapes, but got [8] and [4]",
    )


@pytest.mark.parametrize("name", ["add_scalar", "sub_scalar", "mul_scalar", "div_scalar"])
def test_scalar_forms(name: str) -> None:
    assert_type(
        deduce(f"tensor.{name}", lhs=tensor(4, 8, dtype=FP16), rhs=f(2.0)),
        tensor_t(4, 8, dtype=FP32),
    )
    assert_type(
        deduce(f"tensor.{name}", lhs=tensor(4, 8, dtype=INT32), rhs=scalar(dtype=DataType.INT8)),
        tensor_t(4, 8, dtype=INT32),
    )
    assert_error(
        error(f"tensor.{name}", lhs=tensor(4), rhs=tensor(4)),
        "E306",
        "rhs",
        f"tensor.{name}: argument 'rhs' must be a scalar, got Tensor[[4], FP32]",
    )


def test_exp_float_result() -> None:
    assert_type(deduce("tensor.exp", input=tensor(8, dtype=INT32)), tensor_t(8, dtype=FP32))
    assert_type(deduce("tensor.exp", input=tensor(8, dtype=FP16)), tensor_t(8, dtype=FP16))
    assert_error(error("tensor.exp", input=tile(8)), "E306", "input", "must be a tensor")


def test_cast() -> None:
    result = deduce("tensor.cast", {"target_type": FP16, "mode": "rint"}, input=tensor(4, 4))
    assert_type(result, tensor_t(4, 4, dtype=FP16))
    # The default mode is "round" (filled in by deduce); an integer mode code 0..6 is accepted.
    assert_type(
        deduce("tensor.cast", {"target_type": INT32}, input=tensor(4)), tensor_t(4, dtype=INT32)
    )
    assert_type(
        deduce("tensor.cast", {"target_type": INT32, "mode": 6}, input=tensor(4)),
        tensor_t(4, dtype=INT32),
    )


def test_cast_errors() -> None:
    assert_error(
        error("tensor.cast", {"target_type": FP16, "mode": "nearest"}, input=tensor(4)),
        "E309",
        "mode",
        "tensor.cast: unknown cast mode 'nearest'; expected one of none, rint, round, floor, "
        "ceil, trunc, odd",
    )
    assert_error(
        error("tensor.cast", {"target_type": FP16, "mode": 7}, input=tensor(4)),
        "E309",
        "mode",
        "unknown cast mode 7",
    )
    assert_error(
        error("tensor.cast", {}, input=tensor(4)),
        "E309",
        "target_type",
        "'target_type' is required",
    )


@pytest.mark.parametrize("name", ["row_max", "row_sum"])
def test_row_reductions(name: str) -> None:
    assert_type(
        deduce(f"tensor.{name}", input=tensor(16, 64, dtype=FP16)), tensor_t(16, 1, dtype=FP16)
    )
    assert_type(deduce(f"tensor.{name}", input=tensor(64)), tensor_t(1))
    assert_error(error(f"tensor.{name}", input=tile(16, 64)), "E306", "input", "must be a tensor")


# --- matmul ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lhs", "rhs", "attrs", "expected"),
    [
        ((64,), (64,), {}, ()),
        ((16, 64), (64,), {}, (16,)),
        ((64,), (64, 32), {}, (32,)),
        ((16, 64), (64, 32), {}, (16, 32)),
        ((64, 16), (64, 32), {"a_trans": True}, (16, 32)),
        ((16, 64), (32, 64), {"b_trans": True}, (16, 32)),
        ((64, 16), (32, 64), {"a_trans": True, "b_trans": True}, (16, 32)),
        ((4, 16, 64), (64, 32), {}, (4, 16, 32)),
        ((4, 1, 16, 64), (3, 64, 32), {}, (4, 3, 16, 32)),
    ],
)
def test_matmul_shapes(
    lhs: tuple[int, ...], rhs: tuple[int, ...], attrs: dict[str, bool], expected: tuple[int, ...]
) -> None:
    assert_type(
        deduce("tensor.matmul", attrs, lhs=tensor(*lhs), rhs=tensor(*rhs)), tensor_t(*expected)
    )


def test_matmul_dtype() -> None:
    lhs, rhs = tensor(16, 64, dtype=FP16), tensor(64, 32, dtype=FP16)
    assert_type(deduce("tensor.matmul", lhs=lhs, rhs=rhs), tensor_t(16, 32, dtype=FP16))
    assert_type(
        deduce("tensor.matmul", {"out_dtype": FP32}, lhs=lhs, rhs=rhs),
        tensor_t(16, 32, dtype=FP32),
    )
    assert_type(
        deduce("tensor.matmul", {"out_dtype": None}, lhs=lhs, rhs=rhs),
        tensor_t(16, 32, dtype=FP16),
    )


def test_matmul_errors() -> None:
    assert_error(
        error("tensor.matmul", lhs=tensor(16, 64), rhs=tensor(32, 8)),
        "E307",
        "rhs",
        "tensor.matmul: inner dimensions differ: K of 'lhs' is 64 but K of 'rhs' is 32",
    )
    assert_error(
        error("tensor.matmul", {"a_trans": True}, lhs=tensor(16, 64), rhs=tensor(64, 8)),
        "E307",
        "rhs",
        "K of 'lhs' is 16",
    )
    assert_error(
        error("tensor.matmul", lhs=tensor(2, 16, 64), rhs=tensor(3, 64, 8)),
        "E307",
        "rhs",
        "requires compatible shapes, but got [2] and [3]",
    )
    assert_error(
        error("tensor.matmul", lhs=tile(16, 64), rhs=tensor(64, 8)),
        "E306",
        "lhs",
        "must be a tensor",
    )
    assert_error(
        error("tensor.matmul", {"a_trans": 1}, lhs=tensor(16, 64), rhs=tensor(64, 8)),
        "E309",
        "a_trans",
        "attribute 'a_trans' must be True or False, got 1",
    )
    n = scalar("K")  # a symbolic K is not a conflict
    assert_type(deduce("tensor.matmul", lhs=tensor(16, n), rhs=tensor(64, 8)), tensor_t(16, 8))
