"""Tensor ops PyPTO 2026-08 added that make, view, address, gather, scatter or multiply tensors
(spec pypto-2026-08.md section 9.1), IR ``tensor.X`` as in tensor_2608.py; the on-chip
accumulator ops (``create_l1``, ``gather_row``, ``paged_gather``) produce tiles.
"""

from __future__ import annotations

from ..ir.dtype import DataType
from ..ir.expr import const_int
from ..ir.shape import dim_str, static_value
from ..ir.types import (
    BLayout,
    MemorySpace,
    PadMode,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
)
from .registry import Access, DeduceContext, Param, Role
from .rules import (
    MAT_VIEW,
    attr_bool,
    attr_dtype,
    attr_int,
    attr_memory,
    const_int_arg,
    dims_conflict,
    entry,
    int_elements,
    p_attr,
    p_shape,
    p_tensor,
    require_integer,
    require_rank,
    rule,
)
from .rules_2608 import (
    check_acc,
    element_write_rule,
    gather_row_rule,
    index_scalar_rule,
    mask_stride,
    p_dtype,
    p_enum,
    p_flag,
    p_list,
    p_value,
    product_shape,
    reinterpret_rule,
    set_valid_rule,
)
from .tensor_2608 import tensor_op

_D = DataType
_KEYS = ("key0", "key1", "counter0", "counter1", "counter2", "counter3")

# --- creation ----------------------------------------------------------------------------------


def _created(ctx: DeduceContext) -> TensorType:
    shape = int_elements(ctx, "shape")
    dtype = attr_dtype(ctx, "dtype")
    assert dtype is not None  # required or defaulted
    return TensorType(shape, dtype)


@rule
def _ci(ctx: DeduceContext) -> Type:
    require_integer(ctx, "start", ctx.scalar("start").dtype)
    attr_bool(ctx, "descending")
    result = _created(ctx)
    if result.dtype not in (_D.INT16, _D.INT32):
        ctx.fail(f"{ctx.op.name}: dtype must be INT16 or INT32", at="dtype", code="E309")
    return result


@rule
def _random(ctx: DeduceContext) -> Type:
    for name in _KEYS:
        require_integer(ctx, name, ctx.scalar(name).dtype)
    attr_int(ctx, "rounds")
    return _created(ctx)


@rule
def _full(ctx: DeduceContext) -> Type:
    value = ctx.expr("value")
    if not isinstance(value.type, ScalarType):
        ctx.fail(f"{ctx.op.name}: argument 'value' must be a scalar", at="value")
    return _created(ctx)


_SHAPE = p_shape("shape", "Shape of the new tensor: a list of integer scalars")
tensor_op(
    entry(
        "ci",
        "",
        "A contiguous integer sequence start, start + 1, ... (start, start - 1, ... when "
        "descending) laid out over shape.",
        dsl_names=("arange", "ci"),
    ),
    [
        p_value("start", "First value (an integer scalar)"),
        _SHAPE,
        p_dtype("dtype", "Element type: INT16 or INT32", DataType.INT32),
        p_flag("descending", "Count down instead of up"),
    ],
    _ci,
    "T(shape, dtype); dtype INT16 or INT32",
)
tensor_op(
    entry("random", "", "Counter-based random values from two keys and four counters."),
    [
        *(
            p_value(name, f"Random {name[:-1]} word {name[-1]} (an integer scalar)")
            for name in _KEYS
        ),
        _SHAPE,
        p_dtype("dtype", "Element type", DataType.UINT32),
        p_attr("rounds", "Number of rounds", (int,), 10),
    ],
    _random,
    "T(shape, dtype)",
)
tensor_op(
    entry(
        "full",
        "",
        "A tensor with every element set to value.",
        role=Role.BROADCAST,
        block_form="block.full",
    ),
    [_SHAPE, p_dtype("dtype", "Element data type, e.g. pl.FP32"), p_value("value", "Fill value")],
    _full,
    "T(shape, dtype)",
)

_ZN_VIEW = TileView(blayout=BLayout.row_major, slayout=BLayout.col_major)


