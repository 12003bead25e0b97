"""Tile ops PyPTO 2026-08 added that gather, scatter and sort (spec pypto-2026-08.md section
9.1; the mask patterns of upstream's docs/en/dev/ir/05-operators.md "Mask patterns"). IR names
``block.X``, as in tile_2608.py.
"""

from __future__ import annotations

from ..ir.dtype import DataType
from ..ir.expr import const_int
from ..ir.shape import num_elements, static_value
from ..ir.types import MemorySpace, TileType, TupleType, Type
from .registry import Access, DeduceContext, Param, PipeType, Role
from .rules import (
    attr_dtype,
    attr_memory,
    entry,
    expr_params,
    p_attr,
    p_shape,
    p_tensor,
    p_tile,
    require_integer,
    require_rank,
    rule,
    view_for,
)
from .rules_2608 import (
    gather_row_rule,
    mask_stride,
    no_lowering,
    optional_shape,
    p_dtype,
    p_enum,
    p_flag,
    p_list,
    p_text,
    p_value,
)
from .tile_2608 import tile_op

_D = DataType
_VEC = (MemorySpace.Vec,)
_NOT_YET = "ptoc does not lower {} yet"


def _vec(name: str, doc: str, *, access: Access = Access.READ) -> Param:
    return p_tile(name, doc, spaces=_VEC, access=access)


# --- gathers ---------------------------------------------------------------------------------


@rule
def _gather(ctx: DeduceContext) -> Type:
    src, indices, tmp = ctx.tile("src"), ctx.tile("indices"), ctx.tile("tmp")
    require_integer(ctx, "indices", indices.dtype)
    if tmp.dtype is not indices.dtype:  # TGATHER's scratch holds indices
        ctx.fail(f"{ctx.op.name}: 'tmp' must be {indices.dtype.name} like 'indices'", at="tmp")
    return TileType(indices.shape, src.dtype)


tile_op(
    entry(
        "gather",
        "TGATHER",
        "Per element: src at the flat index given by indices.",
        scratch=True,
    ),
    [
        _vec("src", "Tile gathered from"),
        _vec("indices", "Integer indices, shaped like the result"),
        _vec("tmp", "Scratch tile of the indices' dtype", access=Access.WRITE),
    ],
    _gather,
    "t(indices.shape, src.dtype)",
)


@rule
def _gather_compare(ctx: DeduceContext) -> Type:
    src = ctx.tile("src")
    ctx.scalar("kvalue")
    ctx.tile("tmp")
    require_rank(ctx, "src", src, exactly=2)
    cols = ctx.attr("out_cols")
    if not isinstance(cols, int) or isinstance(cols, bool) or cols <= 0:
        ctx.fail(f"{ctx.op.name}: out_cols must be a positive integer", at="out_cols", code="E309")
    if ctx.attr("cmp_mode") not in ("eq", "ne", "lt", "le", "gt", "ge"):
        ctx.fail(
            f"{ctx.op.name}: cmp_mode must be eq, ne, lt, le, gt or ge", at="cmp_mode", code="E309"
        )
    counts = attr_dtype(ctx, "count_dtype") or _D.INT32
    rows = src.shape[0]
    values = TileType((rows, const_int(cols)), src.dtype)
    return TupleType((values, TileType((rows, const_int(1)), counts)))


tile_op(
    entry(
        "gather_compare",
        "",
        "Gather the elements of each row that compare true against kvalue, with their count.",
        **no_lowering(_NOT_YET.format("a pair-valued gather")),
    ),
    [
        _vec("src", "2-D tile gathered from"),
        p_value("kvalue", "Scalar each element is compared with"),
        _vec("tmp", "Scratch tile the instruction needs", access=Access.WRITE),
        p_text("cmp_mode", "Comparison: eq, ne, lt, le, gt or ge", "eq"),
        p_attr("offset", "Index added to the gathered positions", (int,), 0),
        p_attr("out_cols", "Columns of the gathered values (required)", (int,)),
        p_dtype("count_dtype", "Element type of the counts (default INT32)", None),
    ],
    _gather_compare,
    "(t([rows, out_cols], src.dtype), t([rows, 1], count_dtype or INT32))",
)


