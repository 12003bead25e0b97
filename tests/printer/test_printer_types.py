"""Type annotations."""

from __future__ import annotations

import pytest
from ir_builder import binary, i, scalar, tensor_t, tile_t

from ptoc.ir import (
    INDEX,
    UNKNOWN,
    BinaryOp,
    BLayout,
    DataType,
    MemorySpace,
    MemRef,
    PadMode,
    ScalarType,
    TensorLayout,
    TileView,
    TupleType,
    Type,
)
from ptoc.printer import print_type

N, M = scalar("N"), scalar("M")


@pytest.mark.parametrize(
    ("type_", "text"),
    [
        (ScalarType(DataType.INT64), "pl.Scalar[pl.INT64]"),
        (ScalarType(INDEX), "pl.Scalar[pl.INT64]"),
        (ScalarType(DataType.BOOL), "pl.Scalar[pl.BOOL]"),
        (ScalarType(DataType.FP8E4M3FN), "pl.Scalar[pl.FP8E4M3FN]"),
        (tensor_t(64, 128), "pl.Tensor[[64, 128], pl.FP32]"),
        (
            tensor_t(64, 128, dtype=DataType.FP16, layout=TensorLayout.NZ),
            "pl.Tensor[[64, 128], pl.FP16, pl.NZ]",
        ),
        (
            tensor_t(8, dtype=DataType.INT8, layout=TensorLayout.ND),
            "pl.Tensor[[8], pl.INT8, pl.ND]",
        ),
        (tensor_t(N, 64, dtype=DataType.BF16), "pl.Tensor[[N, 64], pl.BF16]"),
        (tensor_t(binary(BinaryOp.Mul, N, i(2)), M), "pl.Tensor[[N * 2, M], pl.FP32]"),
        (tensor_t(i(4, DataType.INT32)), "pl.Tensor[[4], pl.FP32]"),
        (tile_t(32, 32, dtype=DataType.FP16), "pl.Tile[[32, 32], pl.FP16]"),
        (
            TupleType((tensor_t(4), ScalarType(DataType.INT32))),
            "tuple[pl.Tensor[[4], pl.FP32], pl.Scalar[pl.INT32]]",
        ),
        (
            TupleType((TupleType((ScalarType(DataType.INT64),)), ScalarType(DataType.FP32))),
            "tuple[tuple[pl.Scalar[pl.INT64]], pl.Scalar[pl.FP32]]",
        ),
        (TupleType(()), "tuple[()]"),
    ],
)
def test_types(type_: Type, text: str) -> None:
    assert print_type(type_) == text


def test_tile_memref() -> None:
    memref = MemRef(MemorySpace.Vec, 0, 2048, 3)
    assert print_type(tile_t(32, 32, dtype=DataType.FP16, memref=memref)) == (
        "pl.Tile[[32, 32], pl.FP16, pl.MemRef(pl.MemorySpace.Vec, 0x0, 2048, 3)]"
    )


def test_memref_address_is_upper_hex_or_none() -> None:
    assert print_type(tile_t(16, 16, memref=MemRef(MemorySpace.Acc, 0x1F40, 1024, 0))) == (
        "pl.Tile[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.Acc, 0x1F40, 1024, 0)]"
    )
    assert print_type(tile_t(16, 16, memref=MemRef(MemorySpace.Mat, None, 1024, 7))) == (
        "pl.Tile[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.Mat, None, 1024, 7)]"
    )


def test_tensor_memref_follows_layout() -> None:
    t = tensor_t(64, layout=TensorLayout.NZ, memref=MemRef(MemorySpace.DDR, 0x100, 256, 1))
    assert print_type(t) == (
        "pl.Tensor[[64], pl.FP32, pl.NZ, pl.MemRef(pl.MemorySpace.DDR, 0x100, 256, 1)]"
    )


def test_tile_view_prints_only_non_default_fields() -> None:
    view = TileView(blayout=BLayout.col_major, fractal=1024)
    assert print_type(tile_t(32, 32, view=view)) == (
        "pl.Tile[[32, 32], pl.FP32, pl.TileView(blayout=pl.BLayout.col_major, fractal=1024)]"
    )


def test_tile_view_with_every_field() -> None:
    view = TileView(
        valid_shape=(i(16), N),
        stride=(i(32), i(1)),
        start_offset=i(8),
        blayout=BLayout.col_major,
        slayout=BLayout.row_major,
        fractal=32,
        pad=PadMode.zero,
    )
    memref = MemRef(MemorySpace.Left, 0x2000, 2048, 4)
    assert print_type(tile_t(32, 32, dtype=DataType.FP16, memref=memref, view=view)) == (
        "pl.Tile[[32, 32], pl.FP16, pl.MemRef(pl.MemorySpace.Left, 0x2000, 2048, 4), "
        "pl.TileView(blayout=pl.BLayout.col_major, slayout=pl.BLayout.row_major, fractal=32, "
        "pad=pl.PadMode.zero, valid_shape=[16, N], stride=[32, 1], start_offset=8)]"
    )


def test_default_tile_view_is_left_out() -> None:
    assert print_type(tile_t(8, 8, view=TileView())) == "pl.Tile[[8, 8], pl.FP32]"


def test_prefix() -> None:
    t = tile_t(8, 8, dtype=DataType.FP16, memref=MemRef(MemorySpace.Vec, 0, 128, 0))
    t_view = tile_t(8, 8, view=TileView(pad=PadMode.max))
    assert print_type(t, prefix="pi") == (
        "pi.Tile[[8, 8], pi.FP16, pi.MemRef(pi.MemorySpace.Vec, 0x0, 128, 0)]"
    )
    assert (
        print_type(t_view, prefix="ir")
        == "ir.Tile[[8, 8], ir.FP32, ir.TileView(pad=ir.PadMode.max)]"
    )
    assert (
        print_type(tensor_t(4, layout=TensorLayout.DN), prefix="x") == "x.Tensor[[4], x.FP32, x.DN]"
    )


def test_unknown_type_has_a_message_spelling() -> None:
    assert print_type(UNKNOWN) == "pl.Unknown"
