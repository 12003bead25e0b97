"""What the ops PyPTO 2026-08 added share (spec pypto-2026-08.md section 9): their registration
(every one is ``since`` 2026-08), the parameter kinds the older ops did not need (enumerations
given as ``pl.X.Y`` or an integer, optional lists), and the type rules several of them use on
tiles and tensors alike (``kind`` says which; a rule reads its operands by position, so one rule
serves ops whose parameters are named differently).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from .. import records
from ..editions import Edition
from ..ir.dtype import INDEX, DataType
from ..ir.expr import Expr, const_int
from ..ir.shape import dim_str, static_value
from ..ir.types import MemorySpace, PadMode, ScalarType, ShapedType, TileType, TileView, Type
from .registry import REQUIRED, Category, DeduceContext, Lowering, OpDef, Param, Role, TypeRule
from .rules import (
    Elementwise,
    Entry,
    Kind,
    broadcast_shapes,
    const_int_value,
    dims_conflict,
    elementwise,
    elementwise_doc,
    expr_params,
    operand,
    p_attr,
    register_entry,
    require_rank,
    rule,
    same_kind,
)

SINCE = Edition.V2026_08
INDEX_SCALAR = ScalarType(INDEX)
MEMORY_VEC = MemorySpace.Vec
_NO_KERNEL_NOTE = "tensor ops run on the orchestration side; use block ops in kernels"
TENSOR_LOWERINGS = {"cce": Lowering(None, _NO_KERNEL_NOTE), "pto": Lowering(None, _NO_KERNEL_NOTE)}


def register_2608(
    row: Entry,
    ir_name: str,
    category: Category,
    params: Sequence[Param],
    type_rule: TypeRule,
    doc: str,
    **traits: Any,
) -> OpDef:
    """Register a 2026-08 op from its table row: the family's ``traits``, then the row's own,
    then the row instruction's lowerings (a row without one gives ``cce`` / ``pto`` itself)."""
    lowerings = row.isa() if row.instruction else {}
    return register_entry(
        row,
        ir_name,
        category,
        list(params),
        type_rule,
        type_rule_doc=doc,
        since=SINCE,
        **{**traits, **lowerings},
    )


Registrar = Callable[..., None]


def registrar(namespace: str, category: Category, **fixed: Any) -> Registrar:
    """``register(row, params, rule, doc, **traits)`` for a namespace: the row's op is
    ``namespace.X``; ``fixed`` traits that are defaults (``pipe``) yield to the family's, the
    lowerings (``cce`` / ``pto``) do not."""
    lowerings = {k: v for k, v in fixed.items() if k in ("cce", "pto")}
    defaults = {k: v for k, v in fixed.items() if k not in lowerings}

    def register(
        row: Entry, params: Sequence[Param], type_rule: TypeRule, doc: str, **traits: Any
    ) -> None:
        merged = {**defaults, **traits, **lowerings}
        register_2608(row, f"{namespace}.{row.name}", category, params, type_rule, doc, **merged)

    return register


def elementwise_family(
    kind: Kind,
    register: Registrar,
    rows: Sequence[Entry],
    params: Sequence[Param],
    spec: Elementwise,
    extra: Callable[[DeduceContext], None] | None = None,
    **traits: Any,
) -> None:
    """Register rows that share parameters and an element-wise rule."""
    type_rule = elementwise(kind, spec, extra)
    doc = elementwise_doc(kind, spec, [p.name for p in params])
    promoted = spec.promoted([p.name for p in params]) if kind == "tile" else ()
    for row in rows:
        register(row, params, type_rule, doc, promoted=promoted, **traits)


def broadcast_families(
    kind: Kind,
    register: Registrar,
    families: Sequence[tuple[int, Sequence[Param], Sequence[Entry]]],
) -> None:
    """Families of ops of an operand and a per-row (axis -1) / per-column (axis -2) vector."""
    for axis, params, rows in families:
        elementwise_family(
            kind, register, rows, params, Elementwise("tv"), vector_check(axis), role=Role.BROADCAST
        )


def no_lowering(note: str, pto_note: str | None = None) -> dict[str, Any]:
    """Neither kernel target has the op (code generation reports E400 with ``note``)."""
    return {"cce": Lowering(None, note), "pto": Lowering(None, pto_note or note)}