@rule
def _create_l1(ctx: DeduceContext) -> Type:
    shape = int_elements(ctx, "shape")
    for index, dim in enumerate(shape):
        if static_value(dim) is None:
            ctx.fail(f"{ctx.op.name}: element {index} of 'shape' must be a constant", at="shape")
    dtype = attr_dtype(ctx, "dtype")
    assert dtype is not None
    return TileType(shape, dtype, tile_view=_ZN_VIEW if attr_bool(ctx, "transpose") else MAT_VIEW)


tensor_op(
    entry(
        "create_l1",
        "",
        "An on-chip (Mat) accumulator tile for gather_row / paged gathers (transpose: the ZN "
        "layout of a transposed matmul operand).",
        result_space=MemorySpace.Mat,
    ),
    [
        p_shape("shape", "Static shape of the tile"),
        p_dtype("dtype", "Element data type"),
        p_flag("transpose", "Allocate the transposed (ZN) fractal"),
    ],
    _create_l1,
    "t(shape, dtype) in Mat",
)

# --- views, element access, padding ------------------------------------------------------------

tensor_op(
    entry(
        "set_validshape",
        "",
        "The same tensor with its valid region set to [valid_rows, valid_cols].",
        role=Role.VIEW,
        aliases="tensor",
    ),
    [
        p_tensor("tensor", "2-D tensor"),
        p_value("valid_rows", "Valid rows (an integer scalar)"),
        p_value("valid_cols", "Valid columns (an integer scalar)"),
    ],
    set_valid_rule("tensor"),
    "type(tensor)",
)
tensor_op(
    entry(
        "reinterpret_view",
        "",
        "The same bytes as another element type (no copy).",
        role=Role.VIEW,
        aliases="data",
    ),
    [
        p_tensor("data", "Tensor to view"),
        p_dtype("dtype", "Element type of the view"),
        p_list("shape", "Shape of the view (default: the last dimension rescaled)", None),
    ],
    reinterpret_rule("tensor"),
    "T(shape or rescaled shape, dtype); same bytes",
)
tensor_op(
    entry(
        "write",
        "",
        "Write one element of a tensor; the result is the updated tensor.",
        aliases="tensor",
    ),
    [
        p_tensor("tensor", "Tensor written into", access=Access.WRITE),
        p_shape("indices", "One integer index per dimension"),
        p_value("value", "The element's new value"),
    ],
    element_write_rule("tensor"),
    "type(tensor)",
)
for _row in (
    entry(
        "get_block_idx",
        "",
        "The index of the AI core block running this kernel.",
        block_form="block.get_block_idx",
        index_result=True,
    ),
    entry(
        "get_block_num",
        "",
        "The number of AI core blocks running this kernel.",
        block_form="block.get_block_num",
        index_result=True,
    ),
    entry(
        "get_subblock_idx",
        "",
        "The index of the vector sub-block (0 or 1) running this code.",
        block_form="block.get_subblock_idx",
        index_result=True,
    ),
):
    tensor_op(
        _row,
        [],
        index_scalar_rule(),
        "s(INDEX)",
        role=Role.SCALAR,
    )

_PAD_VALUE = p_enum(
    "pad_value", "Fill value: pl.PadValue.zero / max / min, or 0, inf, -inf", PadMode.zero, float
)


@rule
def _fillpad(ctx: DeduceContext) -> Type:
    tensor = ctx.tensor("tensor")
    if not ctx.has("shape"):
        return tensor
    shape = int_elements(ctx, "shape")
    if len(shape) != tensor.rank:
        ctx.fail(
            f"{ctx.op.name}: 'shape' must have {tensor.rank} dimensions", at="shape", code="E307"
        )
    return TensorType(shape, tensor.dtype)


tensor_op(
    entry("fillpad", "", "The tensor with the padding outside its valid region filled."),
    [p_tensor("tensor", "Tensor whose padding is filled"), _PAD_VALUE],
    _fillpad,
    "type(tensor)",
)
tensor_op(
    entry(
        "fillpad_expand",
        "",
        "Copy a tensor into a larger shape, filling the rest with the pad value.",
    ),
    [p_tensor("tensor", "Tensor to copy"), p_shape("shape", "Shape of the result"), _PAD_VALUE],
    _fillpad,
    "T(shape, tensor.dtype)",
)


