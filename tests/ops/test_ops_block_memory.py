"""Type rules of the block memory ops (spec section 7.2), including load/store windows."""

from __future__ import annotations

import pytest
from ir_builder import FP16, FP32, INT32, INT64, UINT64, f, i, ints, scalar, tensor, tile, tile_t
from ops_ir import assert_error, assert_type, deduce, error, opdef

from ptoc.ir import UNKNOWN, MemorySpace, ScalarType, Span, TileView, Var, structural_equal
from ptoc.ir.types import BLayout, TileType, TupleType
from ptoc.ops.rules import ACC_VIEW, LEFT_VIEW, MAT_VIEW, RIGHT_VIEW

# --- block.load -----------------------------------------------------------------------------------


def test_load_vec() -> None:
    i = scalar("i", INT64)
    result = deduce(
        "block.load", tensor=tensor(128, 64, dtype=FP16), offsets=ints(i, 0), shapes=ints(32, 64)
    )
    assert_type(result, tile_t(32, 64, dtype=FP16))
    assert isinstance(result, TileType) and result.tile_view is None


def test_load_mat_is_column_major() -> None:
    result = deduce(
        "block.load",
        {"target_memory": MemorySpace.Mat},
        tensor=tensor(64, 64),
        offsets=ints(0, 0),
        shapes=ints(64, 64),
    )
    assert_type(result, tile_t(64, 64, view=MAT_VIEW))
    assert result != tile_t(64, 64)  # the view is part of the type


@pytest.mark.parametrize(
    "memory", [MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.DDR]
)
def test_load_target_memory(memory: MemorySpace) -> None:
    failure = error(
        "block.load",
        {"target_memory": memory},
        tensor=tensor(64, 64),
        offsets=ints(0, 0),
        shapes=ints(32, 32),
    )
    assert_error(
        failure,
        "E309",
        "target_memory",
        f"block.load: attribute 'target_memory' must be one of Vec, Mat, got {memory.name}",
    )


@pytest.mark.parametrize(
    ("offsets", "shapes", "at", "message"),
    [
        (
            (32, 0),
            (64, 64),
            "offsets",
            "block.load: window 32..96 on dimension 0 reaches outside the tensor's extent 64",
        ),
        ((0, 8), (64, 64), "offsets", "window 8..72 on dimension 1"),
        ((33, 0), (32, 64), "offsets", "window 33..65 on dimension 0"),  # one past the end
        ((0, 0), (65, 64), "shapes", "size 65 on dimension 0 exceeds the tensor's extent 64"),
        ((-1, 0), (32, 32), "offsets", "block.load: offset -1 on dimension 0 is negative"),
        (
            (0, 0),
            (128, 64),
            "shapes",
            "block.load: size 128 on dimension 0 exceeds the tensor's extent 64",
        ),
    ],
)
def test_load_window_out_of_bounds(
    offsets: tuple[int, int], shapes: tuple[int, int], at: str, message: str
) -> None:
    failure = error(
        "block.load", tensor=tensor(64, 64), offsets=ints(*offsets), shapes=ints(*shapes)
    )
    assert_error(failure, "E308", at, message)


def test_load_window_with_symbolic_parts_is_not_checked() -> None:
    i, n = scalar("i", INT64), scalar("N")
    assert_type(
        deduce("block.load", tensor=tensor(64, 64), offsets=ints(i, 32), shapes=ints(32, 32)),
        tile_t(32, 32),
    )
    assert_type(
        deduce("block.load", tensor=tensor(n, 64), offsets=ints(1000, 0), shapes=ints(32, 64)),
        tile_t(32, 64),
    )
    # The window reaching exactly the end is inside.
    assert_type(
        deduce("block.load", tensor=tensor(64, 64), offsets=ints(32, 0), shapes=ints(32, 64)),
        tile_t(32, 64),
    )


def test_load_shape_errors() -> None:
    assert_error(
        error("block.load", tensor=tensor(64, 64), offsets=ints(0), shapes=ints(32, 32)),
        "E307",
        "shapes",
        "block.load: 'offsets' and 'shapes' must have the same length, got 1 and 2",
    )
    assert_error(
        error("block.load", tensor=tensor(64, 64), offsets=ints(), shapes=ints()),
        "E307",
        "shapes",
        "'shapes' must have at least one dimension",
    )
    assert_error(
        error("block.load", tensor=tensor(64, 64), offsets=ints(0, 0), shapes=ints(0, 32)),
        "E307",
        "shapes",
        "size 0 on dimension 0 must be positive",
    )
    assert_error(
        error("block.load", tensor=tile(64, 64), offsets=ints(0, 0), shapes=ints(32, 32)),
        "E306",
        "tensor",
        "block.load: argument 'tensor' must be a tensor, got Tile[[64, 64], FP32]",
    )
    assert_error(
        error("block.load", tensor=tensor(64, 64), offsets=ints(f(0.0), 0), shapes=ints(32, 32)),
        "E306",
        "offsets",
        "elements of 'offsets' must be integer scalars, got Scalar[FP32]",
    )


