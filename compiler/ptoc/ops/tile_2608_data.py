"""Tile ops PyPTO 2026-08 added that make, view or address tiles (spec pypto-2026-08.md section
9.1): integer sequences, masks and random values, sub-tiles, padding, valid regions, element
access and the block queries. IR names ``block.X``, as in tile_2608.py.
"""

from __future__ import annotations

from typing import Any

from ..ir.dtype import DataType
from ..ir.expr import Expr
from ..ir.shape import static_value
from ..ir.types import BLayout, MemorySpace, PadMode, TileType, TileView, Type
from .registry import VALID_SHAPE_METHOD, Access, DeduceContext, Lowering, PipeType, Role
from .rules import (
    attr_bool,
    attr_dtype,
    attr_memory,
    entry,
    int_elements,
    p_attr,
    p_shape,
    p_tile,
    require_integer,
    rule,
    static_positive_shape,
    view_for,
)
from .rules_2608 import (
    element_read_rule,
    element_write_rule,
    index_scalar_rule,
    no_lowering,
    optional_shape,
    p_dtype,
    p_enum,
    p_flag,
    p_list,
    p_value,
    pad_mode,
    reinterpret_rule,
    set_valid_rule,
)
from .tile_2608 import tile_op

_D = DataType
_ON_CHIP = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)
_VEC = (MemorySpace.Vec,)

# --- sequences, masks, random values -----------------------------------------------------------


def _scalars(ctx: DeduceContext, names: tuple[str, ...]) -> None:
    for name in names:
        require_integer(ctx, name, ctx.scalar(name).dtype)


def _generated(ctx: DeduceContext, dtypes: tuple[DataType, ...]) -> TileType:
    """A tile of ``shape`` and the ``dtype`` attribute (one of ``dtypes``) in Vec."""
    shape = static_positive_shape(ctx, "shape")
    dtype = attr_dtype(ctx, "dtype")
    assert dtype is not None  # defaulted
    if dtype not in dtypes:
        wanted = ", ".join(d.name for d in dtypes)
        ctx.fail(
            f"{ctx.op.name}: dtype must be one of {wanted}, got {dtype.name}",
            at="dtype",
            code="E309",
        )
    valid = optional_shape(ctx, "valid_shape")
    if valid is not None and len(valid) != len(shape):
        ctx.fail(
            f"{ctx.op.name}: 'valid_shape' must have {len(shape)} dimensions",
            at="valid_shape",
            code="E307",
        )
    view = TileView(valid_shape=valid) if valid is not None else None
    return TileType(shape, dtype, tile_view=view)


@rule
def _ci(ctx: DeduceContext) -> Type:
    _scalars(ctx, ("start",))
    attr_bool(ctx, "descending")
    result = _generated(ctx, (_D.INT16, _D.INT32))
    if static_value(result.shape[-1]) == 1:
        ctx.fail(f"{ctx.op.name}: the innermost dimension must not be 1", at="shape", code="E307")
    return result


@rule
def _tri(ctx: DeduceContext) -> Type:
    _scalars(ctx, ("diagonal",))
    attr_bool(ctx, "upper")
    return _generated(ctx, tuple(d for d in DataType if d.is_int or d.is_float))


_KEYS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")


@rule
def _random(ctx: DeduceContext) -> Type:
    _scalars(ctx, _KEYS)
    return _generated(ctx, (_D.UINT32, _D.INT32, _D.UINT16, _D.INT16, _D.FP32, _D.FP16))


_SHAPE = p_shape("shape", "Static shape of the result: positive integer literals")
_VALID = p_list("valid_shape", "Valid region of the result (default: all of it)", None)