@rule
def _expand_clone(ctx: DeduceContext) -> Type:
    src, target = ctx.tensor("src"), ctx.tensor("target")
    if src.rank != target.rank:
        ctx.fail(
            f"{ctx.op.name}: 'src' must have {target.rank} dimensions, got {src.short()}",
            at="src",
            code="E307",
        )
    for axis, (a, b) in enumerate(zip(src.shape, target.shape, strict=True)):
        if static_value(a) != 1 and dims_conflict(a, b):
            ctx.fail(
                f"{ctx.op.name}: dimension {axis} of 'src' is {dim_str(a)}: must be 1 or "
                f"{dim_str(b)}",
                at="src",
                code="E307",
            )
    return TensorType(target.shape, src.dtype)


tensor_op(
    entry("expand_clone", "", "A copy of src broadcast to target's shape (each dim 1 or equal)."),
    [p_tensor("src", "Tensor copied"), p_tensor("target", "Tensor giving the result shape")],
    _expand_clone,
    "T(target.shape, src.dtype)",
)

# --- matmul ----------------------------------------------------------------------------------


@rule
def _matmul_acc(ctx: DeduceContext) -> Type:
    acc, lhs, rhs = ctx.tensor("acc"), ctx.tensor("lhs"), ctx.tensor("rhs")
    for name, value in (("acc", acc), ("lhs", lhs), ("rhs", rhs)):
        require_rank(ctx, name, value, at_least=2)
    trans = attr_bool(ctx, "a_trans"), attr_bool(ctx, "b_trans")
    check_acc(ctx, product_shape(ctx, lhs, rhs, *trans))
    if ctx.has("init_cond") and ctx.scalar("init_cond").dtype is not _D.BOOL:
        ctx.fail(f"{ctx.op.name}: 'init_cond' must be a BOOL scalar", at="init_cond")
    return acc


tensor_op(
    entry(
        "matmul_acc",
        "",
        "Accumulate: acc + lhs @ rhs (lhs / rhs optionally transposed).",
        role=Role.MATMUL,
        block_form="block.matmul_acc",
    ),
    [
        p_tensor("acc", "Accumulator [..., M, N]"),
        p_tensor("lhs", "Left operand [..., M, K]"),
        p_tensor("rhs", "Right operand [..., K, N]"),
        p_flag("a_trans", "Use lhs transposed"),
        p_flag("b_trans", "Use rhs transposed"),
        Param(
            "init_cond",
            "BOOL scalar: true starts afresh instead of accumulating",
            accepts=("scalar",),
            default=None,
        ),
    ],
    _matmul_acc,
    "type(acc); M, N, K must agree",
)

# --- gathers, scatters, sorts --------------------------------------------------------------------


@rule
def _gather(ctx: DeduceContext) -> Type:
    source = ctx.tensor("input")
    if ctx.has("kvalue"):  # compare form: (values, counts)
        ctx.scalar("kvalue")
        cols = ctx.attr("out_cols")
        if not isinstance(cols, int) or isinstance(cols, bool):
            ctx.fail(f"{ctx.op.name}: the compare form needs out_cols=", at="out_cols", code="E309")
        counts = attr_dtype(ctx, "count_dtype") or _D.INT32
        rows = source.shape[:-1]
        return TupleType(
            (
                TensorType((*rows, const_int(cols)), source.dtype),
                TensorType((*rows, const_int(1)), counts),
            )
        )
    dtype = attr_dtype(ctx, "output_dtype") or source.dtype
    if ctx.attr("mask_pattern") is not None:
        return TensorType((*source.shape[:-1], const_int(mask_stride(ctx, source)[1])), dtype)
    if not ctx.has("index") or ctx.attr("dim") is None:
        ctx.fail(f"{ctx.op.name}: give dim and index, mask_pattern=, or kvalue=", at="input")
    index = ctx.tensor("index")
    require_integer(ctx, "index", index.dtype)
    return TensorType(index.shape, dtype)