def test_load_legacy_form() -> None:
    legacy = opdef("block.load").legacy
    assert legacy is not None
    assert [p.name for p in legacy.params] == [
        "tensor",
        "row_offset",
        "col_offset",
        "height",
        "width",
    ]
    x = tensor(128, 128)
    row = Var(ScalarType(INT64), name="r", span=Span("k.py", 3, 10, 3, 11))
    col = i(0)
    h, w = i(32), Var(ScalarType(INT64), name="w", span=Span("k.py", 3, 20, 3, 21))
    converted = legacy.convert(
        {"tensor": x, "row_offset": row, "col_offset": col, "height": h, "width": w}
    )
    assert sorted(converted) == ["offsets", "shapes", "tensor"]
    assert converted["tensor"] is x
    assert structural_equal(converted["offsets"], ints(row, col))
    assert structural_equal(converted["shapes"], ints(h, w))
    assert converted["offsets"].span == Span("k.py", 3, 10, 3, 11)  # only r has a known span
    assert converted["shapes"].span == Span("k.py", 3, 20, 3, 21)
    assert isinstance(converted["shapes"].type, TupleType)
    assert_type(opdef("block.load").deduce(converted, {}), tile_t(32, w))


# --- block.store / l0c_store ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["block.store", "block.l0c_store"])
def test_store(name: str) -> None:
    # The FIX pipe converts an Acc tile's FP32 to FP16; a Vec store needs the same dtype.
    out = tensor(128, 128, dtype=FP16 if name == "block.l0c_store" else FP32, name="out")
    result = deduce(
        name, tile=tile(32, 128), offsets=ints(96, 0), shapes=ints(32, 128), output_tensor=out
    )
    assert result is out.type


@pytest.mark.parametrize("name", ["block.store", "block.l0c_store"])
def test_store_errors(name: str) -> None:
    out = tensor(128, 128, name="out")
    assert_error(
        error(
            name, tile=tile(32, 128), offsets=ints(112, 0), shapes=ints(32, 128), output_tensor=out
        ),
        "E308",
        "offsets",
        f"{name}: window 112..144 on dimension 0 reaches outside the tensor's extent 128",
    )
    assert_error(
        error(
            name,
            tile=tile(32, 32),
            offsets=ints(0, 0),
            shapes=ints(32, 32),
            output_tensor=tile(8, 8),
        ),
        "E306",
        "output_tensor",
        "argument 'output_tensor' must be a tensor",
    )
    assert_error(
        error(name, tile=out, offsets=ints(0, 0), shapes=ints(32, 32), output_tensor=out),
        "E306",
        "tile",
        "argument 'tile' must be a tile",
    )
    assert_error(
        error(
            name, tile=tile(32, 32), offsets=ints(0, 0, 0), shapes=ints(32, 32), output_tensor=out
        ),
        "E307",
        "shapes",
        "must have the same length, got 3 and 2",
    )


def test_store_legacy_form() -> None:
    for name in ("block.store", "block.l0c_store"):
        legacy = opdef(name).legacy
        assert legacy is not None
        assert [p.name for p in legacy.params] == [
            "tile",
            "row_offset",
            "col_offset",
            "height",
            "width",
            "output_tensor",
        ]
    t, out = tile(32, 128), tensor(128, 128, name="out")
    store_legacy = opdef("block.store").legacy
    assert store_legacy is not None
    converted = store_legacy.convert(
        {
            "tile": t,
            "row_offset": i(0),
            "col_offset": i(0),
            "height": i(32),
            "width": i(128),
            "output_tensor": out,
        }
    )
    assert sorted(converted) == ["offsets", "output_tensor", "shapes", "tile"]
    assert structural_equal(converted["shapes"], ints(32, 128))
    assert opdef("block.store").deduce(converted, {}) is out.type


# --- create_tile / full ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "view"),
    [
        (MemorySpace.Vec, None),
        (MemorySpace.Mat, MAT_VIEW),
        (MemorySpace.Left, LEFT_VIEW),
        (MemorySpace.Right, RIGHT_VIEW),
        (MemorySpace.Acc, ACC_VIEW),
    ],
)
def test_create_tile(memory: MemorySpace, view: TileView | None) -> None:
    result = deduce(
        "block.create_tile", {"dtype": FP16, "target_memory": memory}, shape=ints(16, 32)
    )
    assert_type(result, tile_t(16, 32, dtype=FP16, view=view))
    assert isinstance(result, TileType) and result.tile_view == view


