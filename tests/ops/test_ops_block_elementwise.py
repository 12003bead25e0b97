"""Type rules of the block element-wise ops (spec section 7.3), family by family."""

from __future__ import annotations

import pytest
from ir_builder import (
    FP16,
    FP32,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT16,
    f,
    i,
    scalar,
    tensor,
    tile,
    tile_t,
)
from ops_ir import assert_error, assert_type, deduce, error

from ptoc.ir import DataType

TILE_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "rem"]
TILE_SCALAR = ["adds", "subs", "muls", "divs", "rems", "maxs", "mins"]
UNARY = ["neg", "exp", "sqrt", "rsqrt", "recip", "log", "abs", "relu"]


@pytest.mark.parametrize("name", TILE_BINARY)
def test_tile_binary(name: str) -> None:
    result = deduce(f"block.{name}", lhs=tile(32, 1, dtype=FP16), rhs=tile(1, 64, dtype=FP32))
    assert_type(result, tile_t(32, 64, dtype=FP32))


@pytest.mark.parametrize("name", TILE_BINARY)
def test_tile_binary_errors(name: str) -> None:
    assert_error(
        error(f"block.{name}", lhs=tile(32, 32), rhs=tile(16, 16)),
        "E307",
        "rhs",
        f"block.{name} requires compatible shapes, but got [32, 32] and [16, 16]",
    )
    assert_error(
        error(f"block.{name}", lhs=tensor(8), rhs=tile(8)),
        "E306",
        "lhs",
        f"block.{name}: argument 'lhs' must be a tile, got Tensor[[8], FP32]",
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8), rhs=scalar()),
        "E306",
        "rhs",
        "argument 'rhs' must be a tile, got Scalar[INT64]",
    )


@pytest.mark.parametrize("name", ["and", "or"])
def test_bitwise(name: str) -> None:
    result = deduce(f"block.{name}", lhs=tile(8, 8, dtype=INT16), rhs=tile(8, 8, dtype=INT32))
    assert_type(result, tile_t(8, 8, dtype=INT32))
    assert_error(
        error(f"block.{name}", lhs=tile(8, 8, dtype=FP16), rhs=tile(8, 8, dtype=INT32)),
        "E306",
        "lhs",
        f"block.{name}: argument 'lhs' must have an integer dtype, got FP16",
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8, dtype=INT16), rhs=tile(4, dtype=INT16)),
        "E307",
        "rhs",
        "requires compatible shapes",
    )


@pytest.mark.parametrize("name", ["shl", "shr"])
def test_shifts_keep_lhs_dtype(name: str) -> None:
    result = deduce(f"block.{name}", lhs=tile(8, 8, dtype=INT16), rhs=tile(1, 8, dtype=INT32))
    assert_type(result, tile_t(8, 8, dtype=INT16))
    assert_error(
        error(f"block.{name}", lhs=tile(8, dtype=INT16), rhs=tile(8, dtype=FP32)),
        "E306",
        "rhs",
        "argument 'rhs' must have an integer dtype, got FP32",
    )


def test_xor() -> None:
    tmp = tile(8, 8, dtype=INT16, name="tmp")
    result = deduce("block.xor", lhs=tile(8, 8, dtype=INT16), rhs=tile(8, 8, dtype=UINT16), tmp=tmp)
    assert_type(result, tile_t(8, 8, dtype=INT16))
    assert_error(
        error("block.xor", lhs=tile(8, dtype=INT16), rhs=tile(8, dtype=INT16), tmp=scalar()),
        "E306",
        "tmp",
        "block.xor: argument 'tmp' must be a tile",
    )
    assert_error(
        error("block.xor", lhs=tile(8, dtype=FP16), rhs=tile(8, dtype=INT16), tmp=tmp),
        "E306",
        "lhs",
        "integer dtype",
    )