def _same_width(ctx: DeduceContext, source: DataType) -> DataType:
    dtype = attr_dtype(ctx, "output_dtype") or source
    if dtype.bits != source.bits:
        ctx.fail(
            f"{ctx.op.name}: output_dtype must be {source.bits}-bit like src, got {dtype.name}",
            at="output_dtype",
            code="E309",
        )
    return dtype


@rule
def _gather_mask(ctx: DeduceContext) -> Type:
    src = ctx.tile("src")
    require_rank(ctx, "src", src, at_least=2)
    _, cols = mask_stride(ctx, src)
    return TileType((*src.shape[:-1], const_int(cols)), _same_width(ctx, src.dtype))


_MASK_PATTERN = p_enum("mask_pattern", "Columns selected: a pl.tile.MaskPattern (1..7)")
tile_op(
    entry(
        "gather_mask",
        "",
        "The columns a mask pattern marks, packed to the left (e.g. P0101: every other column).",
        **no_lowering(_NOT_YET.format("the mask form of TGATHER")),
    ),
    [
        _vec("src", "Tile gathered from"),
        _MASK_PATTERN,
        p_dtype("output_dtype", "Same-width element type to reinterpret as", None),
    ],
    _gather_mask,
    "t([..., cols / stride(mask_pattern)], output_dtype or src.dtype)",
)


@rule
def _gatherb(ctx: DeduceContext) -> Type:
    src, offset = ctx.tile("src"), ctx.tile("offset")
    if offset.dtype not in (_D.UINT32, _D.INT32):
        ctx.fail(f"{ctx.op.name}: 'offset' must be UINT32, got {offset.dtype.name}", at="offset")
    require_rank(ctx, "offset", offset, exactly=2)
    dtype = attr_dtype(ctx, "output_dtype") or src.dtype
    cols = static_value(offset.shape[1])
    if cols is None:
        ctx.fail(
            f"{ctx.op.name}: the columns of 'offset' must be a constant", at="offset", code="E307"
        )
    per_block = 256 // dtype.bits  # one 32-byte block per offset
    return TileType((offset.shape[0], const_int(cols * per_block)), dtype)


tile_op(
    entry("gatherb", "TGATHERB", "Gather 32-byte blocks of src at UINT32 byte offsets."),
    [
        _vec("src", "Tile gathered from"),
        _vec("offset", "Byte offsets (UINT32), one 32-byte block each"),
        p_dtype("output_dtype", "Element type the blocks are read as (default: src's)", None),
    ],
    _gatherb,
    "t([offset.rows, offset.cols * 32 / bytes(dtype)], output_dtype or src.dtype)",
)


tile_op(
    entry(
        "gather_row",
        "",
        "Copy a window of a DDR tensor into a region of an on-chip accumulator tile (the "
        "result is the updated accumulator).",
        aliases="dst",
        **no_lowering(_NOT_YET.format("a load into a region of a tile")),
    ),
    [
        p_tile("dst", "Accumulator tile (Mat or Vec) written into", access=Access.WRITE),
        p_tensor("src", "Tensor in DDR read from"),
        p_shape("dst_offset", "Where in 'dst' the window goes: [row, col]"),
        p_shape("src_offset", "Start of the window in 'src': [row, col]"),
        p_shape("shapes", "Size of the window: [rows, cols]"),
        p_flag("transpose", "Place the window transposed"),
        p_list("valid_shape", "Valid part of the window (default: all of it)", None),
    ],
    gather_row_rule("dst"),
    "type(dst)",
    pipe=PipeType.MTE2,
    role=Role.MOVE,
)


@rule
def _mgather(ctx: DeduceContext) -> Type:
    mem, idx = ctx.tensor("mem"), ctx.tile("idx")
    require_integer(ctx, "idx", idx.dtype)
    memory = attr_memory(ctx, "target_memory", (MemorySpace.Vec, MemorySpace.Mat))
    coalesce = ctx.attr("coalesce")
    if coalesce not in ("row", "elem"):
        ctx.fail(
            f"{ctx.op.name}: coalesce must be 'row' or 'elem', got {coalesce!r}",
            at="coalesce",
            code="E309",
        )
    if ctx.attr("gather_oob") not in ("undefined", "clamp", "wrap", "zero"):
        ctx.fail(
            f"{ctx.op.name}: gather_oob must be undefined, clamp, wrap or zero",
            at="gather_oob",
            code="E309",
        )
    if ctx.has("scratch"):
        ctx.tensor("scratch")
    optional_shape(ctx, "valid_shape")
    if coalesce == "elem":
        return TileType(idx.shape, mem.dtype, tile_view=view_for(memory))
    rows = num_elements(idx.shape)
    if rows is None:
        ctx.fail(f"{ctx.op.name}: 'idx' must have a constant shape", at="idx", code="E307")
    return TileType((const_int(rows), mem.shape[-1]), mem.dtype, tile_view=view_for(memory))