tile_op(
    entry(
        "ci",
        "",
        "A contiguous integer sequence start, start + 1, ... (start, start - 1, ... when "
        "descending) laid out over shape.",
        dsl_names=("arange", "ci"),
        unified_always=True,
        **no_lowering(
            "TCI takes descending as a template argument ptoc does not spell",
            "pto.tci takes start in the result's element type; ptoc does not convert it yet",
        ),
    ),
    [
        p_value("start", "First value (an integer scalar)"),
        _SHAPE,
        p_dtype("dtype", "Element type: INT16 or INT32", DataType.INT32),
        p_flag("descending", "Count down instead of up"),
    ],
    _ci,
    "t(shape, dtype); dtype INT16 or INT32",
    pipe=PipeType.V,
)
tile_op(
    entry(
        "tri",
        "",
        "A triangular 0 / 1 mask: 1 on and below (upper: on and above) the diagonal-th diagonal.",
        unified_always=True,
        **no_lowering("TTRI takes the triangle's side as a template argument ptoc does not spell"),
    ),
    [
        p_value("diagonal", "Diagonal offset (an integer scalar; 0 is the main diagonal)"),
        _SHAPE,
        _VALID,
        p_dtype("dtype", "Element type", DataType.INT32),
        p_flag("upper", "Upper instead of lower triangle"),
    ],
    _tri,
    "t(shape, dtype)",
)
tile_op(
    entry(
        "random",
        "",
        "Counter-based random values (Philox-style rounds) from two keys and four counters.",
        unified_always=True,
        **no_lowering("TRANDOM takes key and counter structures ptoc does not build"),
    ),
    [
        *(
            p_value(name, f"Random {name[:-1]} word {name[-1]} (an integer scalar)")
            for name in _KEYS
        ),
        _SHAPE,
        _VALID,
        p_dtype("dtype", "Element type", DataType.UINT32),
        p_attr("rounds", "Number of rounds", (int,), 10),
    ],
    _random,
    "t(shape, dtype)",
)

# --- sub-tiles, padding, valid regions -----------------------------------------------------------


@rule
def _extract(ctx: DeduceContext) -> Type:
    src = ctx.tile("src")
    _scalars(ctx, ("index_row", "index_col"))
    shape = static_positive_shape(ctx, "shape")
    memory = attr_memory(ctx, "target_memory", _ON_CHIP)
    for axis, (dim, extent) in enumerate(zip(shape, src.shape[-len(shape) :], strict=False)):
        size, whole = static_value(dim), static_value(extent)
        if size is not None and whole is not None and size > whole:
            ctx.fail(
                f"{ctx.op.name}: size {size} on dimension {axis} exceeds the source's {whole}",
                at="shape",
                code="E308",
            )
    return TileType(shape, src.dtype, tile_view=view_for(memory))


tile_op(
    entry(
        "extract",
        "TEXTRACT",
        "Copy a sub-tile of shape at (index_row, index_col) into target_memory (e.g. Mat -> "
        "Left / Right, Acc -> Mat).",
        operands=("src", "index_row", "index_col"),
        pto_index_operands=("index_row", "index_col"),
        pipe=PipeType.MTE1,
        role=Role.MOVE,
        result_space_attr="target_memory",
    ),
    [
        p_tile("src", "Tile to copy from"),
        p_value("index_row", "First row of the sub-tile"),
        p_value("index_col", "First column of the sub-tile"),
        p_shape("shape", "Static shape of the sub-tile"),
        p_attr("target_memory", "Buffer the sub-tile is copied into (required)", (MemorySpace,)),
    ],
    _extract,
    "t(shape, src.dtype) in target_memory",
)


def _padded(source: TileType, shape: tuple[Expr, ...], pad: PadMode) -> TileType:
    view = TileView(pad=pad, blayout=(source.tile_view or TileView()).blayout)
    return TileType(shape, source.dtype, tile_view=view)