def test_prelu() -> None:
    result = deduce(
        "block.prelu", tile=tile(8, 16, dtype=FP16), slope=tile(1, 16, dtype=FP32), tmp=tile(8, 16)
    )
    assert_type(result, tile_t(8, 16, dtype=FP32))
    assert_error(
        error("block.prelu", tile=tile(8, 16), slope=scalar(dtype=FP32), tmp=tile(8, 16)),
        "E306",
        "slope",
        "argument 'slope' must be a tile",
    )
    assert_error(
        error("block.prelu", tile=tile(8, 16), slope=tile(8, 8), tmp=tile(8, 16)),
        "E307",
        "slope",
        "but got [8, 16] and [8, 8]",
    )


@pytest.mark.parametrize("name", ["addc", "subc"])
def test_three_tile_ops(name: str) -> None:
    result = deduce(
        f"block.{name}",
        lhs=tile(8, 1, dtype=FP16),
        rhs=tile(1, 16, dtype=FP16),
        rhs2=tile(8, 16, dtype=FP32),
    )
    assert_type(result, tile_t(8, 16, dtype=FP32))
    assert_error(
        error(f"block.{name}", lhs=tile(8, 16), rhs=tile(8, 16), rhs2=tile(4, 16)),
        "E307",
        "rhs2",
        "but got [8, 16] and [4, 16] (arguments 'lhs' and 'rhs2')",
    )


@pytest.mark.parametrize("name", TILE_SCALAR)
def test_tile_scalar(name: str) -> None:
    assert_type(
        deduce(f"block.{name}", lhs=tile(8, 16, dtype=FP16), scalar=f(2.0)),
        tile_t(8, 16, dtype=FP32),
    )
    assert_type(
        deduce(f"block.{name}", lhs=tile(8, 16, dtype=FP16), scalar=scalar(dtype=INT32)),
        tile_t(8, 16, dtype=FP16),
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8), scalar=tile(8)),
        "E306",
        "scalar",
        f"block.{name}: argument 'scalar' must be a scalar, got Tile[[8], FP32]",
    )
    assert_error(
        error(f"block.{name}", lhs=scalar(dtype=FP32), scalar=i(1)), "E306", "lhs", "must be a tile"
    )


def test_lrelu_and_expands() -> None:
    assert_type(
        deduce("block.lrelu", tile=tile(8, 8, dtype=FP16), slope=f(0.1)),
        tile_t(8, 8, dtype=FP32),
    )
    assert_error(
        error("block.lrelu", tile=tile(8, 8), slope=tile(8, 8)), "E306", "slope", "must be a scalar"
    )
    assert_type(
        deduce("block.expands", target=tile(8, 8, dtype=INT32), scalar=i(0)),
        tile_t(8, 8, dtype=INT64),
    )
    assert_error(
        error("block.expands", target=tensor(8), scalar=i(0)), "E306", "target", "must be a tile"
    )


@pytest.mark.parametrize("name", ["ands", "ors", "shls", "shrs"])
def test_integer_tile_scalar(name: str) -> None:
    assert_type(
        deduce(f"block.{name}", lhs=tile(8, 8, dtype=INT16), scalar=i(3)),
        tile_t(8, 8, dtype=INT16),
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8, dtype=FP32), scalar=i(3)),
        "E306",
        "lhs",
        f"block.{name}: argument 'lhs' must have an integer dtype, got FP32",
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8, dtype=INT16), scalar=f(1.0)),
        "E306",
        "scalar",
        "argument 'scalar' must have an integer dtype, got FP32",
    )


def test_xors() -> None:
    result = deduce("block.xors", lhs=tile(8, dtype=INT8), scalar=i(1), tmp=tile(8, dtype=INT8))
    assert_type(result, tile_t(8, dtype=INT8))
    assert_error(
        error("block.xors", lhs=tile(8, dtype=INT8), scalar=i(1), tmp=i(0)),
        "E306",
        "tmp",
        "argument 'tmp' must be a tile",
    )
    assert_error(
        error("block.xors", lhs=tile(8, dtype=FP16), scalar=i(1), tmp=tile(8)),
        "E306",
        "lhs",
        "integer dtype",
    )