tile_op(
    entry(
        "mgather",
        "",
        "Gather rows (coalesce='row') or elements ('elem') of a DDR tensor into a new tile.",
        unified_always=True,
        **no_lowering(_NOT_YET.format("gathers from DDR")),
    ),
    [
        p_tensor("mem", "Tensor in DDR gathered from"),
        _vec("idx", "Integer row (or element) indices"),
        p_text("coalesce", "'row': whole rows; 'elem': single elements", "row"),
        p_text("gather_oob", "Out-of-range indices: undefined, clamp, wrap or zero", "undefined"),
        p_attr(
            "target_memory", "Buffer of the result: Vec or Mat", (MemorySpace,), MemorySpace.Vec
        ),
        Param(
            "scratch", "Same-dtype DDR scratch (coalesce='elem')", accepts=("tensor",), default=None
        ),
        p_list("valid_shape", "Valid region of the result (Mat)", None),
    ],
    _mgather,
    "t([len(idx), mem.cols] (row) or idx.shape (elem), mem.dtype) in target_memory",
    pipe=PipeType.MTE2,
    role=Role.MOVE,
    result_space_attr="target_memory",
)


# --- scatters --------------------------------------------------------------------------------


@rule
def _into_dst(ctx: DeduceContext) -> Type:
    """DPS scatters: the result is the first operand updated; ``src`` shares its dtype, the
    other operands are integer indices."""
    names = expr_params(ctx)
    dst, src = ctx.tile(names[0]), ctx.tile("src")
    if src.dtype is not dst.dtype:
        ctx.fail(f"{ctx.op.name}: 'src' must be {dst.dtype.name}, got {src.dtype.name}", at="src")
    for name in names[1:]:
        if name != "src":
            require_integer(ctx, name, ctx.tile(name).dtype)
    if ctx.op.param("mask_pattern") is not None:
        stride, marked = mask_stride(ctx, dst)
        if static_value(src.shape[-1]) not in (None, marked):
            ctx.fail(
                f"{ctx.op.name}: 'src' must have the {marked} columns of 'dst' the pattern "
                f"marks (1 in {stride}), got {src.short()}",
                at="src",
                code="E307",
            )
    return TileType(dst.shape, dst.dtype, tile_view=dst.tile_view)


_DST = p_tile(
    "dst", "Tile written into (the result is it, updated)", spaces=_VEC, access=Access.WRITE
)
# TSCATTER writes its destination without reading it: dst gives the result's buffer only.
_SCATTER_DST = p_tile(
    "dst",
    "Tile whose buffer the result is (its elements are not read)",
    spaces=_VEC,
    access=Access.SHAPE,
)
tile_op(
    entry(
        "scatter",
        "TSCATTER",
        "Write each element of src into dst at the flat index given by indexes.",
        "dst's other elements are not preserved (TSCATTER writes its destination only)",
        operands=("src", "indexes"),
        aliases="dst",
    ),
    [_SCATTER_DST, _vec("src", "Values written"), _vec("indexes", "Integer indices, like src")],
    _into_dst,
    "type(dst)",
)
tile_op(
    entry(
        "scatter_mask",
        "",
        "Write each row of src into the columns of dst a mask pattern marks.",
        aliases="dst",
        **no_lowering(_NOT_YET.format("the mask form of a scatter")),
    ),
    [_DST, _vec("src", "Values written: dst's columns / stride"), _MASK_PATTERN],
    _into_dst,
    "type(dst); dst.cols = src.cols * stride(mask_pattern)",
)
tile_op(
    entry(
        "scatter_update",
        "",
        "Replace whole rows of input by the rows of src at the row indices of index.",
        aliases="input",
        **no_lowering(_NOT_YET.format("a row scatter")),
    ),
    [
        p_tile("input", "Tile updated (the result is it)", spaces=_VEC, access=Access.WRITE),
        _vec("index", "Integer row indices (2-D)"),
        _vec("src", "Rows written"),
        p_attr("dim", "Axis scattered along (rows: -2)", (int,), -2),
    ],
    _into_dst,
    "type(input)",
)


