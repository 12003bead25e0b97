"""MLIR spellings of IR types for the PTO dialect (seed 002, "Type Conversions").

Element types (tile_buf ``dtype=``, ``!pto.ptr<..>``, tensor views) use the seed's table,
including the unsigned ``ui8``/``ui16``/... spellings. Scalars are different: ``arith`` works
on signless integers only, so an unsigned scalar is ``iN`` and its unsigned-ness selects the
op variant (``divui``, ``cmpi ult``, ...). INT64 is 2026-03's INDEX type, so INT64 scalar
arithmetic is done in ``index``, as is 2026-08's own INDEX dtype; ``arith.index_cast``
converts at the boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...ir.dtype import DataType
from ...ir.expr import ConstInt, Expr
from ...ir.shape import static_value
from ...ir.span import Span
from ...ir.types import MemorySpace, MemRef, TileType
from ...records import fields
from ..common import CodegenError

INDEX = "index"
BOOL = "i1"

ELEMENT_TYPES: dict[DataType, str] = {
    DataType.FP32: "f32",
    DataType.FP16: "f16",
    DataType.BF16: "bf16",
    DataType.INT32: "i32",
    DataType.INT64: "i64",
    DataType.INDEX: "i64",  # an element in memory; a scalar INDEX is ``index`` (scalar_type)
    DataType.INT8: "i8",
    DataType.UINT8: "ui8",
    DataType.INT16: "i16",
    DataType.UINT16: "ui16",
    DataType.UINT32: "ui32",
    DataType.UINT64: "ui64",
    DataType.BOOL: "i1",
}

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")


def element_type(dtype: DataType, span: Span) -> str:
    """The element type of tiles, tensors and pointers."""
    mlir = ELEMENT_TYPES.get(dtype)
    if mlir is None:
        raise CodegenError("E400", f"data type {dtype.name} has no PTO MLIR equivalent", span)
    return mlir


def scalar_type(dtype: DataType, span: Span) -> str:
    """The type of a scalar SSA value of this dtype (signless for integers; 2026-08's INDEX
    is MLIR's ``index``)."""
    if dtype is DataType.INDEX:
        return INDEX
    mlir = element_type(dtype, span)
    return mlir[1:] if mlir.startswith("ui") else mlir


def arith_type(dtype: DataType, span: Span) -> str:
    """The type scalar arithmetic of this dtype is done in (INT64 and INDEX -> ``index``)."""
    return INDEX if dtype is DataType.INT64 else scalar_type(dtype, span)


def is_float(mlir_type: str) -> bool:
    return mlir_type in FLOAT_TYPES


def is_integer(mlir_type: str) -> bool:
    """Signless integer or index (the types arith's integer ops accept)."""
    return mlir_type == INDEX or (mlir_type.startswith("i") and mlir_type[1:].isdigit())


def int_width(mlir_type: str) -> int:
    """Bit width of ``iN`` (``index`` counts as 64)."""
    return 64 if mlir_type == INDEX else int(mlir_type[1:])


def float_width(mlir_type: str) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[mlir_type]


def ptr_type(element: str) -> str:
    return f"!pto.ptr<{element}>"


def tensor_view_type(rank: int, element: str) -> str:
    """Tensor views are dynamically shaped: one ``?`` per dimension."""
    return "!pto.tensor_view<" + "".join("?x" for _ in range(rank)) + element + ">"


def partition_view_type(sizes: Sequence[int | None], element: str) -> str:
    """``!pto.partition_tensor_view<16x?xf32>`` (None: a size known at run time)."""
    dims = "".join(f"{'?' if s is None else s}x" for s in sizes)
    return "!pto.partition_tensor_view<" + dims + element + ">"


def static_dims(dims: Sequence[Expr], what: str, span: Span) -> list[int]:
    """Constant dimensions, or E401 at the first dynamic one."""
    values: list[int] = []
    for dim in dims:
        value = static_value(dim)
        if value is None:
            at = dim.span if dim.span.is_known else span
            raise CodegenError("E401", f"{what} must have a constant shape for PTO", at)
        values.append(value)
    return values


def _rows_cols(dims: list[int], span: Span) -> tuple[int, int]:
    """A 1-D tile is one row; PTO tile buffers have at most two dimensions."""
    if len(dims) == 1:
        return 1, dims[0]
    if len(dims) == 2:
        return dims[0], dims[1]
    raise CodegenError("E400", f"a {len(dims)}-D tile has no PTO tile_buf (at most 2-D)", span)


ROW_ALIGN_BYTES = 32


def is_column_vector(tile: TileType) -> bool:
    """A [M, 1] Vec tile (M > 1) with the default layout: pto-isa's column vector, which
    PTOAS wants col_major (TROWSUM's result, TROWEXPANDADD's per-row operand)."""
    shape = tile.shape
    if len(shape) != 2 or static_value(shape[1]) != 1 or (static_value(shape[0]) or 0) <= 1:
        return False
    memref = tile.memref
    if memref is None or memref.memory_space.mlir_name != "vec":
        return False
    view = tile.tile_view
    return view is None or (
        view.valid_shape is None
        and (view.blayout.value, view.slayout.value) == ("row_major", "none_box")
    )


def row_view_type(tile: TileType, span: Span) -> str:
    """The [1, M] row-major tile_buf that reinterprets a column vector's M elements
    (``pto.treshape``): how element-wise ops, which PTOAS allows on row-major tiles only,
    run on column vectors."""
    rows = static_value(tile.shape[0]) or 1
    dtype = element_type(tile.dtype, span)
    cols = aligned_cols(rows, tile.dtype)  # as many bytes as the column's (padded) buffer
    return (
        f"!pto.tile_buf<loc=vec, dtype={dtype}, rows=1, cols={cols}, v_row=1, v_col={rows}, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )


def aligned_cols(cols: int, dtype: DataType) -> int:
    """The physical columns of a row-major tile: pto-isa's Tile asserts that a row-major,
    unboxed tile's rows are whole 32-byte blocks, so a narrower tile (a [32, 1] row sum) is
    padded and its valid shape keeps the IR's columns. (A column-major [32, 1] would satisfy
    pto-isa too, but PTOAS's element-wise ops — texp, tadd, tmax — require row-major.)"""
    per_block = max(1, int(ROW_ALIGN_BYTES // dtype.bytes)) if dtype.bits >= 8 else 1
    return -(-cols // per_block) * per_block


# The layouts of a Right tile (fractals row by row, each column by column: "zN") and of a
# Mat tile as loads write it (column by column, each row by row: "nZ"): the same bytes, read
# with the dimensions swapped.
RIGHT_LAYOUT = ("row_major", "col_major")
MAT_LAYOUT = ("col_major", "row_major")


def tile_buf_type(tile: TileType, span: Span, name: str = "") -> str:
    """``!pto.tile_buf<loc=.., dtype=.., rows=.., ...>`` of a tile with a MemRef.

    ``v_row``/``v_col`` are the tile's valid shape when its TileView gives a constant one,
    else the full rows/cols (the seed's default). Layout, fractal and pad come from the
    TileView, with the seed's defaults when there is none.
    """
    what = f"tile '{name}'" if name else "a tile"
    if tile.memref is None:
        raise CodegenError(
            "E403", f"{what} has no buffer (MemRef); run the PTO pass pipeline first", span
        )
    rows, cols = _rows_cols(static_dims(tile.shape, what, span), span)
    v_row, v_col = rows, cols
    view = tile.tile_view
    v_text: tuple[object, object] | None = None
    if view is not None and view.valid_shape is not None:
        valid = [static_value(d) for d in view.valid_shape]
        if all(v is not None for v in valid) and len(valid) in (1, 2):
            v_row, v_col = _rows_cols([v for v in valid if v is not None], span)
        elif len(valid) in (1, 2):
            # known at run time: both dynamic (pto.set_validshape sets them together)
            v_text = ("?", "?")
    dtype = element_type(tile.dtype, span)
    blayout = view.blayout.value if view is not None else "row_major"
    slayout = view.slayout.value if view is not None else "none_box"
    if is_column_vector(tile):
        blayout = "col_major"
        rows = aligned_cols(rows, tile.dtype)  # the column in whole 32-byte blocks, too
    elif tile.memref.memory_space is MemorySpace.Right:
        # TMATMUL reads Right in one layout (zN), whatever the IR's view (a transposing
        # move flips it; ops.py moves a transposed operand into this layout).
        blayout, slayout = RIGHT_LAYOUT
    elif (blayout, slayout) == ("row_major", "none_box"):
        cols = aligned_cols(cols, tile.dtype)
    fractal = view.fractal if view is not None else 512
    pad = view.pad.value if view is not None else 0
    return (
        f"!pto.tile_buf<loc={tile.memref.memory_space.mlir_name}, dtype={dtype}, "
        f"rows={rows}, cols={cols}, v_row={v_text[0] if v_text else v_row}, "
        f"v_col={v_text[1] if v_text else v_col}, blayout={blayout}, "
        f"slayout={slayout}, fractal={fractal}, pad={pad}>"
    )


class TileBufs:
    """``tile_buf_type`` of the tiles of one generation, worked out once per TileType object
    and once per distinct type: a tile's type is asked for where its buffer is allocated and
    again at every write into it, and a module's hundreds of tile types are a few dozen
    distinct ones. Errors are not kept (each use reports its own)."""

    def __init__(self) -> None:
        self._found: dict[int, tuple[TileType, str]] = {}
        self._by_value: dict[tuple[object, ...], str] = {}

    def of(self, tile: TileType, span: Span, name: str = "") -> str:
        hit = self._found.get(id(tile))
        if hit is not None and hit[0] is tile:
            return hit[1]
        key = _value_key(tile)
        text = self._by_value.get(key) if key is not None else None
        if text is None:
            text = tile_buf_type(tile, span, name)
            if key is not None:
                self._by_value[key] = text
        self._found[id(tile)] = (tile, text)
        return text


def _value_key(tile: TileType) -> tuple[object, ...] | None:
    """Everything ``tile_buf_type`` reads of ``tile`` (None: it has no buffer)."""
    memref = tile.memref
    if memref is None:
        return None
    shape = _dims_key(tile.shape)
    view = tile.tile_view
    if view is None:
        return (tile.dtype, memref.memory_space, shape)
    valid = None if view.valid_shape is None else _dims_key(view.valid_shape)
    layout = (view.blayout, view.slayout, view.fractal, view.pad)
    return (tile.dtype, memref.memory_space, shape, valid, layout)


MemRefKey = tuple[MemorySpace, int | None, int, int]

# memref_key spells out what MemRef equality compares.
assert [f.name for f in fields(MemRef)] == ["memory_space", "addr", "size", "id"]


def memref_key(memref: MemRef) -> MemRefKey:
    """Equal for equal MemRefs (every field), without a MemRef's Python-level hash of its
    fields: generation keys buffers by MemRef."""
    return (memref.memory_space, memref.addr, memref.size, memref.id)


def _dims_key(dims: Sequence[Expr]) -> tuple[object, ...]:
    """Constant dimensions by value; any other by identity (it raises E401 anyway)."""
    return tuple([d.value if isinstance(d, ConstInt) else d for d in dims])


def tile_buf_fields(tile_buf: str) -> dict[str, str]:
    """The ``key=value`` fields of a ``!pto.tile_buf<...>`` type, in order."""
    return dict(re.findall(r"(\w+)=([\w?]+)", tile_buf))


def tile_buf_of(fields: dict[str, str]) -> str:
    """The ``!pto.tile_buf<...>`` type of ``tile_buf_fields``' fields (changed or not)."""
    return "!pto.tile_buf<" + ", ".join(f"{k}={v}" for k, v in fields.items()) + ">"