def test_create_tile_errors() -> None:
    attrs = {"dtype": FP32}
    assert_error(
        error("block.create_tile", attrs, shape=ints(16, scalar())),
        "E306",
        "shape",
        "block.create_tile: element 1 of 'shape' must be a constant integer",
    )
    assert_error(
        error("block.create_tile", attrs, shape=ints(16, 0)),
        "E307",
        "shape",
        "element 1 of 'shape' must be positive, got 0",
    )
    assert_error(
        error("block.create_tile", attrs, shape=ints()),
        "E307",
        "shape",
        "'shape' must not be empty",
    )
    assert_error(
        error(
            "block.create_tile", {"dtype": FP32, "target_memory": MemorySpace.DDR}, shape=ints(8)
        ),
        "E309",
        "target_memory",
        "must be one of Vec, Mat, Left, Right, Acc, got DDR",
    )
    assert_error(
        error("block.create_tile", {}, shape=ints(8)), "E309", "dtype", "'dtype' is required"
    )


def test_full() -> None:
    assert_type(
        deduce("block.full", {"dtype": FP16}, shape=ints(8, 16), value=f(0.5)),
        tile_t(8, 16, dtype=FP16),
    )
    assert_type(
        deduce("block.full", {"dtype": INT32}, shape=ints(8), value=i(-1)),
        tile_t(8, dtype=INT32),
    )


def test_full_errors() -> None:
    assert_error(
        error("block.full", {"dtype": FP32}, shape=ints(8), value=scalar("v", FP32)),
        "E306",
        "value",
        "block.full: argument 'value' must be a number literal, got Scalar[FP32]",
    )
    assert_error(
        error("block.full", {"dtype": FP32}, shape=ints(-8), value=i(0)),
        "E307",
        "shape",
        "must be positive, got -8",
    )


# --- move / vec_move / fillpad / get_block_idx / alloc --------------------------------------------


COL_BLOCKS = TileView(blayout=BLayout.col_major)


# The original's rule: Left / Right set the scatter layout, Vec and Mat keep the default view;
# a transpose swaps block and scatter layouts, or flips the block layout without a scatter one.
@pytest.mark.parametrize(
    ("memory", "view", "transposed_view"),
    [
        (MemorySpace.Vec, None, COL_BLOCKS),
        (MemorySpace.Mat, None, COL_BLOCKS),
        (MemorySpace.Left, LEFT_VIEW, LEFT_VIEW),
        (
            MemorySpace.Right,
            RIGHT_VIEW,
            TileView(blayout=BLayout.col_major, slayout=BLayout.row_major),
        ),
    ],
)
def test_move(memory: MemorySpace, view: TileView | None, transposed_view: TileView) -> None:
    result = deduce("block.move", {"target_memory": memory}, tile=tile(16, 32, dtype=FP16))
    assert_type(result, tile_t(16, 32, dtype=FP16, view=view))
    swapped = deduce("block.move", {"target_memory": memory, "transpose": True}, tile=tile(16, 32))
    assert_type(swapped, tile_t(32, 16, view=transposed_view))


def test_move_ignores_the_source_view() -> None:
    mat = Var(tile_t(16, 32, view=MAT_VIEW), name="m")
    assert_type(deduce("block.move", {"target_memory": MemorySpace.Vec}, tile=mat), tile_t(16, 32))


def test_move_errors() -> None:
    assert_error(
        error("block.move", {"target_memory": MemorySpace.Acc}, tile=tile(16, 16)),
        "E309",
        "target_memory",
        "block.move: attribute 'target_memory' must be one of Vec, Mat, Left, Right, Bias, got Acc",
    )
    assert_error(
        error("block.move", {}, tile=tile(16, 16)),
        "E309",
        "target_memory",
        "attribute 'target_memory' is required",
    )
    assert_error(
        error(
            "block.move",
            {"target_memory": MemorySpace.Left, "transpose": True},
            tile=tile(16, 16, 2),
        ),
        "E309",
        "transpose",
        "transpose=True needs a 2-D tile",
    )
    assert_error(
        error("block.move", {"target_memory": "Left"}, tile=tile(16, 16)),
        "E309",
        "target_memory",
        "must be a pl.MemorySpace, got 'Left'",
    )


@pytest.mark.parametrize("name", ["block.vec_move", "block.fillpad"])
def test_same_tile_ops(name: str) -> None:
    source = Var(TileType((i(16), i(16)), FP16, tile_view=MAT_VIEW), name="t")
    assert_type(deduce(name, tile=source), tile_t(16, 16, dtype=FP16, view=MAT_VIEW))
    assert_error(
        error(name, tile=tensor(16)), "E306", "tile", f"{name}: argument 'tile' must be a tile"
    )


def test_get_block_idx() -> None:
    assert deduce("block.get_block_idx") == ScalarType(UINT64)


def test_alloc() -> None:
    result = deduce("block.alloc", memory_space=i(1), addr=i(0), size=i(4096), id=i(0))
    assert result == UNKNOWN
    assert_error(
        error("block.alloc", memory_space=i(1), addr=tile(4), size=i(4096), id=i(0)),
        "E306",
        "addr",
        "must be a scalar",
    )