@rule
def _mscatter(ctx: DeduceContext) -> Type:
    src, idx = ctx.tile("src"), ctx.tile("idx")
    output = ctx.tensor("output_tensor")
    require_integer(ctx, "idx", idx.dtype)
    if src.dtype is not output.dtype:
        ctx.fail(
            f"{ctx.op.name}: 'src' must be {output.dtype.name}, got {src.dtype.name}",
            at="src",
        )
    return output


tile_op(
    entry(
        "mscatter",
        "",
        "Write each element of a tile into a DDR tensor at the flat index given by idx; the "
        "result is the updated tensor.",
        aliases="output_tensor",
        **no_lowering(_NOT_YET.format("scatters into DDR")),
    ),
    [
        _vec("src", "Values written"),
        _vec("idx", "Integer element indices, shaped like src"),
        p_tensor("output_tensor", "Tensor written into", access=Access.WRITE),
    ],
    _mscatter,
    "type(output_tensor)",
    pipe=PipeType.MTE3,
    role=Role.STORE,
)

# --- sorts -----------------------------------------------------------------------------------


@rule
def _sort32(ctx: DeduceContext) -> Type:
    src, idx = ctx.tile("src"), ctx.tile("idx")
    require_rank(ctx, "src", src, exactly=2)
    if idx.dtype is not _D.UINT32:
        ctx.fail(f"{ctx.op.name}: 'idx' must be UINT32, got {idx.dtype.name}", at="idx")
    if src.dtype not in (_D.INT16, _D.INT32, _D.FP16, _D.BF16, _D.FP32):
        ctx.fail(f"{ctx.op.name}: 'src' cannot be {src.dtype.name}", at="src")
    cols = static_value(src.shape[1])
    if cols is None:
        ctx.fail(f"{ctx.op.name}: the columns of 'src' must be a constant", at="src", code="E307")
    pair = 64 // src.dtype.bits  # (value, UINT32 index) pairs, in src elements
    return TileType((src.shape[0], const_int(cols * pair)), src.dtype)


tile_op(
    entry(
        "sort32",
        "TSORT32",
        "Sort each 32-element block of every row in descending order, pairing each value "
        "with its index from idx.",
    ),
    [_vec("src", "2-D tile sorted"), _vec("idx", "UINT32 indices, shaped like src")],
    _sort32,
    "t([rows, cols * 8 / bytes(src.dtype)], src.dtype): (value, index) pairs",
)


@rule
def _mrgsort(ctx: DeduceContext) -> Type:
    names = [n for n in expr_params(ctx) if n.startswith("src")]
    first = ctx.tile(names[0])
    require_rank(ctx, names[0], first, exactly=2)
    total = 0
    for name in names:
        tile = ctx.tile(name)
        if tile.dtype is not first.dtype:
            ctx.fail(f"{ctx.op.name}: '{name}' must be {first.dtype.name}", at=name)
        cols = static_value(tile.shape[-1])
        if cols is None:
            return TileType(first.shape, first.dtype)
        total += cols
    if ctx.has("tmp"):
        ctx.tile("tmp")
    return TileType((first.shape[0], const_int(total)), first.dtype)


_SORTED = "A sorted list (as sort32 writes)"
tile_op(
    entry(
        "mrgsort",
        "",
        "Merge up to four sorted lists into one (one list: merge its blocks of block_len).",
        **no_lowering(_NOT_YET.format("merge sorts")),
    ),
    [
        _vec("src0", _SORTED),
        p_tile("src1", _SORTED, None, spaces=_VEC),
        p_tile("src2", _SORTED, None, spaces=_VEC),
        p_tile("src3", _SORTED, None, spaces=_VEC),
        p_tile("tmp", "Scratch tile", None, spaces=_VEC, access=Access.WRITE),
        p_flag("exhausted", "Stop when one list runs out"),
        p_attr("block_len", "Sorted block length of the one-list form", (int, type(None)), None),
    ],
    _mrgsort,
    "t([rows, sum of the lists' cols], src0.dtype)",
)