# --- parameters ------------------------------------------------------------------------------


def p_enum(name: str, doc: str, default: Any = REQUIRED, *extra: type) -> Param:
    """An enumeration attribute (``pl.PadValue.zero``, ``pl.tile.MaskPattern.P0101``), which
    the language also takes as its integer value."""
    return p_attr(name, doc, (Enum, int, *extra), default)


def p_text(name: str, doc: str, default: Any = REQUIRED) -> Param:
    return p_attr(name, doc, (str,), default)


def p_flag(name: str, doc: str, default: bool = False) -> Param:
    return p_attr(name, doc, (bool,), default)


def p_dtype(name: str, doc: str, default: Any = REQUIRED) -> Param:
    types: tuple[type, ...] = (DataType,) if default is REQUIRED else (DataType, type(None))
    return p_attr(name, doc, types, default)


def p_list(name: str, doc: str, default: Any = REQUIRED) -> Param:
    return Param(name, doc, accepts=("shape",), default=default)


def p_value(name: str, doc: str, default: Any = REQUIRED) -> Param:
    return Param(name, doc, accepts=("scalar",), default=default)


def p_shaped(name: str, doc: str, kind: Kind, default: Any = REQUIRED, **more: Any) -> Param:
    """A tile (in Vec unless ``spaces`` says otherwise) or a tensor operand."""
    if kind == "tensor":
        return Param(name, doc, accepts=("tensor",), default=default, **more)
    more.setdefault("spaces", (MEMORY_VEC,))
    return Param(name, doc, accepts=("tile",), default=default, **more)


# --- checks ----------------------------------------------------------------------------------


def require_dtypes(name: str, dtypes: tuple[DataType, ...]) -> Callable[[DeduceContext], None]:
    """An extra check of an element-wise rule: the operand's dtype is one of ``dtypes``."""

    def check(ctx: DeduceContext) -> None:
        dtype = ctx.shaped(name).dtype
        if dtype not in dtypes:
            wanted = ", ".join(d.name for d in dtypes)
            ctx.fail(
                f"{ctx.op.name}: argument '{name}' must be {wanted}, got {dtype.name}", at=name
            )

    return check


def vector_check(axis: int) -> Callable[[DeduceContext], None]:
    """The second operand is a per-row (``axis`` -1: [..., rows, 1]) or per-column (``axis``
    -2: [..., 1, cols]) vector matching the first operand's rows / columns."""

    def check(ctx: DeduceContext) -> None:
        first, second = expr_params(ctx)[:2]
        x, vec = ctx.shaped(first), ctx.shaped(second)
        require_rank(ctx, first, x, at_least=2)
        require_rank(ctx, second, vec, at_least=2)
        other = -2 if axis == -1 else -1
        what = "last dimension" if axis == -1 else "first of its last two dimensions"
        if static_value(vec.shape[axis]) not in (None, 1):
            ctx.fail(
                f"{ctx.op.name}: argument '{second}' must have {what} 1, got {vec.short()}",
                at=second,
                code="E307",
            )
        if dims_conflict(x.shape[other], vec.shape[other]):
            label = "rows" if axis == -1 else "columns"
            ctx.fail(
                f"{ctx.op.name}: '{first}' has {dim_str(x.shape[other])} {label} but "
                f"'{second}' has {dim_str(vec.shape[other])}",
                at=second,
                code="E307",
            )

    return check


def same_dtype(ctx: DeduceContext, names: Sequence[str]) -> DataType:
    """Operands that must share one element type (no promotion)."""
    first = ctx.shaped(names[0]).dtype
    for name in names[1:]:
        dtype = ctx.shaped(name).dtype
        if dtype is not first:
            ctx.fail(
                f"{ctx.op.name}: '{names[0]}' and '{name}' must have the same dtype, got "
                f"{first.name} and {dtype.name}",
                at=name,
            )
    return first


# MaskPattern (pl.tile.MaskPattern, integer values 1..7): the column stride each selects.
_MASK_STRIDE = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4, 6: 4, 7: 1}