@rule
def _fillpad_expand(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    shape = static_positive_shape(ctx, "shape")
    if len(shape) != tile.rank:
        ctx.fail(
            f"{ctx.op.name}: 'shape' must have {tile.rank} dimensions", at="shape", code="E307"
        )
    for axis, (dim, extent) in enumerate(zip(shape, tile.shape, strict=True)):
        size, whole = static_value(dim), static_value(extent)
        if size is not None and whole is not None and size < whole:
            ctx.fail(
                f"{ctx.op.name}: size {size} on dimension {axis} is below the tile's {whole}",
                at="shape",
                code="E307",
            )
    return _padded(tile, shape, pad_mode(ctx))


@rule
def _fillpad_inplace(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    return _padded(tile, tile.shape, pad_mode(ctx))


_PAD_VALUE = p_enum(
    "pad_value", "Fill value: pl.PadValue.zero / max / min, or 0, inf, -inf", PadMode.zero, float
)


def _fillpad(instruction: str) -> dict[str, Any]:
    """TFILLPAD_X and the dialect's pto.tfillpad_x (an underscore, not a dotted variant); the
    pad value is the result tile's (its type's pad)."""
    note = "the pad value is the result tile type's pad"
    return {
        "cce": Lowering(instruction, note, operands=("tile",)),
        "pto": Lowering(
            "pto." + instruction.lower(),
            note,
            operands=("tile",),
            stated_by_type=("pad_value",),
        ),
    }


tile_op(
    entry(
        "fillpad_expand",
        "",
        "Copy a tile into a larger shape, filling the rest with the pad value.",
        reads_valid_region=True,  # what is outside the source's valid region is padded
        **_fillpad("TFILLPAD_EXPAND"),
    ),
    [
        p_tile("tile", "Tile to copy", spaces=_VEC),
        p_shape("shape", "Static shape of the result"),
        _PAD_VALUE,
    ],
    _fillpad_expand,
    "t(shape, tile.dtype) padded with pad_value",
)
tile_op(
    entry(
        "fillpad_inplace",
        "",
        "Fill the padding outside a tile's valid region with the pad value, in place.",
        aliases="tile",
        reads_valid_region=True,  # what is outside the source's valid region is padded
        **_fillpad("TFILLPAD_INPLACE"),
    ),
    [p_tile("tile", "Tile whose padding is filled", spaces=_VEC, access=Access.WRITE), _PAD_VALUE],
    _fillpad_inplace,
    "type(tile) padded with pad_value",
)


@rule
def _assemble(ctx: DeduceContext) -> Type:
    target, source = ctx.tile("target"), ctx.tile("source")
    offsets = int_elements(ctx, "offset")
    if len(offsets) != target.rank:
        ctx.fail(
            f"{ctx.op.name}: 'offset' must have {target.rank} elements", at="offset", code="E307"
        )
    if source.dtype is not target.dtype:
        ctx.fail(
            f"{ctx.op.name}: 'source' must be {target.dtype.name}, got {source.dtype.name}",
            at="source",
        )
    return TileType(target.shape, target.dtype, tile_view=target.tile_view, memory=target.memory)


tile_op(
    entry(
        "assemble",
        "TINSERT",
        "Write a tile into a region of a larger tile; the result is the updated target.",
        "the target is the destination (the result is its buffer); the offset gives the row "
        "and column; Vec -> Vec only (its Acc -> Mat form converts on the FIX pipe)",
        aliases="target",
        operands=("source", "offset"),
        pipe=PipeType.V,
        space_pairs=((MemorySpace.Vec, MemorySpace.Vec),),
        pto_since_ptoas="0.57",  # v0.27's verifier: "A2/A3 tinsert src ... loc=acc, dst ... mat"
    ),
    [
        p_tile("target", "Tile written into", access=Access.WRITE),
        p_tile("source", "Tile whose contents are written"),
        p_shape("offset", "Where in 'target' the 'source' starts, per dimension"),
    ],
    _assemble,
    "type(target)",
)

_VIEW_ONLY = "a view that changes no data: ptoc does not lower it yet"
tile_op(
    entry(
        "set_validshape",
        "",
        "The same tile with its valid region set to [valid_rows, valid_cols].",
        aliases="tile",
        cce=Lowering(
            VALID_SHAPE_METHOD,
            "the result is the source's storage (a Tile at its address); a region known at "
            "run time is set with Tile::SetValidShape (pto_tile.hpp)",
        ),
        pto=Lowering(
            "pto.treshape",
            "a view of the source whose type states the region; one known at run time "
            "(v_row=?, v_col=?) is set on the view with pto.set_validshape",
            returns_value=True,
        ),
        reads_valid_region=True,
    ),
    [
        p_tile("tile", "2-D tile"),
        p_value("valid_rows", "Valid rows (an integer scalar)"),
        p_value("valid_cols", "Valid columns (an integer scalar)"),
    ],
    set_valid_rule("tile"),
    "type(tile) with valid region [valid_rows, valid_cols]",
    pipe=PipeType.S,
    role=Role.VIEW,
)
tile_op(
    entry(
        "reinterpret_view",
        "",
        "The same bytes as another element type of the same total size (no copy).",
        **no_lowering(_VIEW_ONLY),
    ),
    [
        p_tile("data", "Tile to view"),
        p_dtype("dtype", "Element type of the view"),
        p_list("shape", "Shape of the view (default: the last dimension rescaled)", None),
    ],
    reinterpret_rule("tile"),
    "t(shape or rescaled shape, dtype); same bytes",
    pipe=PipeType.S,
    role=Role.VIEW,
)


_FLIP = {BLayout.row_major: BLayout.col_major, BLayout.col_major: BLayout.row_major}


@rule
def _transpose_view(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    if tile.rank != 2:
        ctx.fail(
            f"{ctx.op.name}: argument 'tile' must be 2-D, got {tile.short()}",
            at="tile",
            code="E307",
        )
    view = tile.tile_view or TileView()
    swapped = TileView(
        blayout=_FLIP.get(view.blayout, view.blayout),
        slayout=_FLIP.get(view.slayout, view.slayout),
        fractal=view.fractal,
    )
    return TileType((tile.shape[1], tile.shape[0]), tile.dtype, tile_view=swapped)


tile_op(
    entry(
        "transpose_view",
        "TRESHAPE",
        "The same Mat / Left / Right tile read transposed (NZ <-> ZN), without copying.",
        # The same bytes under the swapped shape and layouts: a reinterpreting view (TRESHAPE,
        # pto.treshape), which a plain move then copies into Left / Right (q @ kᵀ).
        pto_returns_value=True,
        aliases="tile",
    ),
    [
        p_tile(
            "tile",
            "2-D tile in Mat, Left or Right",
            spaces=(MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right),
        )
    ],
    _transpose_view,
    "t([cols, rows], tile.dtype), block and scatter layouts swapped",
    pipe=PipeType.S,
    role=Role.VIEW,
)

# --- element access, block queries -------------------------------------------------------------

_NO_ELEMENT = (
    "pto-isa has no element read / write instruction (PTO v0.57's pto.tgetval / pto.tsetval "
    "have none to lower to)"
)
tile_op(
    entry("read", "", "Read one element of a tile as a scalar.", **no_lowering(_NO_ELEMENT)),
    [
        p_tile("tile", "Tile to read from", spaces=_VEC),
        p_shape("indices", "One integer index per dimension"),
    ],
    element_read_rule("tile"),
    "s(tile.dtype); one index per dimension",
    pipe=PipeType.S,
    role=Role.SCALAR,
)
tile_op(
    entry(
        "write",
        "",
        "Write one element of a tile; the result is the updated tile.",
        aliases="tile",
        **no_lowering(_NO_ELEMENT),
    ),
    [
        p_tile("tile", "Tile written into", spaces=_VEC, access=Access.WRITE),
        p_shape("indices", "One integer index per dimension"),
        p_value("value", "The element's new value"),
    ],
    element_write_rule("tile"),
    "type(tile)",
    pipe=PipeType.S,
)
for _row in (
    entry(
        "get_block_num",
        "",
        "The number of AI core blocks running this kernel.",
        index_result=True,
        cce=Lowering("get_block_num", "a scalar intrinsic call"),
        pto=Lowering("pto.get_block_num"),
    ),
    entry(
        "get_subblock_idx",
        "",
        "The index of the vector sub-block (0 or 1) running this code.",
        index_result=True,
        cce=Lowering("get_subblockid", "a scalar intrinsic call"),
        pto=Lowering("pto.get_subblock_idx"),
    ),
):
    tile_op(
        _row,
        [],
        index_scalar_rule(),
        "s(INDEX)",
        pipe=PipeType.S,
        role=Role.SCALAR,
        unified_always=True,
    )
