"""Block ops (``block.*``, spec dsl-surface.md sections 7.2-7.5): tiles in on-chip buffers.

Each op lowers to one pto-isa instruction (CCE C++, seed 000) and to its PTO dialect op
(seed 002). Every op is a table row (``entry``: its name, instruction, description and own
traits), which records its own source line; families that share parameters and a rule are
tables of rows.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from .. import records
from ..editions import Edition
from ..ir.dsl_enums import AtomicType, PadValue
from ..ir.dtype import DataType
from ..ir.expr import Expr, MakeTuple, const_int, make_tuple
from ..ir.shape import dim_str, static_value
from ..ir.span import NO_SPAN, Span
from ..ir.types import UNKNOWN, MemorySpace, ScalarType, TileType, TileView, Type
from .legality import (
    check_converting_move,
    check_matmul_dtype,
    check_move,
    check_store_dtype,
    check_store_window,
)
from .registry import (
    REGISTRY,
    Access,
    Category,
    DeduceContext,
    EditionForm,
    LegacyForm,
    Lowering,
    MaskForm,
    Param,
    PipeType,
    Role,
    TypedAttr,
    TypeRule,
    call_site,
    register,
)
from .rules import (
    ACC_VIEW,
    AXES_TO_SWAP,
    CAST_ATTRS,
    MAT_VIEW,
    Elementwise,
    Entry,
    attr_bool,
    attr_dtype,
    attr_int,
    attr_memory,
    broadcast_shapes,
    cast_rule,
    check_window,
    dims_conflict,
    elementwise,
    elementwise_doc,
    entry,
    expr_params,
    int_elements,
    is_number_literal,
    isa,
    moved_view,
    normalize_axis,
    p_attr,
    p_scalar,
    p_shape,
    p_tensor,
    p_tile,
    promote_all,
    register_entry,
    require_rank,
    reshape_rule,
    row_reduce_rule,
    rule,
    static_positive_shape,
    transpose_rule,
    view_for,
    view_rule,
)
from .rules_2608 import optional_shape, pad_mode

_VEC, _MAT, _ACC = MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Acc
_IN_VEC = (MemorySpace.Vec,)
_ON_CHIP = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)
_DTYPE = (DataType,)
_MEMORY = (MemorySpace,)

# The element types PTO instructions take on A2/A3, as PTOAS v0.27's verifier states them
# (tests/ptoas/test_ptoas_dtypes.py runs PTOAS on every element type of one op per table):
# what the PTO generator reports as E400 before PTOAS runs (docs/codegen-pto.md).
_D = DataType
_PTO_ARITH = (_D.INT16, _D.UINT16, _D.INT32, _D.UINT32, _D.FP16, _D.FP32)
_PTO_FLOAT = (_D.FP16, _D.FP32)
# pto-isa's npu/a2a3 TADDS, TSUBS, TMULS, TMAXS, TMINS (static assertions; its CPU simulator
# takes more).
_A2A3_SCALAR = (_D.INT16, _D.INT32, _D.FP16, _D.FP32)
_PTO_BITWISE = (_D.INT8, _D.UINT8, _D.INT16, _D.UINT16)
_PTO_SHIFT = (*_PTO_BITWISE, _D.INT32, _D.UINT32)
_PTO_REM = (_D.INT32, _D.UINT32, _D.FP32)


# =============================================================================================
# Memory ops (7.2)
# =============================================================================================


@rule
def _create_tile(ctx: DeduceContext) -> Type:
    shape = static_positive_shape(ctx, "shape")
    dtype = attr_dtype(ctx, "dtype")
    memory = attr_memory(ctx, "target_memory", _ON_CHIP)
    assert dtype is not None  # a required attribute: attr_dtype failed otherwise
    return TileType(shape, dtype, tile_view=view_for(memory))


@rule
def _full(ctx: DeduceContext) -> Type:
    shape = static_positive_shape(ctx, "shape")
    dtype = attr_dtype(ctx, "dtype")
    if not is_number_literal(ctx.expr("value")):
        ctx.fail(
            f"{ctx.op.name}: argument 'value' must be a number literal, got "
            f"{ctx.type('value').short()}",
            at="value",
        )
    assert dtype is not None
    return TileType(shape, dtype)


@rule
def _load(ctx: DeduceContext) -> Type:
    tensor = ctx.tensor("tensor")
    offsets, shapes = int_elements(ctx, "offsets"), int_elements(ctx, "shapes")
    memory = attr_memory(ctx, "target_memory", (_VEC, _MAT))
    check_window(ctx, tensor, offsets, shapes, ("offsets", "shapes"))
    view = view_for(memory)
    valid = _valid_region(ctx, shapes)
    if valid is not None:
        view = records.replace(view or TileView(), valid_shape=valid)
    return TileType(shapes, tensor.dtype, tile_view=view)


def _valid_region(ctx: DeduceContext, window: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """2026-08's ``valid_shape=`` of a load: the valid part of the window (rows, columns;
    each a constant or a scalar known at run time), None when it is the whole window. A
    constant outside 0..the window's extent is E308 (the load would read past its window)."""
    valid = optional_shape(ctx, "valid_shape")
    if valid is None:
        return None
    if len(valid) != len(window):
        ctx.fail(
            f"{ctx.op.name}: 'valid_shape' must have {len(window)} dimensions, got {len(valid)}",
            at="valid_shape",
            code="E307",
        )
    whole = True
    for axis, (dim, extent) in enumerate(zip(valid, window, strict=True)):
        value, limit = static_value(dim), static_value(extent)
        if value is not None and (value < 0 or (limit is not None and value > limit)):
            ctx.fail(
                f"{ctx.op.name}: valid size {value} on dimension {axis} is outside "
                f"0..{dim_str(extent)} (the window's)",
                at="valid_shape",
                code="E308",
            )
        whole = whole and value is not None and value == limit
    return None if whole else valid


@rule
def _fillpad(ctx: DeduceContext) -> Type:
    """2026-08's ``fillpad(tile, pad_value=zero)``: the whole tile valid, the part outside
    the source's valid region holding the pad value (the result's pad); 2026-03's
    ``fillpad(tile)``: the tile's own type (its view states the pad)."""
    tile = ctx.tile("tile")
    if ctx.attr("pad_value") is None:
        return TileType(tile.shape, tile.dtype, tile_view=tile.tile_view)
    view = records.replace(tile.tile_view or TileView(), valid_shape=None, pad=pad_mode(ctx))
    return TileType(tile.shape, tile.dtype, tile_view=view)