def mask_stride(ctx: DeduceContext, source: ShapedType) -> tuple[int, int]:
    """The ``mask_pattern`` attribute's column stride and the columns of ``source`` it
    marks; E309 unless it is a pattern whose stride divides the (constant) columns."""
    pattern = ctx.attr("mask_pattern")
    number = pattern.value if isinstance(pattern, Enum) else pattern
    stride = _MASK_STRIDE.get(number) if type(number) is int else None
    cols = static_value(source.shape[-1]) if source.shape else None
    if stride is None or cols is None or cols % stride:
        ctx.fail(
            f"{ctx.op.name}: mask_pattern {pattern!r} is no pl.tile.MaskPattern (1..7) that "
            f"selects whole columns of {source.short()}",
            at="mask_pattern",
            code="E309",
        )
    return stride, cols // stride


def product_shape(
    ctx: DeduceContext,
    lhs: ShapedType,
    rhs: ShapedType,
    a_trans: bool = False,
    b_trans: bool = False,
) -> tuple[Expr, ...]:
    """[..., M, N] of lhs [..., M, K] @ rhs [..., K, N] (either transposed; batch dims
    broadcast); E307 at rhs when the constant Ks differ."""
    m, k = (lhs.shape[-1], lhs.shape[-2]) if a_trans else (lhs.shape[-2], lhs.shape[-1])
    k_rhs, n = (rhs.shape[-1], rhs.shape[-2]) if b_trans else (rhs.shape[-2], rhs.shape[-1])
    if dims_conflict(k, k_rhs):
        ctx.fail(
            f"{ctx.op.name}: inner dimensions differ: K of 'lhs' is {dim_str(k)} but K of "
            f"'rhs' is {dim_str(k_rhs)}",
            at="rhs",
            code="E307",
        )
    batch = broadcast_shapes(ctx, lhs.shape[:-2], rhs.shape[:-2], ("lhs", "rhs"))
    return (*batch, m, n)


def check_acc(ctx: DeduceContext, product: Sequence[Expr]) -> ShapedType:
    """The ``acc`` operand of an accumulating product: shaped like the product."""
    acc = ctx.shaped("acc")
    if acc.rank != len(product) or any(
        dims_conflict(a, b) for a, b in zip(acc.shape, product, strict=True)
    ):
        ctx.fail(
            f"{ctx.op.name}: 'acc' is {acc.short()} but the product is "
            f"[{', '.join(dim_str(d) for d in product)}]",
            at="acc",
            code="E307",
        )
    return acc


def gather_row_rule(target: str) -> TypeRule:
    """``gather_row(target, src, dst_offset, src_offset, shapes, transpose, valid_shape)``:
    the on-chip ``target`` (a tile, or create_l1's) updated with a window of DDR ``src``."""

    def deduce(ctx: DeduceContext) -> Type:
        dst, src = ctx.shaped(target), ctx.tensor("src")
        for name in ("dst_offset", "src_offset", "shapes"):
            if len(ctx.int_list(name)) != 2:
                ctx.fail(f"{ctx.op.name}: '{name}' must have 2 elements", at=name, code="E307")
        if ctx.attr("transpose") is True and ctx.has("valid_shape"):
            ctx.fail(
                f"{ctx.op.name}: valid_shape= cannot be combined with transpose=True",
                at="valid_shape",
                code="E309",
            )
        optional_shape(ctx, "valid_shape")
        if src.dtype is not dst.dtype:
            ctx.fail(
                f"{ctx.op.name}: 'src' must be {dst.dtype.name}, got {src.dtype.name}", at="src"
            )
        return dst

    return rule(deduce)


def optional_shape(ctx: DeduceContext, name: str) -> tuple[Expr, ...] | None:
    """An optional list argument (``valid_shape=None``): its elements, None when not given."""
    if not ctx.has(name):
        return None
    return ctx.int_list(name)


_PAD_BY_NAME = {mode.name: mode for mode in PadMode}
_PAD_BY_FLOAT = {0.0: PadMode.zero, float("inf"): PadMode.max, float("-inf"): PadMode.min}


def pad_mode(ctx: DeduceContext) -> PadMode:
    """``pad_value``: a PadValue member, its integer, or a 0 / +-inf literal."""
    value = ctx.attr("pad_value")
    name = getattr(value, "name", None)
    if isinstance(name, str) and name in _PAD_BY_NAME:
        return _PAD_BY_NAME[name]
    # the literals first: 0 pads with zeros (spec §11), not PadValue.null's number
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in _PAD_BY_FLOAT:
        return _PAD_BY_FLOAT[float(value)]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return PadMode(value)
    ctx.fail(
        f"{ctx.op.name}: pad_value must be pl.PadValue.zero / max / min or 0, inf, -inf, got "
        f"{value!r}",
        at="pad_value",
        code="E309",
    )