tensor_op(
    entry(
        "gather",
        "",
        "Torch-style gather along dim by an index tensor; or the columns a mask pattern marks "
        "(mask_pattern=); or the elements comparing true against kvalue, with their count "
        "(kvalue=, a pair).",
    ),
    [
        p_tensor("input", "Tensor gathered from"),
        p_attr("dim", "Axis gathered along (index form)", (int, type(None)), None),
        Param(
            "index",
            "Integer indices, shaped like the result (index form)",
            accepts=("tensor",),
            default=None,
        ),
        p_enum("mask_pattern", "Columns selected: a pl.tile.MaskPattern (mask form)", None),
        p_dtype("output_dtype", "Same-width element type to reinterpret as", None),
        Param("kvalue", "Scalar compared with (compare form)", accepts=("scalar",), default=None),
        p_attr(
            "cmp_mode",
            "Comparison of the compare form: eq, ne, lt, le, gt, ge",
            (str, type(None)),
            None,
        ),
        p_attr("out_cols", "Columns of the compare form's values", (int, type(None)), None),
        p_attr("offset", "Index added to the gathered positions", (int,), 0),
        p_dtype("count_dtype", "Element type of the compare form's counts", None),
    ],
    _gather,
    "T(index.shape) / T([..., cols / stride]) / (values, counts)",
)


@rule
def _scatter(ctx: DeduceContext) -> Type:
    source = ctx.tensor("input")
    if ctx.has("dst"):  # mask form: input's rows into dst's marked columns
        dst = ctx.tensor("dst")
        if mask_stride(ctx, dst)[1] != static_value(source.shape[-1]):
            ctx.fail(
                f"{ctx.op.name}: 'input' must have dst's marked columns", at="input", code="E307"
            )
        return dst
    for name in ("index", "src"):
        if not ctx.has(name):
            ctx.fail(
                f"{ctx.op.name}: give dim, index and src, or dst= and mask_pattern=", at="input"
            )
    require_integer(ctx, "index", ctx.tensor("index").dtype)
    ctx.tensor("src")
    return source


tensor_op(
    entry(
        "scatter",
        "",
        "Torch-style scatter of src into input along dim by an index tensor; or input's rows "
        "into the columns of dst a mask pattern marks (dst=, mask_pattern=).",
    ),
    [
        p_tensor("input", "Tensor scattered into (index form) or the compact rows (mask form)"),
        p_attr("dim", "Axis scattered along (index form)", (int, type(None)), None),
        Param("index", "Integer indices (index form)", accepts=("tensor",), default=None),
        Param("src", "Values written (index form)", accepts=("tensor",), default=None),
        p_enum("mask_pattern", "Columns marked: a pl.tile.MaskPattern (mask form)", None),
        Param("dst", "Tensor written into (mask form)", accepts=("tensor",), default=None),
    ],
    _scatter,
    "type(input), or type(dst) in the mask form",
)


@rule
def _scatter_update(ctx: DeduceContext) -> Type:
    source, src = ctx.tensor("input"), ctx.tensor("src")
    require_integer(ctx, "index", ctx.tensor("index").dtype)
    if src.dtype is not source.dtype:
        ctx.fail(f"{ctx.op.name}: 'src' must be {source.dtype.name}", at="src")
    return source


tensor_op(
    entry(
        "scatter_update",
        "",
        "Replace whole rows of input by the rows of src at index's row indices.",
    ),
    [
        p_tensor("input", "Tensor updated"),
        p_tensor("index", "Integer row indices (2-D)"),
        p_tensor("src", "Rows written"),
        p_attr("dim", "Axis scattered along (rows: -2)", (int,), -2),
    ],
    _scatter_update,
    "type(input)",
)