@rule
def _store(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    offsets, shapes = int_elements(ctx, "offsets"), int_elements(ctx, "shapes")
    output = ctx.tensor("output_tensor")
    check_window(ctx, output, offsets, shapes, ("offsets", "shapes"))
    check_store_dtype(ctx, tile, output)
    check_store_window(ctx, tile, tuple(static_value(d) for d in shapes))
    return output


@rule
def _move(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    memory = attr_memory(ctx, "target_memory", (*_ON_CHIP[:4], MemorySpace.Bias))
    check_move(ctx, tile, memory)
    shape = tile.shape
    transpose = attr_bool(ctx, "transpose")
    if transpose:
        if tile.rank != 2:
            ctx.fail(
                f"{ctx.op.name}: transpose=True needs a 2-D tile, got {tile.short()}",
                at="transpose",
                code="E309",
            )
        shape = (shape[1], shape[0])
    dtype = attr_dtype(ctx, "dtype")
    if dtype is not None and dtype is not tile.dtype:
        check_converting_move(ctx, tile, memory, dtype)
        # FIXPIPE writes Mat as loads do (nZ), the layout TMOV Acc -> Mat requires
        return TileType(shape, dtype, tile_view=MAT_VIEW)
    return TileType(shape, tile.dtype, tile_view=moved_view(memory, transpose))


@rule
def _same_tile(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    return TileType(tile.shape, tile.dtype, tile_view=tile.tile_view)


@rule
def _block_idx(ctx: DeduceContext) -> Type:
    return ScalarType(DataType.UINT64)


@rule
def _alloc(ctx: DeduceContext) -> Type:
    for name in expr_params(ctx):
        ctx.scalar(name)
    return UNKNOWN  # a buffer, not a value: only passes create it


def _pair(elements: tuple[Expr, Expr]) -> Expr:
    spans = [e.span for e in elements if e.span.is_known]
    span: Span = spans[0].merge(spans[-1]) if spans else NO_SPAN
    return make_tuple(elements, span=span)


def _window_from_legacy(args: dict[str, Expr]) -> dict[str, Expr]:
    """Seed 004's ``(x, row_offset, col_offset, height, width[, output_tensor])`` as lists."""
    converted = {
        k: v for k, v in args.items() if k not in ("row_offset", "col_offset", "height", "width")
    }
    converted["offsets"] = _pair((args["row_offset"], args["col_offset"]))
    converted["shapes"] = _pair((args["height"], args["width"]))
    return converted


_LEGACY_WINDOW = (
    p_scalar("row_offset", "First row of the window"),
    p_scalar("col_offset", "First column of the window"),
    p_scalar("height", "Number of rows"),
    p_scalar("width", "Number of columns"),
)
_LEGACY_NOTE = "seed 004 positional form; becomes offsets=[row, col], shapes=[height, width]"
_OUTPUT = p_tensor(
    "output_tensor", "Tensor written to; the result has its type", access=Access.WRITE
)
_OFFSETS = p_shape("offsets", "Start of the window in each dimension of the tensor")
_SHAPES = p_shape("shapes", "Size of the window (the tile shape) in each dimension")
# TSTORE copies out of Vec or Mat (MTE3); Acc goes through the FIX pipe: l0c_store
# (pto-isa npu/a2a3/TStore.hpp:250).
# ``atomic=pl.AtomicType.Add`` adds the tile into the window (split-K's partial products);
# None (the default) overwrites it. TSTORE's atomic mode; PTO's ``atomicType``.
ATOMIC = p_attr(
    "atomic",
    "pl.AtomicType.Add adds the tile into the window (split-K); default: overwrite",
    (Enum,),
    None,
)
_ATOMIC_TYPE = TypedAttr(
    "atomic",
    "atomicType",
    "atomic_type",
    ((AtomicType.None_, "atomic_none"), (AtomicType.Add, "atomic_add")),
)
_STORE_PARAMS = [
    p_tile("tile", "Tile to write", spaces=(_VEC, _MAT)),
    _OFFSETS,
    _SHAPES,
    _OUTPUT,
    ATOMIC,
]
_L0C_STORE_PARAMS = [
    p_tile("tile", "Acc (L0C) tile to write", spaces=(MemorySpace.Acc,)),
    _OFFSETS,
    _SHAPES,
    _OUTPUT,
    ATOMIC,
]
_STORE_LEGACY = LegacyForm(
    (p_tile("tile", "Tile to write"), *_LEGACY_WINDOW, _OUTPUT),
    _window_from_legacy,
    _LEGACY_NOTE,
    regroup=(0, (1, 2), (3, 4), 5),
)
_LOAD_MEMORY = p_attr(
    "target_memory", "Destination buffer: pl.MemorySpace.Vec or .Mat", _MEMORY, MemorySpace.Vec
)
_VALID_SHAPE = Param(
    "valid_shape",
    "2026-08: the valid region of the window (default: all of it); the rest of the tile is "
    "not read (fillpad fills it)",
    default=None,
    accepts=("shape",),
)
_PAD_VALUE = p_attr(
    "pad_value",
    "What the invalid part holds: pl.PadValue.zero / max / min, or 0, inf, -inf (2026-03: "
    "the tile view's pad)",
    (Enum, int, float, type(None)),
    None,
)
_FILLPAD_2026_08 = EditionForm(
    Edition.V2026_08,
    (
        p_tile("tile", "Tile whose padding is filled", spaces=_IN_VEC),
        p_attr("pad_value", _PAD_VALUE.doc, (Enum, int, float), PadValue.zero),
    ),
    dict,
    "2026-08: fillpad(tile, pad_value=PadValue.zero)",
)
# 2026-03's load: the fourth positional argument is the memory. 2026-08's ``valid_shape=``
# written there is read and checked but not modelled (W004), and a printout never gives it
# positionally (it follows the memory, an attribute: by keyword).
_LOAD_2026_03 = EditionForm(
    Edition.V2026_03,
    (p_tensor("tensor", "Tensor in DDR to read"), _OFFSETS, _SHAPES, _LOAD_MEMORY, _VALID_SHAPE),
    lambda args: {k: v for k, v in args.items() if k != "valid_shape"},
    "2026-03: load(tensor, offsets, shapes, target_memory=Vec)",
    unmodelled=("valid_shape",),
)
# 2026-08's load: the fourth positional argument is the valid shape, the memory a keyword.
_LOAD_2026_08 = EditionForm(
    Edition.V2026_08,
    (
        p_tensor("tensor", "Tensor in DDR to read"),
        _OFFSETS,
        _SHAPES,
        _VALID_SHAPE,
        _LOAD_MEMORY,
        p_attr(
            "clamp", "2026-08: narrow a valid region that reads past the tensor", (bool,), False
        ),
    ),
    lambda args: {k: v for k, v in args.items() if k != "valid_shape" or isinstance(v, MakeTuple)},
    "2026-08: load(tensor, offsets, shapes, valid_shape=None, target_memory=Vec, clamp=False)",
)


def _store_shapes_from_tile(args: dict[str, Expr]) -> dict[str, Expr]:
    """2026-08's store writes the whole tile unless ``shapes`` says otherwise."""
    converted = dict(args)
    tile = args.get("tile")
    if "shapes" not in converted and tile is not None and isinstance(tile.type, TileType):
        converted["shapes"] = make_tuple(tile.type.shape, span=tile.span)
    return converted


def _store_op(args: dict[str, Expr]) -> str:
    """2026-08 stores an Acc tile with the same call: ours is the FIX pipe's l0c_store."""
    tile = args["tile"].type if "tile" in args else None
    acc = isinstance(tile, TileType) and tile.memory_space is _ACC
    return "block.l0c_store" if acc else "block.store"


# 2026-08's store: ``(tile, offsets, output_tensor, shapes=None, *, atomic=None_)``.
_STORE_2026_08 = EditionForm(
    Edition.V2026_08,
    (
        p_tile("tile", "Tile to write (Vec, or Acc)"),
        _OFFSETS,
        _OUTPUT,
        Param(
            "shapes", "Window size (default: the tile's shape)", default=None, accepts=("shape",)
        ),
        ATOMIC,
    ),
    _store_shapes_from_tile,
    "2026-08: store(tile, offsets, output_tensor, shapes=None, *, atomic=None_)",
    op_for=_store_op,
    spelled="store",
    derived=("shapes",),
)
_ALLOCATION_ONLY = "allocation only: no instruction"
_WINDOW_NOTE = "with pto.partition_view for the window"


def _block_op(
    row: Entry, params: list[Param], type_rule: TypeRule, doc: str, **traits: Any
) -> None:
    """Register a row's block op: ``traits`` are its family's (the pipe is V unless they or
    the row say otherwise); the row's own traits come first, then its instruction's lowerings
    (a row without an instruction gives its lowerings as traits)."""
    register_entry(
        row,
        f"block.{row.name}",
        Category.BLOCK,
        params,
        type_rule,
        type_rule_doc=doc,
        **{"pipe": PipeType.V, **traits},
        **(row.isa() if row.instruction else {}),
    )


_block_op(
    entry(
        "create_tile",
        "",
        "Declare an uninitialised tile in an on-chip buffer.",
        pipe=PipeType.S,
        role=Role.CREATE,
        result_space_attr="target_memory",
        unified_always=True,
        cce=Lowering(None, _ALLOCATION_ONLY + "; the tile is declared for its MemRef", elided=True),
        pto=Lowering(
            None, _ALLOCATION_ONLY + "; emitted as pto.alloc_tile for its MemRef", elided=True
        ),
    ),
    [
        p_shape("shape", "Static tile shape: positive integer literals"),
        p_attr("dtype", "Element data type, e.g. pl.FP32", _DTYPE),
        p_attr("target_memory", "Buffer the tile lives in", _MEMORY, MemorySpace.Vec),
    ],
    _create_tile,
    "t(shape, dtype)",
)
_block_op(
    entry(
        "load",
        "TLOAD",
        "Copy a window of a DDR tensor into a tile (DDR -> Vec or Mat). A Mat tile gets a "
        "column-major block layout.",
        pto_note=_WINDOW_NOTE,
        operands=("tensor", "offsets", "shapes"),  # the valid region is the result type's
        pipe=PipeType.MTE2,
        role=Role.LOAD,
        result_space_attr="target_memory",
        unified_always=True,
        edition_forms=(_LOAD_2026_03, _LOAD_2026_08),
        legacy=LegacyForm(
            (p_tensor("tensor", "Tensor in DDR to read"), *_LEGACY_WINDOW),
            _window_from_legacy,
            _LEGACY_NOTE,
            regroup=(0, (1, 2), (3, 4)),
        ),
    ),
    [p_tensor("tensor", "Tensor in DDR to read"), _OFFSETS, _SHAPES, _LOAD_MEMORY, _VALID_SHAPE],
    _load,
    "t(shapes, tensor.dtype); window inside the tensor",
)

_STORE = {
    "reads_valid_region": True,
    "edition_forms": (_STORE_2026_08,),
    "role": Role.STORE,
    "aliases": "output_tensor",
    "unified_always": True,
    "legacy": _STORE_LEGACY,
}
_STORE_DOC = "type(output_tensor); window inside the tensor"
_block_op(
    entry(
        "store",
        "TSTORE",
        "Copy a tile into a window of a DDR tensor (Vec -> DDR); the result is the updated tensor.",
        pto_note=_WINDOW_NOTE,
        pipe=PipeType.MTE3,
        pto_attrs=(_ATOMIC_TYPE,),
    ),
    _STORE_PARAMS,
    _store,
    _STORE_DOC,
    **_STORE,
)
_block_op(
    entry(
        "l0c_store",
        "TSTORE",
        "Copy an Acc (L0C) tile into a window of a DDR tensor; the result is the updated tensor.",
        "from Acc through the FIX pipe",
        pto_note="from Acc, " + _WINDOW_NOTE,
        pipe=PipeType.FIX,
        pto_attrs=(_ATOMIC_TYPE,),
    ),
    _L0C_STORE_PARAMS,
    _store,
    _STORE_DOC,
    **_STORE,
)

_block_op(
    entry(
        "move",
        "TMOV",
        "Move a tile between on-chip buffers (e.g. Mat -> Left / Right), optionally transposed.",
        pto_note="transpose=True within Vec is a transpose (pto.ttrans), from Mat into Right "
        "a zN copy; other transposing moves have no PTO form (E400): pto.tmov does not "
        "transpose",
        note="transpose=True within Vec is computed as block.transpose (TTRANS), into a "
        "row-major tile",
        transpose_form="block.transpose",
        pipe=PipeType.MTE1,
        role=Role.MOVE,
        result_space_attr="target_memory",
        unified_always=True,
    ),
    [
        p_tile("tile", "Tile to move"),
        p_attr("target_memory", "Destination buffer: Vec, Mat, Left or Right", _MEMORY),
        p_attr("transpose", "Swap the two dimensions of a 2-D tile on the way", (bool,), False),
        p_attr(
            "dtype",
            "Acc -> Mat only: convert FP32 to FP16 / BF16 on the way (TMOV's FIXPIPE "
            "pre-quantisation, round half to even: npu/a2a3/common.hpp GetCastPreQuantMode)",
            _DTYPE,
            None,
        ),
    ],
    _move,
    "t(tile.shape, or swapped if transpose, dtype or tile.dtype)",
)
_block_op(
    entry("vec_move", "TMOV", "Copy a tile within the Vec buffer.", role=Role.MOVE),
    [p_tile("tile", "Tile in Vec to copy", spaces=_IN_VEC)],
    _same_tile,
    "type(tile)",
)


@rule
def _insert(ctx: DeduceContext) -> Type:
    """An Acc tile converted into a window of a Mat tile (TINSERT Acc -> Mat: the FIX pipe's
    cast pre-quantisation, as the converting move's): the window lies inside the target and
    starts on whole 16 x 16 fractals; the result is the target."""
    target, source = ctx.tile("target"), ctx.tile("source")
    if source.dtype is not DataType.FP32 or target.dtype not in (DataType.FP16, DataType.BF16):
        ctx.fail(
            f"{ctx.op.name}: converts an FP32 Acc tile into an FP16 or BF16 Mat tile (TINSERT's "
            f"cast pre-quantisation), not {source.short()} into {target.short()}",
            at="target",
            code="E320",
        )
    if target.memory_space is not MemorySpace.Mat:
        ctx.fail(
            f"{ctx.op.name}: 'target' must be a Mat tile, got {target.short()}",
            at="target",
            code="E320",
        )
    offsets = int_elements(ctx, "offset")
    if target.rank != 2 or source.rank != 2 or len(offsets) != 2:
        ctx.fail(f"{ctx.op.name}: a 2-D window of a 2-D tile", at="offset", code="E307")
    for axis, (start, size, whole) in enumerate(
        zip(offsets, source.shape, target.shape, strict=True)
    ):
        first, extent, full = static_value(start), static_value(size), static_value(whole)
        if first is None:
            continue  # (known at run time)
        outside = extent is not None and full is not None and first + extent > full
        if first % _FRACTAL_SIDE or outside:
            ctx.fail(
                f"{ctx.op.name}: the window [{first}, {first} + {dim_str(size)}) on dimension "
                f"{axis} must start on a fractal ({_FRACTAL_SIDE}) inside {dim_str(whole)}",
                at="offset",
                code="E308",
            )
    return TileType(target.shape, target.dtype, tile_view=target.tile_view)


_FRACTAL_SIDE = 16  # rows and columns of an Acc / Mat fractal
register(
    "block.insert",
    Category.BLOCK,
    [
        p_tile("target", "Mat tile (FP16 / BF16) a window of which is written", spaces=(_MAT,)),
        p_tile("source", "FP32 Acc tile converted into the window", spaces=(_ACC,)),
        p_shape("offset", "Where the window starts in 'target': [row, column], whole fractals"),
    ],
    _insert,
    "Convert an FP32 Acc tile into a window of an FP16 / BF16 Mat tile (FIXPIPE's cast "
    "pre-quantisation, round half to even; the rest of the target is kept): how a product "
    "larger than Acc is computed in blocks into the Mat operand of a second matmul (inserted "
    "by ConvertTensorToBlockOps).",
    pipe=PipeType.FIX,
    type_rule_doc="type(target); the window inside it",
    dsl_visible=False,
    role=Role.MOVE,
    result_space=_MAT,
    aliases="target",
    **isa(
        "TINSERT",
        "the target is the destination (the result is its buffer); the offset gives the "
        "row and column",
        operands=("source", "offset"),
    ),
)
_block_op(
    entry(
        "full", "TEXPANDS", "A Vec tile with every element set to a constant.", role=Role.BROADCAST
    ),
    [
        p_shape("shape", "Static tile shape: positive integer literals"),
        p_attr("dtype", "Element data type, e.g. pl.FP32", _DTYPE),
        Param("value", "Fill value: an int or float literal", accepts=("scalar",)),
    ],
    _full,
    "t(shape, dtype)",
)
_block_op(
    entry(
        "fillpad",
        "TFILLPAD",
        "Fill the padding outside a tile's valid region with its pad value.",
        pto_stated_by_type=("pad_value",),
        reads_valid_region=True,
        edition_forms=(_FILLPAD_2026_08,),
    ),
    [p_tile("tile", "Tile whose padding is filled", spaces=_IN_VEC), _PAD_VALUE],
    _fillpad,
    "type(tile)",
)
_block_op(
    entry(
        "get_block_idx",
        "",
        "The index of the AI core block running this kernel.",
        pipe=PipeType.S,
        role=Role.SCALAR,
        index_result=True,
        cce=Lowering("get_block_idx", "a scalar intrinsic call"),
        pto=Lowering("pto.get_block_idx"),
    ),
    [],
    _block_idx,
    "s(UINT64)",
)
_block_op(
    entry(
        "alloc",
        "",
        "Allocate the buffer of a MemRef (inserted by passes; not callable from the DSL).",
        pipe=PipeType.S,
        dsl_visible=False,
        role=Role.ALLOC,
        cce=Lowering(None, "buffers are declared from MemRefs, not from this op", elided=True),
        pto=Lowering(
            None,
            "buffers are declared from MemRefs (one pto.alloc_tile each), not from this op",
            elided=True,
        ),
    ),
    [
        p_scalar("memory_space", "Memory space code of the buffer"),
        p_scalar("addr", "Byte address of the buffer"),
        p_scalar("size", "Size of the buffer in bytes"),
        p_scalar("id", "MemRef id"),
    ],
    _alloc,
    "no value",
)


# =============================================================================================
# Element-wise ops (7.3)
# =============================================================================================

# DSL spellings that differ from the IR name (Python keywords).
_SPELLING = {"and": "and_", "or": "or_", "not": "not_"}


def _family(
    rows: tuple[Entry, ...],
    params: list[Param],
    spec: Elementwise,
    extra: Callable[[DeduceContext], None] | None = None,
    *,
    role: Role = Role.ELEMENTWISE,
    **traits: object,
) -> None:
    """Register vector ops that share parameters, a rule and traits (one per table row)."""
    type_rule = elementwise("tile", spec, extra)
    doc = elementwise_doc("tile", spec, [p.name for p in params])
    promoted = spec.promoted([p.name for p in params])
    for row in rows:
        spelling = _SPELLING.get(row.name)
        dsl_names = (spelling,) if spelling else ()
        _block_op(
            row, params, type_rule, doc, dsl_names=dsl_names, role=role, promoted=promoted, **traits
        )


def _check_cmp_type(ctx: DeduceContext) -> None:
    value = attr_int(ctx, "cmp_type")
    if not 0 <= value <= 5:
        ctx.fail(
            f"{ctx.op.name}: attribute 'cmp_type' must be 0..5 (EQ, NE, LT, LE, GT, GE), "
            f"got {value}",
            at="cmp_type",
            code="E309",
        )


def _check_not_dtype(ctx: DeduceContext) -> None:
    dtype = ctx.tile("tile").dtype
    if dtype not in (DataType.INT16, DataType.UINT16):
        ctx.fail(
            f"{ctx.op.name}: argument 'tile' must be INT16 or UINT16, got {dtype.name}", at="tile"
        )


def _check_row_vector(ctx: DeduceContext) -> None:
    tile, row_vec = ctx.tile("tile"), ctx.tile("row_vec")
    require_rank(ctx, "tile", tile, at_least=2)
    require_rank(ctx, "row_vec", row_vec, at_least=2)
    last = static_value(row_vec.shape[-1])
    if last is not None and last != 1:
        ctx.fail(
            f"{ctx.op.name}: argument 'row_vec' must have last dimension 1, got {row_vec.short()}",
            at="row_vec",
            code="E307",
        )
    if dims_conflict(tile.shape[-2], row_vec.shape[-2]):
        ctx.fail(
            f"{ctx.op.name}: 'tile' has {dim_str(tile.shape[-2])} rows but 'row_vec' has "
            f"{dim_str(row_vec.shape[-2])}",
            at="row_vec",
            code="E307",
        )


def _vec_tile(name: str, doc: str, *, access: Access = Access.READ) -> Param:
    return p_tile(name, doc, spaces=_IN_VEC, access=access)


_LHS = _vec_tile("lhs", "Left tile operand")
_RHS = _vec_tile("rhs", "Right tile operand (broadcast against lhs)")
_RHS2 = _vec_tile("rhs2", "Third tile operand (broadcast with the others)")
_TMP = _vec_tile("tmp", "Scratch tile the instruction needs", access=Access.WRITE)
_SCALAR = p_scalar("scalar", "Scalar applied to every element")
_CMP_TYPE = p_attr("cmp_type", "Comparison: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE", (int,), 0)
_ONE_TILE = [_vec_tile("tile", "Tile operand")]
_CMP_ARGS = ("cmp_type",)
# PTO spells the compare type and the rounding mode as typed attributes (PTOAttrs.td).
_CMP_MODE = TypedAttr(
    "cmp_type", "cmpMode", "cmp", tuple(enumerate(("eq", "ne", "lt", "le", "gt", "ge")))
)
_ROUNDING = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
_ROUND_MODE = TypedAttr(
    "mode",
    "rmode",
    "round_mode",
    tuple((mode, mode.upper()) for mode in _ROUNDING)
    + tuple((i, mode.upper()) for i, mode in enumerate(_ROUNDING)),
)

_family(
    (
        entry(
            "add",
            "TADD",
            "Element-wise addition of two tiles, with broadcasting.",
            "the seed's three-operand block.add(a, b, c) is block.addc (TADDC)",
            broadcast="ADD",
            scalar_form="block.adds",
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "sub",
            "TSUB",
            "Element-wise subtraction of two tiles, with broadcasting.",
            broadcast="SUB",
            scalar_form="block.subs",
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "mul",
            "TMUL",
            "Element-wise multiplication of two tiles, with broadcasting.",
            broadcast="MUL",
            scalar_form="block.muls",
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "div",
            "TDIV",
            "Element-wise division of two tiles, with broadcasting.",
            broadcast="DIV",
            scalar_form="block.divs",
            pto_dtypes=_PTO_FLOAT,
            keeps_valid_region=True,
        ),
        entry(
            "maximum",
            "TMAX",
            "Element-wise maximum of two tiles, with broadcasting.",
            broadcast="MAX",
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "minimum",
            "TMIN",
            "Element-wise minimum of two tiles, with broadcasting.",
            broadcast="MIN",
            unified_always=True,
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "rem",
            "TREM",
            "Element-wise remainder of two tiles, with broadcasting.",
            scratch=True,
            pto_dtypes=_PTO_REM,
        ),
    ),
    [_LHS, _RHS],
    Elementwise("tt"),
)

_family(
    (
        entry(
            "and",
            "TAND",
            "Element-wise bitwise AND of two integer tiles.",
            pto_dtypes=_PTO_BITWISE,
            pto_bitwise=True,
        ),
        entry(
            "or",
            "TOR",
            "Element-wise bitwise OR of two integer tiles.",
            pto_dtypes=_PTO_BITWISE,
            pto_bitwise=True,
        ),
    ),
    [_LHS, _RHS],
    Elementwise("tt", integer=True),
    keeps_valid_region=True,
)

_family(
    (
        entry(
            "shl",
            "TSHL",
            "Shift each element of lhs left by the matching element of rhs.",
            pto_dtypes=_PTO_SHIFT,
        ),
        entry(
            "shr",
            "TSHR",
            "Shift each element of lhs right by the matching element of rhs.",
            pto_dtypes=_PTO_SHIFT,
        ),
    ),
    [_LHS, _RHS],
    Elementwise("tt", integer=True, keep_lhs_dtype=True),
    keeps_valid_region=True,
)

_family(
    (
        entry(
            "xor",
            "TXOR",
            "Element-wise bitwise XOR of two integer tiles.",
            pto_dtypes=_PTO_BITWISE,
            pto_bitwise=True,
        ),
    ),
    [_LHS, _RHS, _TMP],
    Elementwise("ttx", integer=True),
)

_family(
    (
        entry(
            "prelu",
            "TPRELU",
            "Parametric ReLU: x if x > 0 else slope * x, per element.",
            pto_dtypes=_PTO_FLOAT,
            pto_byte_scratch=True,
            cce_byte_scratch=True,
        ),
    ),
    [_vec_tile("tile", "Input tile"), _vec_tile("slope", "Per-element slopes"), _TMP],
    Elementwise("ttx"),
)

_family(
    (
        entry(
            "addc",
            "TADDC",
            "Element-wise sum of three tiles: lhs + rhs + rhs2.",
            pair_form=("block.add", "block.add"),
        ),
        entry(
            "subc",
            "TSUBC",
            "Element-wise lhs - rhs + rhs2 over three tiles.",
            pair_form=("block.sub", "block.add"),
        ),
    ),
    [_LHS, _RHS, _RHS2],
    Elementwise("ttt"),
)

_family(
    (
        entry(
            "adds",
            "TADDS",
            "Add a scalar to every element of a tile.",
            unified_always=True,
            pto_dtypes=_PTO_ARITH,
            cce_dtypes=_A2A3_SCALAR,
            keeps_valid_region=True,
        ),
        entry(
            "subs",
            "TSUBS",
            "Subtract a scalar from every element of a tile.",
            unified_always=True,
            pto_dtypes=_PTO_ARITH,
            cce_dtypes=_A2A3_SCALAR,
            keeps_valid_region=True,
        ),
        entry(
            "muls",
            "TMULS",
            "Multiply every element of a tile by a scalar.",
            unified_always=True,
            pto_dtypes=_PTO_ARITH,
            cce_dtypes=_A2A3_SCALAR,
            keeps_valid_region=True,
        ),
        entry(
            "divs",
            "TDIVS",
            "Divide every element of a tile by a scalar.",
            unified_always=True,
            pto_dtypes=_PTO_ARITH,
            keeps_valid_region=True,
        ),
        entry(
            "rems",
            "TREMS",
            "Remainder of every element of a tile by a scalar.",
            scratch=True,
            pto_dtypes=_PTO_REM,
        ),
        entry(
            "maxs",
            "TMAXS",
            "Element-wise maximum of a tile and a scalar.",
            pto_dtypes=_PTO_ARITH,
            cce_dtypes=_A2A3_SCALAR,
            pto_scalar_dtypes=_PTO_FLOAT,
            pto_tile_form="block.maximum",
        ),
        entry(
            "mins",
            "TMINS",
            "Element-wise minimum of a tile and a scalar.",
            pto_dtypes=_PTO_ARITH,
            cce_dtypes=_A2A3_SCALAR,
            pto_scalar_dtypes=_PTO_FLOAT,
            pto_tile_form="block.minimum",
        ),
    ),
    [_LHS, _SCALAR],
    Elementwise("ts"),
)

_family(
    (
        entry(
            "lrelu",
            "TLRELU",
            "Leaky ReLU: x if x > 0 else slope * x, per element.",
            pto_dtypes=_PTO_FLOAT,
            pto_scalar_dtype=_D.FP32,
            keeps_valid_region=True,
        ),
    ),
    [_vec_tile("tile", "Input tile"), p_scalar("slope", "Slope for negative elements")],
    Elementwise("ts"),
)

_family(
    (
        entry(
            "expands",
            "TEXPANDS",
            "A tile shaped like target with every element = scalar.",
            pto_dtypes=(_D.INT16, _D.INT32, _D.FP16, _D.FP32),
        ),
    ),
    [_vec_tile("target", "Tile giving the result shape", access=Access.SHAPE), _SCALAR],
    Elementwise("ts"),
    role=Role.BROADCAST,
    unified_always=True,
)

_family(
    (
        entry(
            "ands",
            "TANDS",
            "Bitwise AND of every element of an integer tile with a scalar.",
            pto_dtypes=_PTO_BITWISE,
            pto_scalar_dtypes=_PTO_BITWISE,
            pto_tile_form="block.and",
        ),
        entry(
            "ors",
            "TORS",
            "Bitwise OR of every element of an integer tile with a scalar.",
            pto_dtypes=_PTO_BITWISE,
            pto_scalar_dtypes=_PTO_BITWISE,
            pto_tile_form="block.or",
        ),
        entry(
            "shls",
            "TSHLS",
            "Shift every element of an integer tile left by a scalar.",
            pto_dtypes=(*_PTO_SHIFT, _D.INT64),
        ),
        entry(
            "shrs",
            "TSHRS",
            "Shift every element of an integer tile right by a scalar.",
            pto_dtypes=_PTO_SHIFT[2:],
        ),
    ),
    [_LHS, _SCALAR],
    Elementwise("ts", integer=True, keep_lhs_dtype=True),
)

_family(
    (
        entry(
            "xors",
            "TXORS",
            "Bitwise XOR of every element of an integer tile with a scalar.",
            pto_dtypes=_PTO_BITWISE,
            pto_scalar_dtypes=_PTO_BITWISE,
            pto_tile_form="block.xor",
        ),
    ),
    [_LHS, _SCALAR, _TMP],
    Elementwise("tsx", integer=True, keep_lhs_dtype=True),
)

_family(
    (
        entry("addsc", "TADDSC", "Element-wise lhs + scalar + rhs2."),
        entry("subsc", "TSUBSC", "Element-wise lhs - scalar + rhs2."),
    ),
    [_LHS, _SCALAR, _RHS2],
    Elementwise("tst"),
)

_family(
    (
        entry(
            "sel",
            "TSEL",
            "Per element: lhs where mask is nonzero (cmp's 1), else rhs.",
            "computed as TCMP of the mask against 0 into a uint8 bit mask and TSEL (mask, lhs "
            "and rhs 2-D tiles of one shape with a multiple of 8 columns, lhs and rhs of the "
            "result's dtype)",
            scratch=True,
            mask_form=MaskForm(
                "block.cmp_mask",
                "block.full",
                "block.select_tiles",
                mask_of="mask",
                nonzero=(("cmp_type", 1),),
            ),
        ),
    ),
    [_vec_tile("mask", "Selection mask tile: nonzero selects lhs"), _LHS, _RHS],
    Elementwise("xtt"),
)

_family(
    (
        entry(
            "sels",
            "TSELS",
            "Select between lhs and rhs by a scalar select mode.",
            cce_unsupported="pto-isa's TSELS(dst, mask, src, tmp, scalar) picks src where a bit "
            "of a mask tile is set and a scalar elsewhere; no instruction selects between two "
            "tiles by a scalar mode (use sel(mask, lhs, rhs))",
            pto_unsupported="pto.tsels takes a mask tile, a source, a scratch tile and a "
            "scalar; the (lhs, rhs, select_mode) form has no PTO spelling",
        ),
    ),
    [_LHS, _RHS, p_scalar("select_mode", "Selection mode scalar")],
    Elementwise("ttm"),
)

_family(
    (
        entry(
            "cmp",
            "TCMP",
            "Element-wise comparison of two tiles: 1 where it holds, else 0, in the promoted "
            "dtype (not BOOL).",
            "computed as TCMP into a uint8 bit mask, TEXPANDS of ones and TSELS of 0 where a "
            "bit is clear (same-dtype FP32 / FP16 / INT32 2-D tiles of one shape, not one "
            "column: TSELS takes row-major tiles)",
            attr_args=_CMP_ARGS,
            pto_attrs=(_CMP_MODE,),
            mask_form=MaskForm("block.cmp_mask", "block.full", "block.select_scalar"),
        ),
    ),
    [_LHS, _RHS, _CMP_TYPE],
    Elementwise("tt"),
    _check_cmp_type,
    unified_always=True,
)

# The mask a comparison writes (pto-isa include/pto/cpu/TCmp.h, TCMP_IMPL): per row, bit
# c % 8 of byte c // 8 holds column c's result. TCMP takes FP32 / FP16 / INT32 sources of
# one type into a uint8 mask (TCmpCheck); the mask's rows are padded to 32 bytes, the
# alignment of a row-major tile.
_MASK_DTYPES = (DataType.FP32, DataType.FP16, DataType.INT32)
_MASK_ROW_BYTES = 32


@rule
def _cmp_mask(ctx: DeduceContext) -> Type:
    _check_cmp_type(ctx)
    lhs, rhs = ctx.tile("lhs"), ctx.tile("rhs")
    dims = [static_value(d) for d in lhs.shape]
    if len(dims) != 2 or None in dims or dims != [static_value(d) for d in rhs.shape]:
        ctx.fail(f"{ctx.op.name}: the operands must be 2-D tiles of one static shape", at="rhs")
    if lhs.dtype not in _MASK_DTYPES:
        ctx.fail(
            f"{ctx.op.name}: the operands must be FP32, FP16 or INT32 tiles, got {lhs.dtype.name}",
            at="lhs",
        )
    if rhs.dtype is not lhs.dtype:
        ctx.fail(
            f"{ctx.op.name}: the operands must be of one dtype (TCMP compares tiles of one "
            f"type), got {lhs.dtype.name} and {rhs.dtype.name}: convert 'rhs' with "
            f"pl.cast(rhs, pl.{lhs.dtype.name})",
            at="rhs",
            cast=lhs.dtype,
        )
    rows, cols = dims
    assert rows is not None and cols is not None
    words = -(-cols // 8)
    width = -(-words // _MASK_ROW_BYTES) * _MASK_ROW_BYTES
    # Valid: the bytes TCMP writes, so TSEL (which reads the valid bytes as one bit stream on
    # the CPU, row by row on A2/A3) takes row r's bits from row r.
    valid = TileView(valid_shape=(const_int(rows), const_int(words)))
    return TileType((const_int(rows), const_int(width)), DataType.UINT8, tile_view=valid)


@rule
def _select_scalar(ctx: DeduceContext) -> Type:
    ctx.tile("mask")
    ctx.tile("tmp")
    ctx.scalar("scalar")
    src = ctx.tile("src")
    return TileType(src.shape, src.dtype)


def _pass_inserted(
    name: str,
    params: list[Param],
    type_rule: TypeRule,
    description: str,
    type_rule_doc: str,
    role: Role,
    lowerings: dict[str, Lowering],
) -> None:
    """An op AddReductionScratch puts in place of a DSL op, which the DSL cannot call; its
    definition is the line calling this."""
    source_file, source_site = call_site(2)
    op = register(
        name,
        Category.BLOCK,
        params,
        type_rule,
        description + " (inserted by AddReductionScratch; not callable from the DSL).",
        pipe=PipeType.V,
        type_rule_doc=type_rule_doc,
        dsl_visible=False,
        role=role,
        reads_valid_region=True,  # the regions the pass built (a mask's valid bytes)
        **lowerings,
    )
    REGISTRY.replace(records.replace(op, source_file=source_file, source_site=source_site))


_pass_inserted(
    "block.cmp_mask",
    [_LHS, _vec_tile("rhs", "Right tile operand, shaped like lhs"), _CMP_TYPE],
    _cmp_mask,
    "Compare two tiles into a bit mask: in each row, bit c % 8 of byte c // 8 is column c's "
    "result (what block.cmp is computed with)",
    "t([rows, ceil(cols / 8) padded to 32], UINT8)",
    Role.ELEMENTWISE,
    isa("TCMP", attr_args=_CMP_ARGS, pto_attrs=(_CMP_MODE,)),
)


@rule
def _cmps_mask(ctx: DeduceContext) -> Type:
    """TCMPS writes the mask TCMP does only when a row's bytes are all the row's: it packs
    Cols // 8 bytes per row of the declared tile (pto-isa include/pto/cpu/TCmps.hpp), so the
    rows must fill whole 32-byte lines (no padding columns)."""
    _check_cmp_type(ctx)
    lhs = ctx.tile("lhs")
    ctx.scalar("scalar")
    dims = [static_value(d) for d in lhs.shape]
    if len(dims) != 2 or None in dims or lhs.dtype not in _MASK_DTYPES:
        ctx.fail(f"{ctx.op.name}: lhs must be an FP32, FP16 or INT32 2-D tile", at="lhs")
    rows, cols = dims
    assert rows is not None and cols is not None
    if cols * lhs.dtype.bits % (_MASK_ROW_BYTES * 8):
        ctx.fail(f"{ctx.op.name}: lhs rows must be a multiple of 32 bytes", at="lhs")
    width = -(-(cols // 8) // _MASK_ROW_BYTES) * _MASK_ROW_BYTES
    valid = TileView(valid_shape=(const_int(rows), const_int(cols // 8)))
    return TileType((const_int(rows), const_int(width)), DataType.UINT8, tile_view=valid)


_pass_inserted(
    "block.cmps_mask",
    [_LHS, _SCALAR, _CMP_TYPE],
    _cmps_mask,
    "Compare a tile with a scalar into a bit mask laid out as block.cmp_mask's (what "
    "block.cmps is computed with)",
    "t([rows, cols / 8 padded to 32], UINT8)",
    Role.ELEMENTWISE,
    isa("TCMPS", attr_args=_CMP_ARGS, pto_attrs=(_CMP_MODE,)),
)


@rule
def _select_tiles(ctx: DeduceContext) -> Type:
    ctx.tile("mask")
    ctx.tile("tmp")
    lhs, rhs = ctx.tile("lhs"), ctx.tile("rhs")
    if lhs.dtype is not rhs.dtype:
        ctx.fail(f"{ctx.op.name}: lhs and rhs must have one dtype", at="rhs")
    return TileType(lhs.shape, lhs.dtype)


_pass_inserted(
    "block.select_tiles",
    [
        _vec_tile("mask", "Bit mask as block.cmp_mask writes it"),
        _vec_tile("lhs", "Values where the mask bit is set"),
        _vec_tile("rhs", "Values where the mask bit is clear"),
        _TMP,
    ],
    _select_tiles,
    "Per element: lhs where the row's mask bit is set, else rhs (what block.sel is computed with)",
    "t(lhs.shape, lhs.dtype)",
    Role.ELEMENTWISE,
    isa("TSEL"),
)
_pass_inserted(
    "block.select_scalar",
    [
        _vec_tile("mask", "Bit mask as block.cmp_mask writes it"),
        _vec_tile("src", "Values kept where the mask bit is set"),
        _TMP,
        p_scalar("scalar", "Value where the mask bit is clear"),
    ],
    _select_scalar,
    "Per element: src where the row's mask bit is set, else the scalar (what block.cmp is "
    "computed with)",
    "t(src.shape, src.dtype)",
    Role.ELEMENTWISE,
    isa("TSELS"),
)

_family(
    (
        entry(
            "cmps",
            "TCMPS",
            "Compare every element of a tile with a scalar: 1 where it holds, else 0, in the "
            "promoted dtype (not BOOL).",
            "computed as TCMPS into a uint8 bit mask, TEXPANDS of ones and TSELS of 0 where a "
            "bit is clear (an FP32 / FP16 / INT32 2-D tile of the result's dtype, its rows a "
            "multiple of 32 bytes, not one column: TSELS takes row-major tiles)",
            attr_args=_CMP_ARGS,
            pto_attrs=(_CMP_MODE,),
            mask_form=MaskForm("block.cmps_mask", "block.full", "block.select_scalar"),
        ),
    ),
    [_LHS, _SCALAR, _CMP_TYPE],
    Elementwise("ts"),
    _check_cmp_type,
    unified_always=True,
)

_family(
    (
        entry("neg", "TNEG", "Element-wise negation.", unified_always=True, pto_dtypes=_PTO_ARITH),
        entry(
            "exp",
            "TEXP",
            "Element-wise natural exponential (an integer tile stays integer).",
            pto_dtypes=_PTO_FLOAT,
        ),
        entry(
            "sqrt", "TSQRT", "Element-wise square root.", unified_always=True, pto_dtypes=_PTO_FLOAT
        ),
        entry(
            "rsqrt",
            "TRSQRT",
            "Element-wise reciprocal square root.",
            unified_always=True,
            pto_dtypes=_PTO_FLOAT,
        ),
        entry(
            "recip",
            "TRECIP",
            "Element-wise reciprocal.",
            unified_always=True,
            pto_dtypes=_PTO_FLOAT,
        ),
        entry(
            "log",
            "TLOG",
            "Element-wise natural logarithm.",
            unified_always=True,
            pto_dtypes=_PTO_FLOAT,
        ),
        entry(
            "abs",
            "TABS",
            "Element-wise absolute value.",
            unified_always=True,
            pto_dtypes=_PTO_FLOAT,
        ),
        entry(
            "relu",
            "TRELU",
            "Element-wise ReLU: max(x, 0).",
            unified_always=True,
            pto_dtypes=(_D.INT32, _D.UINT32, _D.FP16, _D.FP32),
        ),
    ),
    _ONE_TILE,
    Elementwise("t"),
    keeps_valid_region=True,
)

_family(
    (entry("not", "TNOT", "Element-wise bitwise NOT of an INT16 / UINT16 tile."),),
    _ONE_TILE,
    Elementwise("t"),
    _check_not_dtype,
    keeps_valid_region=True,
)

_family(
    (
        entry("row_expand_add", "TROWEXPANDADD", "Add row_vec[i] to every element of row i."),
        entry(
            "row_expand_sub", "TROWEXPANDSUB", "Subtract row_vec[i] from every element of row i."
        ),
        entry("row_expand_mul", "TROWEXPANDMUL", "Multiply every element of row i by row_vec[i]."),
        entry("row_expand_div", "TROWEXPANDDIV", "Divide every element of row i by row_vec[i]."),
    ),
    [
        _vec_tile("tile", "Tile of rank 2 or more"),
        _vec_tile("row_vec", "Per-row values: same rows, last dimension 1"),
    ],
    Elementwise("tv"),
    _check_row_vector,
    role=Role.BROADCAST,
    unified_always=True,
)

_family(
    (entry("col_expand", "TCOLEXPAND", "Broadcast col_vec down every row, shaped like target."),),
    [
        _vec_tile("target", "Tile giving the result shape", access=Access.SHAPE),
        _vec_tile("col_vec", "Per-column values"),
    ],
    Elementwise("tv"),
    role=Role.BROADCAST,
    unified_always=True,
)

_family(
    (
        entry("col_expand_mul", "TCOLEXPANDMUL", "Multiply every row of target by col_vec."),
        entry("col_expand_div", "TCOLEXPANDDIV", "Divide every row of target by col_vec."),
        entry("col_expand_sub", "TCOLEXPANDSUB", "Subtract col_vec from every row of target."),
    ),
    [
        _vec_tile("target", "Tile giving the result shape"),
        _vec_tile("col_vec", "Per-column values"),
    ],
    Elementwise("tv"),
    role=Role.BROADCAST,
    unified_always=True,
)

_block_op(
    entry(
        "cast",
        "TCVT",
        "Convert every element to another data type.",
        role=Role.CAST,
        attr_args=("mode",),
        pto_attrs=(_ROUND_MODE,),
        keeps_valid_region=True,  # TCVT converts the source's valid rows and columns
    ),
    [_vec_tile("tile", "Tile to convert"), *CAST_ATTRS],
    cast_rule("tile"),
    "t(tile.shape, target_type)",
)


# =============================================================================================
# Matmul family (7.4): results live in Acc
# =============================================================================================


def _acc_dtype(dtype: DataType) -> DataType:
    return DataType.FP32 if dtype.is_float else DataType.INT32


def _matmul_operands(ctx: DeduceContext, *, min_rank: int = 2) -> tuple[TileType, TileType]:
    """lhs [.., M, K] and rhs [.., K, N]: tiles of one dtype whose constant K agree."""
    lhs, rhs = ctx.tile("lhs"), ctx.tile("rhs")
    for name, tile in (("lhs", lhs), ("rhs", rhs)):
        if min_rank == 2:
            require_rank(ctx, name, tile, exactly=2)
        else:
            require_rank(ctx, name, tile, at_least=2)
    if lhs.dtype is not rhs.dtype:
        ctx.fail(
            f"{ctx.op.name}: 'lhs' and 'rhs' must have the same dtype, got "
            f"{lhs.dtype.name} and {rhs.dtype.name}",
            at="rhs",
        )
    check_matmul_dtype(ctx, lhs.dtype)
    if dims_conflict(lhs.shape[-1], rhs.shape[-2]):
        ctx.fail(
            f"{ctx.op.name}: inner dimensions differ: K of 'lhs' is {dim_str(lhs.shape[-1])} "
            f"but K of 'rhs' is {dim_str(rhs.shape[-2])}",
            at="rhs",
            code="E307",
        )
    return lhs, rhs


def _acc_tile(shape: tuple[Expr, ...], dtype: DataType) -> TileType:
    return TileType(shape, dtype, tile_view=ACC_VIEW)


@rule
def _matmul(ctx: DeduceContext) -> Type:
    lhs, rhs = _matmul_operands(ctx)
    return _acc_tile((lhs.shape[0], rhs.shape[1]), _acc_dtype(lhs.dtype))


@rule
def _matmul_acc(ctx: DeduceContext) -> Type:
    acc = ctx.tile("acc")
    require_rank(ctx, "acc", acc, exactly=2)
    lhs, rhs = _matmul_operands(ctx)
    for axis, label, dim in ((0, "M", lhs.shape[0]), (1, "N", rhs.shape[1])):
        if dims_conflict(acc.shape[axis], dim):
            ctx.fail(
                f"{ctx.op.name}: {label} of 'acc' is {dim_str(acc.shape[axis])} but the "
                f"product has {label} = {dim_str(dim)}",
                at="acc",
                code="E307",
            )
    return _acc_tile(acc.shape, _acc_dtype(lhs.dtype))


@rule
def _matmul_bias(ctx: DeduceContext) -> Type:
    lhs, rhs = _matmul_operands(ctx)
    bias = ctx.tile("bias")
    require_rank(ctx, "bias", bias, exactly=2)
    if static_value(bias.shape[0]) not in (None, 1) or dims_conflict(bias.shape[1], rhs.shape[1]):
        ctx.fail(
            f"{ctx.op.name}: 'bias' must be [1, {dim_str(rhs.shape[1])}], got {bias.short()}",
            at="bias",
            code="E307",
        )
    dtype = promote_all([lhs.dtype, rhs.dtype, bias.dtype])
    return _acc_tile((lhs.shape[0], rhs.shape[1]), dtype)


@rule
def _batch_matmul(ctx: DeduceContext) -> Type:
    lhs, rhs = _matmul_operands(ctx, min_rank=3)
    batch = broadcast_shapes(ctx, lhs.shape[:-2], rhs.shape[:-2], ("lhs", "rhs"))
    return _acc_tile((*batch, lhs.shape[-2], rhs.shape[-1]), _acc_dtype(lhs.dtype))


_MM_LHS = p_tile("lhs", "Left matrix [M, K] (in Left)", spaces=(MemorySpace.Left,))
_MM_RHS = p_tile("rhs", "Right matrix [K, N] (in Right)", spaces=(MemorySpace.Right,))
_ACC_NOTE = (
    "Result in Acc with the Acc tile view (blayout col_major, slayout row_major, fractal 1024)."
)


def _matmul_family(
    rows: tuple[Entry, ...], params: list[Param], type_rule: TypeRule, doc: str
) -> None:
    for row in rows:
        _block_op(row, params, type_rule, doc, pipe=PipeType.M, role=Role.MATMUL, result_space=_ACC)


_matmul_family(
    (
        entry(
            "matmul",
            "TMATMUL",
            "Matrix product lhs @ rhs of two 2-D tiles. " + _ACC_NOTE,
            acc_form="block.matmul_acc",
        ),
        entry(
            "gemv",
            "TGEMV",
            "Matrix-vector product lhs @ rhs of two 2-D tiles. " + _ACC_NOTE,
            unified_always=True,
        ),
    ),
    [_MM_LHS, _MM_RHS],
    _matmul,
    "t([M, N], FP32 if float else INT32); K must agree",
)

# The accumulating forms add into their accumulator's own buffer (``aliases="acc"``): A2/A3's
# TMATMUL_ACC(out, in, a, b) / TGEMV_ACC pass only ``out`` to the mad instruction and ignore
# ``in`` (pto-isa npu/a2a3/TMatmul.hpp), so the result must be the accumulator tile itself.
_matmul_family(
    (
        entry(
            "matmul_acc",
            "TMATMUL_ACC",
            "Accumulate: acc + lhs @ rhs. " + _ACC_NOTE,
            unified_always=True,
            aliases="acc",
        ),
        entry(
            "gemv_acc",
            "TGEMV_ACC",
            "Accumulating matrix-vector product: acc + lhs @ rhs. " + _ACC_NOTE,
            unified_always=True,
            aliases="acc",
        ),
    ),
    [p_tile("acc", "Accumulator [M, N] (in Acc)", spaces=(MemorySpace.Acc,)), _MM_LHS, _MM_RHS],
    _matmul_acc,
    "t(acc.shape, FP32 if float else INT32); M, N, K must agree",
)

_matmul_family(
    (
        entry(
            "matmul_bias",
            "TMATMUL_BIAS",
            "Matrix product plus a bias row: lhs @ rhs + bias. " + _ACC_NOTE,
            unified_always=True,
        ),
        entry(
            "gemv_bias",
            "TGEMV_BIAS",
            "Matrix-vector product plus a bias row. " + _ACC_NOTE,
            unified_always=True,
        ),
    ),
    [
        _MM_LHS,
        _MM_RHS,
        p_tile(
            "bias",
            "Bias row [1, N] (a tile in Mat is moved into Bias first)",
            spaces=(MemorySpace.Bias,),
            staged_from=(MemorySpace.Mat,),
        ),
    ],
    _matmul_bias,
    "t([M, N], promote(lhs, rhs, bias)); bias is [1, N]",
)

_PER_BATCH = Lowering(None, "expanded into one block.matmul per batch index before code generation")
_block_op(
    entry(
        "batch_matmul",
        "",
        "Batched matrix product with broadcast batch dims (internal; the DSL uses matmul). "
        + _ACC_NOTE,
        dsl_visible=False,
        cce=_PER_BATCH,
        pto=_PER_BATCH,
    ),
    [p_tile("lhs", "Left matrices [..., M, K]"), p_tile("rhs", "Right matrices [..., K, N]")],
    _batch_matmul,
    "t([*broadcast(batch), M, N], FP32 if float else INT32)",
    pipe=PipeType.M,
    role=Role.MATMUL,
    result_space=_ACC,
)


# =============================================================================================
# Reductions, broadcasts, transforms (7.5)
# =============================================================================================


@rule
def _reduce(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    axis = normalize_axis(ctx, attr_int(ctx, "axis"), tile.rank, "axis")
    keep = attr_bool(ctx, "keepdim")
    shape: list[Expr] = []
    for index, dim in enumerate(tile.shape):
        if index != axis:
            shape.append(dim)
        elif keep:
            shape.append(const_int(1))
    if not shape:
        return ScalarType(tile.dtype)
    return TileType(tuple(shape), tile.dtype)


@rule
def _row_expand(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    require_rank(ctx, "tile", tile, at_least=2)
    return TileType(tile.shape, tile.dtype)


_REDUCE_PARAMS = [
    _vec_tile("tile", "Tile to reduce"),
    p_attr("axis", "Axis to reduce; negative counts from the end", (int,)),
    p_attr("keepdim", "Keep the reduced axis as size 1", (bool,), False),
]
_REDUCE_DOC = "t(tile.shape without axis, or with 1 if keepdim); a 0-D result is s(tile.dtype)"

for _row in (
    entry(
        "sum",
        "TROWSUM",
        "Sum along one axis.",
        "axis=0 -> TCOLSUM, axis=1 -> TROWSUM",
        column_form="TCOLSUM",
        unified_always=True,
        scratch_form="block.row_sum",
        scratch=True,
    ),
    entry(
        "max",
        "TROWMAX",
        "Maximum along one axis.",
        "axis=0 -> TCOLMAX, axis=1 -> TROWMAX",
        column_form="TCOLMAX",
        scratch_form="block.row_max",
        scratch=True,
    ),
    entry(
        "min",
        "TROWMIN",
        "Minimum along one axis.",
        "axis=0 -> TCOLMIN, axis=1 -> TROWMIN",
        column_form="TCOLMIN",
        scratch_form="block.row_min",
        scratch=True,
    ),
):
    _block_op(_row, _REDUCE_PARAMS, _reduce, _REDUCE_DOC, role=Role.REDUCTION)

_ROW_PARAMS = [
    _vec_tile("tile", "Tile of rank 2 or more"),
    p_tile(
        "tmp_tile",
        "Scratch tile the instruction needs (optional in the seed 004 form)",
        default=None,
        spaces=_IN_VEC,
        access=Access.WRITE,
    ),
]
for _row in (
    entry(
        "row_sum",
        "TROWSUM",
        "Sum of each row: the last dimension reduces to 1.",
        scratch=True,
        same_rows=True,
    ),
    entry(
        "row_max", "TROWMAX", "Maximum of each row: the last dimension reduces to 1.", scratch=True
    ),
    entry(
        "row_min",
        "TROWMIN",
        "Minimum of each row: the last dimension reduces to 1.",
        unified_always=True,
        scratch=True,
    ),
):
    _block_op(
        _row,
        _ROW_PARAMS,
        row_reduce_rule("tile", 2),
        "t([..., rows, 1], tile.dtype)",
        role=Role.REDUCTION,
        reduces_valid_region=True,
    )

_block_op(
    entry(
        "row_expand",
        "TROWEXPAND",
        "Broadcast the first element of each row across the row.",
        role=Role.BROADCAST,
        unified_always=True,
    ),
    [_vec_tile("tile", "Tile of rank 2 or more")],
    _row_expand,
    "t(tile.shape, tile.dtype)",
)

_WINDOW_PARAMS = (
    p_tile("tile", "Tile to take a window of"),
    p_shape("shape", "Shape of the window (INT64 / UINT64 scalars)"),
    p_shape("offset", "Start of the window in each dimension (INT64 / UINT64 scalars)"),
)
_WINDOW_VALID = Param(
    "valid_shape",
    "2026-08: the valid region of the window (default: all of it)",
    default=None,
    accepts=("shape",),
)
_tile_window = view_rule("tile")


@rule
def _window_of_tile(ctx: DeduceContext) -> Type:
    """A window of a tile; 2026-08's ``slice(..., valid_shape=)`` states its valid region
    (spec §11; a source narrower than the tile is E400 where code is generated)."""
    result = _tile_window(ctx)
    valid = _valid_region(ctx, result.shape) if isinstance(result, TileType) else None
    if valid is None or not isinstance(result, TileType):
        return result
    view = records.replace(result.tile_view or TileView(), valid_shape=valid)
    return records.replace(result, tile_view=view)


_block_op(
    entry(
        "view",
        "TEXTRACT",
        "A window of a tile.",
        pto_vec_window="pto.subset",
        # 2026-03's view has no valid_shape= (2026-08's slice has)
        edition_forms=(
            EditionForm(
                Edition.V2026_03,
                _WINDOW_PARAMS,
                dict,
                "2026-03: view(tile, shape, offset)",
                spelled="view",
                exclusive=True,
            ),
        ),
    ),
    [*_WINDOW_PARAMS, _WINDOW_VALID],
    _window_of_tile,
    "t(shape, tile.dtype)",
    role=Role.VIEW,
)
_block_op(
    entry(
        "reshape",
        "TRESHAPE",
        "The same elements of a tile under a new shape.",
        pto_returns_value=True,
        aliases="tile",
    ),
    [
        p_tile("tile", "Tile to reshape"),
        p_shape("shape", "New shape; static element counts must match"),
    ],
    reshape_rule("tile"),
    "t(shape, tile.dtype); same element count",
    role=Role.VIEW,
)
_block_op(
    entry(
        "transpose",
        "TTRANS",
        "Swap two dimensions of a tile.",
        scratch_form="block.transpose_scratch",
        operands=("tile",),
        scratch=True,
    ),
    [p_tile("tile", "Tile of rank 2 or more"), *AXES_TO_SWAP],
    transpose_rule("tile"),
    "t(shape with axis1 and axis2 swapped, tile.dtype)",
    role=Role.VIEW,
)


@rule
def _transpose_scratch(ctx: DeduceContext) -> Type:
    tile = ctx.tile("tile")
    ctx.tile("tmp")
    require_rank(ctx, "tile", tile, at_least=2)
    if tile.rank != 2:
        ctx.fail(f"{ctx.op.name}: argument 'tile' must be 2-D, got {tile.short()}", at="tile")
    return TileType((tile.shape[1], tile.shape[0]), tile.dtype)


_pass_inserted(
    "block.transpose_scratch",
    [
        _vec_tile("tile", "2-D tile to transpose"),
        _vec_tile("tmp", "Scratch tile the instruction needs", access=Access.WRITE),
    ],
    _transpose_scratch,
    "Transpose of a 2-D tile through the scratch tile TTRANS needs (what block.transpose is "
    "computed with)",
    "t([cols, rows], tile.dtype)",
    Role.VIEW,
    isa("TTRANS"),
)