@pytest.mark.parametrize("name", ["addsc", "subsc"])
def test_tile_scalar_tile(name: str) -> None:
    result = deduce(
        f"block.{name}", lhs=tile(8, 1, dtype=FP16), scalar=f(1.0), rhs2=tile(8, 16, dtype=FP16)
    )
    assert_type(result, tile_t(8, 16, dtype=FP32))
    assert_error(
        error(f"block.{name}", lhs=tile(8, 16), scalar=tile(8, 16), rhs2=tile(8, 16)),
        "E306",
        "scalar",
        "must be a scalar",
    )
    assert_error(
        error(f"block.{name}", lhs=tile(8, 16), scalar=i(1), rhs2=tile(16, 8)),
        "E307",
        "rhs2",
        "but got [8, 16] and [16, 8]",
    )


def test_sel() -> None:
    mask = tile(8, 8, dtype=DataType.BOOL, name="mask")
    result = deduce("block.sel", mask=mask, lhs=tile(8, 8, dtype=FP16), rhs=tile(8, 8, dtype=FP32))
    assert_type(result, tile_t(8, 8, dtype=FP32))
    assert_error(
        error("block.sel", mask=scalar(), lhs=tile(8, 8), rhs=tile(8, 8)),
        "E306",
        "mask",
        "block.sel: argument 'mask' must be a tile",
    )
    assert_error(
        error("block.sel", mask=mask, lhs=tile(8, 8), rhs=tile(4, 8)),
        "E307",
        "rhs",
        "but got [8, 8] and [4, 8]",
    )


def test_sels() -> None:
    result = deduce(
        "block.sels", lhs=tile(8, 8, dtype=FP16), rhs=tile(8, 8, dtype=FP16), select_mode=i(1)
    )
    assert_type(result, tile_t(8, 8, dtype=FP16))  # the mode does not join the promotion
    assert_error(
        error("block.sels", lhs=tile(8, 8), rhs=tile(8, 8), select_mode=tile(8, 8)),
        "E306",
        "select_mode",
        "argument 'select_mode' must be a scalar",
    )


def test_cmp_keeps_the_promoted_dtype() -> None:
    result = deduce(
        "block.cmp", {"cmp_type": 2}, lhs=tile(8, 8, dtype=FP16), rhs=tile(8, 8, dtype=FP32)
    )
    assert_type(result, tile_t(8, 8, dtype=FP32))  # not BOOL: the original's checked behaviour
    assert_type(
        deduce("block.cmp", lhs=tile(8, 8), rhs=tile(1, 8)), tile_t(8, 8)
    )  # cmp_type defaults to 0


def test_cmp_errors() -> None:
    assert_error(
        error("block.cmp", {"cmp_type": 6}, lhs=tile(8), rhs=tile(8)),
        "E309",
        "cmp_type",
        "block.cmp: attribute 'cmp_type' must be 0..5 (EQ, NE, LT, LE, GT, GE), got 6",
    )
    assert_error(
        error("block.cmp", {"cmp_type": "EQ"}, lhs=tile(8), rhs=tile(8)),
        "E309",
        "cmp_type",
        "attribute 'cmp_type' must be an integer, got 'EQ'",
    )
    assert_error(
        error("block.cmp", {"cmp_type": True}, lhs=tile(8), rhs=tile(8)),
        "E309",
        "cmp_type",
        "must be an integer, got True",
    )
    assert_error(
        error("block.cmp", lhs=tile(8), rhs=tile(4)), "E307", "rhs", "requires compatible shapes"
    )


def test_cmps() -> None:
    assert_type(
        deduce("block.cmps", {"cmp_type": 5}, lhs=tile(8, dtype=INT32), scalar=i(0)),
        tile_t(8, dtype=INT64),
    )
    assert_error(
        error("block.cmps", {"cmp_type": -1}, lhs=tile(8), scalar=i(0)),
        "E309",
        "cmp_type",
        "got -1",
    )
    assert_error(
        error("block.cmps", lhs=tile(8), scalar=tile(8)), "E306", "scalar", "must be a scalar"
    )