# --- rules -----------------------------------------------------------------------------------


def axis_reduce_rule(kind: Kind, axis: int, dtype: DataType | None = None) -> TypeRule:
    """``row_*`` (``axis`` -1) / ``col_*`` (``axis`` -2): that axis becomes 1 (a tile has at
    least 2 dimensions); other operands are scratch of the same kind. ``dtype``: the result's
    element type when it is not the operand's (an argmax's index)."""

    def deduce(ctx: DeduceContext) -> Type:
        names = expr_params(ctx)
        source = operand(ctx, names[0], kind)
        require_rank(ctx, names[0], source, at_least=2 if kind == "tile" else -axis)
        for helper in names[1:]:
            operand(ctx, helper, kind)
        shape = list(source.shape)
        shape[axis] = const_int(1)
        return same_kind(source, tuple(shape), dtype or source.dtype)

    return rule(deduce)


def part_rule(kind: Kind) -> TypeRule:
    """``part_add``-like: same-dtype operands; the result covers both (per dimension the larger
    extent where both are constants, else the first operand's)."""

    def deduce(ctx: DeduceContext) -> Type:
        first, second = expr_params(ctx)[:2]
        a, b = operand(ctx, first, kind), operand(ctx, second, kind)
        dtype = same_dtype(ctx, (first, second))
        if a.rank != b.rank:
            ctx.fail(
                f"{ctx.op.name}: '{first}' and '{second}' must have the same rank, got "
                f"{a.short()} and {b.short()}",
                at=second,
                code="E307",
            )
        shape = tuple(_larger(da, db) for da, db in zip(a.shape, b.shape, strict=True))
        return same_kind(a, shape, dtype)

    return rule(deduce)


def _larger(a: Expr, b: Expr) -> Expr:
    va, vb = static_value(a), static_value(b)
    return b if va is not None and vb is not None and vb > va else a


def concat_rule(kind: Kind) -> TypeRule:
    """Two operands of one dtype and the same rows side by side: the columns add up."""

    def deduce(ctx: DeduceContext) -> Type:
        first, second = expr_params(ctx)[:2]
        a, b = operand(ctx, first, kind), operand(ctx, second, kind)
        require_rank(ctx, first, a, at_least=2)
        require_rank(ctx, second, b, exactly=a.rank)
        dtype = same_dtype(ctx, (first, second))
        for index, (da, db) in enumerate(zip(a.shape[:-1], b.shape[:-1], strict=True)):
            if dims_conflict(da, db):
                ctx.fail(
                    f"{ctx.op.name}: dimension {index} differs: {dim_str(da)} and {dim_str(db)}",
                    at=second,
                    code="E307",
                )
        cols_a, cols_b = static_value(a.shape[-1]), static_value(b.shape[-1])
        if cols_a is None or cols_b is None:
            ctx.fail(
                f"{ctx.op.name}: the operands' column counts must be constants, got "
                f"{a.short()} and {b.short()}",
                at=second,
                code="E307",
            )
        return same_kind(a, (*a.shape[:-1], const_int(cols_a + cols_b)), dtype)

    return rule(deduce)


def set_valid_rule(kind: Kind) -> TypeRule:
    """``set_validshape(x, rows, cols)``: the same 2-D value, its valid region [rows, cols]."""

    def deduce(ctx: DeduceContext) -> Type:
        source_name, rows, cols = expr_params(ctx)[:3]
        source = operand(ctx, source_name, kind)
        require_rank(ctx, source_name, source, exactly=2)
        for name in (rows, cols):
            scalar = ctx.scalar(name)
            if not scalar.dtype.is_int:
                ctx.fail(f"{ctx.op.name}: argument '{name}' must be an integer", at=name)
        for name, dim in ((rows, source.shape[0]), (cols, source.shape[1])):
            value, extent = const_int_value(ctx.expr(name)), static_value(dim)
            if value is not None and (value < 0 or (extent is not None and value > extent)):
                ctx.fail(
                    f"{ctx.op.name}: '{name}' = {value} is outside 0..{dim_str(dim)}",
                    at=name,
                    code="E308",
                )
        if not isinstance(source, TileType):
            return source
        valid = (ctx.expr(rows), ctx.expr(cols))
        view = source.tile_view or TileView()
        return TileType(source.shape, source.dtype, tile_view=_with_valid(view, valid))

    return rule(deduce)


