"""SSA names, constants and type spellings."""

from __future__ import annotations

import pytest
from ir_builder import scalar, tile
from pto_irb import body_of, function, generate

from ptoc.codegen.common import CodegenError
from ptoc.codegen.pto.emitter import Constants, Names, float_literal
from ptoc.codegen.pto.mlir_types import tile_buf_type
from ptoc.ir import (
    NO_SPAN,
    AssignStmt,
    Binary,
    BinaryOp,
    BLayout,
    DataType,
    ForStmt,
    MemorySpace,
    MemRef,
    PadMode,
    ScalarType,
    TileType,
    TileView,
    Var,
    const_int,
)


@pytest.mark.parametrize(
    ("value", "mlir_type", "text"),
    [
        (1.0, "f32", "1.0"),
        (0.5, "f32", "0.5"),
        (-2.0, "f16", "-2.0"),
        (1e-05, "f32", "1.0e-05"),
        (1.5e20, "f32", "1.5e+20"),
        (float("inf"), "f32", "0x7F800000"),
        (float("-inf"), "f16", "0xFC00"),
        (float("inf"), "bf16", "0x7F80"),
    ],
)
def test_float_literals_are_valid_mlir(value: float, mlir_type: str, text: str) -> None:
    assert float_literal(value, mlir_type) == text


def test_constant_names_follow_mlir_conventions() -> None:
    names = Names()
    pool = Constants(names)
    assert pool.integer(32).name == "%c32"
    assert pool.integer(-1).name == "%c-1"
    assert pool.integer(1, "i32").name == "%c1_i32"
    assert pool.boolean(True).name == "%true"
    assert pool.floating(1.0, "f32").name == "%cst"
    assert pool.floating(2.0, "f32").name == "%cst_1"
    assert pool.floating(1.0, "f16").name == "%cst_2"
    assert pool.integer(32).name == "%c32"  # reused, not redefined
    assert pool.integer(3, "f32").name == "%cst_3"  # an integer wanted as a float
    assert pool.lines == [
        "%c32 = arith.constant 32 : index",
        "%c-1 = arith.constant -1 : index",
        "%c1_i32 = arith.constant 1 : i32",
        "%true = arith.constant true",
        "%cst = arith.constant 1.0 : f32",
        "%cst_1 = arith.constant 2.0 : f32",
        "%cst_2 = arith.constant 1.0 : f16",
        "%cst_3 = arith.constant 3.0 : f32",
    ]


def test_names_never_collide() -> None:
    names = Names(first_number=3)
    assert names.number() == "%3"
    assert names.unique("c32") == "%c32"
    assert Constants(names).integer(32).name == "%c32_1"
    assert names.unique("c32") == "%c32_2"
    assert names.unique("1x") == "%v1x"
    assert names.unique("ä") == "%_"


def test_loop_variable_named_like_a_constant() -> None:
    n = scalar("n")
    c32 = Var(ScalarType(DataType.INT64), name="c32")
    x = Var(ScalarType(DataType.INT64), name="x")
    loop = ForStmt(
        c32,
        const_int(0),
        n,
        const_int(1),
        AssignStmt(
            x, Binary(ScalarType(DataType.INT64), op=BinaryOp.Add, lhs=c32, rhs=const_int(32))
        ),
    )
    text, _ = generate(function("k", [n], loop))
    assert "%c32_1 = arith.constant 32 : index" in text
    assert (
        "scf.for %c32 = %c0 to %0 step %c1 {\n  %1 = arith.addi %c32, %c32_1 : index\n"
        in body_of(text)
    )


def test_tile_buf_type_reads_the_tile_view() -> None:
    view = TileView(
        blayout=BLayout.col_major, slayout=BLayout.row_major, fractal=1024, pad=PadMode.max
    )
    tile_type = TileType(
        (const_int(16), const_int(8)),
        DataType.BF16,
        memref=MemRef(MemorySpace.Mat, 0, 256, 0),
        tile_view=view,
    )
    assert tile_buf_type(tile_type, NO_SPAN) == (
        "!pto.tile_buf<loc=mat, dtype=bf16, rows=16, cols=8, v_row=16, v_col=8, "
        "blayout=col_major, slayout=row_major, fractal=1024, pad=2>"
    )


@pytest.mark.parametrize(
    ("shape", "buffer", "code"),
    [
        ([4, 4, 4], MemRef(MemorySpace.Vec, 0, 256, 0), "E400"),
        ([4, 4], None, "E403"),
    ],
)
def test_tile_buf_type_errors(shape: list[int], buffer: MemRef | None, code: str) -> None:
    with pytest.raises(CodegenError) as raised:
        tile_buf_type(tile(*shape, name="t", memref=buffer).type, NO_SPAN)  # type: ignore[arg-type]
    assert raised.value.code == code


@pytest.mark.parametrize(
    ("dtype", "element"),
    [
        (DataType.UINT8, "ui8"),
        (DataType.INT16, "i16"),
        (DataType.BOOL, "i1"),
        (DataType.UINT64, "ui64"),
        (DataType.INT8, "i8"),
    ],
)
def test_element_types(dtype: DataType, element: str) -> None:
    tile_type = TileType(
        (const_int(8), const_int(8)), dtype, memref=MemRef(MemorySpace.Vec, 0, 64, 0)
    )
    assert f"dtype={element}," in tile_buf_type(tile_type, NO_SPAN)