@pytest.mark.parametrize("name", UNARY)
def test_unary(name: str) -> None:
    assert_type(deduce(f"block.{name}", tile=tile(8, 16, dtype=FP16)), tile_t(8, 16, dtype=FP16))
    assert_error(
        error(f"block.{name}", tile=tensor(8)),
        "E306",
        "tile",
        f"block.{name}: argument 'tile' must be a tile, got Tensor[[8], FP32]",
    )


def test_block_exp_keeps_an_integer_dtype() -> None:
    assert_type(deduce("block.exp", tile=tile(8, dtype=INT32)), tile_t(8, dtype=INT32))


@pytest.mark.parametrize("dtype", [INT16, UINT16])
def test_not(dtype: DataType) -> None:
    assert_type(deduce("block.not", tile=tile(8, 8, dtype=dtype)), tile_t(8, 8, dtype=dtype))


def test_not_dtype() -> None:
    assert_error(
        error("block.not", tile=tile(8, dtype=INT32)),
        "E306",
        "tile",
        "block.not: argument 'tile' must be INT16 or UINT16, got INT32",
    )


def test_cast() -> None:
    assert_type(
        deduce("block.cast", {"target_type": INT32, "mode": "floor"}, tile=tile(8, 8)),
        tile_t(8, 8, dtype=INT32),
    )
    assert_error(
        error("block.cast", {"target_type": INT32, "mode": "up"}, tile=tile(8)),
        "E309",
        "mode",
        "block.cast: unknown cast mode 'up'",
    )
    assert_error(
        error("block.cast", {"target_type": INT64}, tile=tensor(8)),
        "E306",
        "tile",
        "must be a tile",
    )


@pytest.mark.parametrize(
    "name", ["row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div"]
)
def test_row_expand_binary(name: str) -> None:
    result = deduce(f"block.{name}", tile=tile(16, 64, dtype=FP16), row_vec=tile(16, 1, dtype=FP32))
    assert_type(result, tile_t(16, 64, dtype=FP32))


@pytest.mark.parametrize(
    "name", ["row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div"]
)
def test_row_expand_binary_errors(name: str) -> None:
    assert_error(
        error(f"block.{name}", tile=tile(16, 64), row_vec=tile(16, 2)),
        "E307",
        "row_vec",
        f"block.{name}: argument 'row_vec' must have last dimension 1, got Tile[[16, 2], FP32]",
    )
    assert_error(
        error(f"block.{name}", tile=tile(16, 64), row_vec=tile(8, 1)),
        "E307",
        "row_vec",
        "'tile' has 16 rows but 'row_vec' has 8",
    )
    assert_error(
        error(f"block.{name}", tile=tile(64), row_vec=tile(16, 1)),
        "E307",
        "tile",
        "argument 'tile' must be at least 2-D, got 1-D",
    )
    assert_error(
        error(f"block.{name}", tile=tile(16, 64), row_vec=tile(16)),
        "E307",
        "row_vec",
        "argument 'row_vec' must be at least 2-D",
    )


@pytest.mark.parametrize(
    "name", ["col_expand", "col_expand_mul", "col_expand_div", "col_expand_sub"]
)
def test_col_expand(name: str) -> None:
    # No shape checks: the result is the target's shape with the promoted dtype.
    result = deduce(
        f"block.{name}", target=tile(16, 64, dtype=FP16), col_vec=tile(3, 64, dtype=FP32)
    )
    assert_type(result, tile_t(16, 64, dtype=FP32))
    assert_error(
        error(f"block.{name}", target=tile(16, 64), col_vec=scalar(dtype=FP32)),
        "E306",
        "col_vec",
        "must be a tile",
    )