def _with_valid(view: TileView, valid: tuple[Expr, ...]) -> TileView:
    return records.replace(view, valid_shape=valid)


def reinterpret_rule(kind: Kind) -> TypeRule:
    """``reinterpret_view(x, dtype, shape=None)``: the same bytes as another element type; the
    last dimension scales by the byte widths unless ``shape`` is given (same byte count)."""

    def deduce(ctx: DeduceContext) -> Type:
        source_name = expr_params(ctx)[0]
        source = operand(ctx, source_name, kind)
        dtype = ctx.attr("dtype")
        if not isinstance(dtype, DataType):
            ctx.fail(
                f"{ctx.op.name}: attribute 'dtype' must be a data type", at="dtype", code="E309"
            )
        shape = optional_shape(ctx, "shape")
        if shape is None:
            shape = _rescaled(ctx, source, dtype, source_name)
        before = _bytes(source.shape, source.dtype)
        after = _bytes(shape, dtype)
        if before is not None and after is not None and before != after:
            ctx.fail(
                f"{ctx.op.name}: {source.short()} is {before} bytes but the view is {after}",
                at="shape" if ctx.has("shape") else "dtype",
                code="E307",
            )
        return same_kind(source, shape, dtype)

    return rule(deduce)


def _rescaled(ctx: DeduceContext, source: ShapedType, dtype: DataType, at: str) -> tuple[Expr, ...]:
    last = static_value(source.shape[-1]) if source.shape else None
    if last is None or (last * source.dtype.bits) % dtype.bits:
        ctx.fail(
            f"{ctx.op.name}: the last dimension of {source.short()} cannot be viewed as "
            f"{dtype.name} (give shape=)",
            at=at,
            code="E307",
        )
    return (*source.shape[:-1], const_int(last * source.dtype.bits // dtype.bits))


def _bytes(shape: Sequence[Expr], dtype: DataType) -> int | None:
    total = dtype.bits
    for dim in shape:
        value = static_value(dim)
        if value is None:
            return None
        total *= value
    return total // 8


def index_scalar_rule() -> TypeRule:
    """A query with no operands: an INDEX scalar (block index, block count, core counts)."""

    def deduce(ctx: DeduceContext) -> Type:
        return INDEX_SCALAR

    return rule(deduce)


def element_read_rule(kind: Kind) -> TypeRule:
    """``read(x, indices)``: one element as a scalar; one index per dimension (or one for a
    rank-1 operand)."""

    def deduce(ctx: DeduceContext) -> Type:
        source_name, indices_name = expr_params(ctx)[:2]
        source = operand(ctx, source_name, kind)
        _check_indices(ctx, source, indices_name)
        return ScalarType(source.dtype)

    return rule(deduce)


def element_write_rule(kind: Kind) -> TypeRule:
    """``write(x, indices, value)``: x with one element replaced; the result is x's type."""

    def deduce(ctx: DeduceContext) -> Type:
        source_name, indices_name, value_name = expr_params(ctx)[:3]
        source = operand(ctx, source_name, kind)
        _check_indices(ctx, source, indices_name)
        ctx.scalar(value_name)
        return source

    return rule(deduce)


def _check_indices(ctx: DeduceContext, source: ShapedType, name: str) -> None:
    indices = ctx.int_list(name)
    if len(indices) != source.rank:
        ctx.fail(
            f"{ctx.op.name}: expected {source.rank} indices for {source.short()}, got "
            f"{len(indices)}",
            at=name,
            code="E307",
        )
    for axis, (index, dim) in enumerate(zip(indices, source.shape, strict=True)):
        value, extent = const_int_value(index), static_value(dim)
        if value is not None and (value < 0 or (extent is not None and value >= extent)):
            ctx.fail(
                f"{ctx.op.name}: index {value} on dimension {axis} is outside 0..{extent}",
                at=name,
                code="E308",
            )