@rule
def _sort32(ctx: DeduceContext) -> Type:
    src, idx = ctx.tensor("src"), ctx.tensor("idx")
    require_rank(ctx, "src", src, at_least=1)
    if idx.dtype is not _D.UINT32:
        ctx.fail(f"{ctx.op.name}: 'idx' must be UINT32, got {idx.dtype.name}", at="idx")
    cols = static_value(src.shape[-1])
    if cols is None:
        return TensorType(src.shape, src.dtype)
    return TensorType((*src.shape[:-1], const_int(cols * (64 // src.dtype.bits))), src.dtype)


tensor_op(
    entry("sort32", "", "Sort each 32-element block of every row, pairing values with idx."),
    [p_tensor("src", "Tensor sorted"), p_tensor("idx", "UINT32 indices, shaped like src")],
    _sort32,
    "T([..., cols * 8 / bytes(src.dtype)], src.dtype): (value, index) pairs",
)


@rule
def _mrgsort(ctx: DeduceContext) -> Type:
    first = ctx.tensor("src0")
    total = static_value(first.shape[-1]) if first.shape else None
    for name in ("src1", "src2", "src3"):
        if ctx.has(name):
            other = ctx.tensor(name)
            cols = static_value(other.shape[-1]) if other.shape else None
            total = None if total is None or cols is None else total + cols
    attr_bool(ctx, "exhausted")
    if total is None:
        return first
    return TensorType((*first.shape[:-1], const_int(total)), first.dtype)


_SORTED = "A sorted list (as sort32 writes)"
tensor_op(
    entry(
        "mrgsort", "", "Merge up to four sorted lists into one (one list: its blocks of block_len)."
    ),
    [
        p_tensor("src0", _SORTED),
        *(
            Param(name, _SORTED, accepts=("tensor",), default=None)
            for name in ("src1", "src2", "src3")
        ),
        p_flag("exhausted", "Stop when one list runs out"),
        p_attr("block_len", "Sorted block length of the one-list form", (int, type(None)), None),
    ],
    _mrgsort,
    "T([..., sum of the lists' cols], src0.dtype)",
)

# --- on-chip accumulators ----------------------------------------------------------------------


tensor_op(
    entry(
        "gather_row",
        "",
        "Copy a window of a DDR tensor into a region of an on-chip accumulator (the result is "
        "the updated accumulator).",
        aliases="acc",
    ),
    [
        Param(
            "acc",
            "Accumulator written into (from create_l1)",
            accepts=("tile", "tensor"),
            access=Access.WRITE,
        ),
        p_tensor("src", "Tensor in DDR read from"),
        p_shape("dst_offset", "Where in 'acc' the window goes"),
        p_shape("src_offset", "Start of the window in 'src'"),
        p_shape("shapes", "Size of the window"),
        p_flag("transpose", "Place the window transposed"),
        p_list("valid_shape", "Valid part of the window (default: all of it)", None),
    ],
    gather_row_rule("acc"),
    "type(acc)",
    role=Role.MOVE,
)


@rule
def _paged_gather(ctx: DeduceContext) -> Type:
    src = ctx.tensor("src")
    for name in ("indices", "block_table"):
        require_integer(ctx, name, ctx.tensor(name).dtype)
    require_integer(ctx, "block_size", ctx.scalar("block_size").dtype)
    size, rows = const_int_arg(ctx, "size"), const_int_arg(ctx, "max_indices")
    memory = attr_memory(ctx, "space", (MemorySpace.Mat, MemorySpace.Vec))
    transposed = attr_bool(ctx, "is_trans")
    if transposed and memory is not MemorySpace.Mat:
        ctx.fail(f"{ctx.op.name}: is_trans=True needs space=pl.Mem.Mat", at="is_trans", code="E309")
    shape = (const_int(size), const_int(rows)) if transposed else (const_int(rows), const_int(size))
    view = (_ZN_VIEW if transposed else MAT_VIEW) if memory is MemorySpace.Mat else None
    return TileType(shape, src.dtype, tile_view=view)


tensor_op(
    entry(
        "paged_gather",
        "",
        "Gather the rows of a paged (block-table) DDR pool named by indices straight into an "
        "on-chip tile of max_indices rows.",
        result_space_attr="space",
    ),
    [
        p_tensor("src", "Paged pool in DDR"),
        p_tensor("indices", "Logical row indices (integer)"),
        p_tensor("block_table", "Page table: logical block -> physical block (integer)"),
        p_value("block_size", "Rows per page (an integer scalar)"),
        p_value("size", "Columns gathered per row (a constant)"),
        p_value("max_indices", "Rows of the result tile (a constant)"),
        p_attr("space", "Buffer of the result: Mat or Vec", (MemorySpace,), MemorySpace.Mat),
        Param("col_off", "First column gathered", accepts=("scalar",), default=0),
        p_flag("is_trans", "Place each row transposed (Mat only)"),
        p_flag("is_b_matrix", "The result is a matmul's right operand"),
    ],
    _paged_gather,
    "t([max_indices, size] (transposed: [size, max_indices]), src.dtype) in space",
    role=Role.MOVE,
)
