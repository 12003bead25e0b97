"""Building blocks of the type rules (spec dsl-surface.md sections 6 and 7).

Everything the tensor, block and system op modules share lives here: reading arguments and
attributes with precise errors, dtype promotion, broadcasting, axis normalisation, load/store
window checks, the tile views the memory spaces imply, one declarative element-wise rule used
by every element-wise family, and the helpers that register table-driven families while still
recording, for go-to-definition, the source line of each table entry.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ..ir.dtype import INDEX, DataType, promote
from ..ir.expr import (
    Binary,
    BinaryOp,
    ConstFloat,
    ConstInt,
    Expr,
    MakeTuple,
    Unary,
    UnaryOp,
    Var,
    const_int,
    paired_constant,
)
from ..ir.shape import dims_equal, folded_dim, num_elements, shape_str, static_value
from ..ir.types import (
    UNKNOWN,
    BLayout,
    MemorySpace,
    ScalarType,
    ShapedType,
    TensorType,
    TileType,
    TileView,
    Type,
    UnknownType,
)
from ..records import record
from .registry import (
    REGISTRY,
    REQUIRED,
    Access,
    Category,
    DeduceContext,
    Lowering,
    OpDef,
    Param,
    ParamKind,
    Site,
    TypedAttr,
    TypeRule,
    call_site,
)

Kind = Literal["tile", "tensor"]
Shape = tuple[Expr, ...]

# --------------------------------------------------------------------------------------------
# Rule wrapper: an operand whose type is unknown (an earlier error) ends deduction silently.
# --------------------------------------------------------------------------------------------


class _UnknownOperand(Exception):
    """Raised by argument readers when a nested value (a list element) has no type."""


def rule(fn: Callable[[DeduceContext], Type]) -> TypeRule:
    """Mark a function as a type rule: nested unknown operands yield UNKNOWN, not an error."""

    @functools.wraps(fn)
    def run(ctx: DeduceContext) -> Type:
        try:
            return fn(ctx)
        except _UnknownOperand:
            return UNKNOWN

    return run


# --------------------------------------------------------------------------------------------
# Reading arguments
# --------------------------------------------------------------------------------------------


def expr_params(ctx: DeduceContext) -> list[str]:
    """Names of the op's EXPR parameters that are bound, in signature order (lets one rule
    serve ops whose parameters are named differently)."""
    return [p.name for p in ctx.op.params if p.kind is ParamKind.EXPR and ctx.has(p.name)]


def operand(ctx: DeduceContext, name: str, kind: Kind) -> ShapedType:
    return ctx.tile(name) if kind == "tile" else ctx.tensor(name)


def const_int_value(expr: Expr) -> int | None:
    """The value of an integer literal, also when written negated (``-1``)."""
    if isinstance(expr, ConstInt):
        return expr.value
    if isinstance(expr, Unary) and expr.op is UnaryOp.Neg:
        inner = const_int_value(expr.operand)
        return None if inner is None else -inner
    return None


def is_number_literal(expr: Expr) -> bool:
    if isinstance(expr, ConstFloat) or const_int_value(expr) is not None:
        return True
    if isinstance(expr, Unary) and expr.op is UnaryOp.Neg:
        return isinstance(expr.operand, ConstFloat)
    return False


def const_int_arg(ctx: DeduceContext, name: str) -> int:
    """An EXPR argument that must be an integer literal (an axis)."""
    value = const_int_value(ctx.expr(name))
    if value is None:
        ctx.fail(
            f"{ctx.op.name}: argument '{name}' must be a constant integer, got "
            f"{ctx.type(name).short()}",
            at=name,
        )
    return value


def int_elements(ctx: DeduceContext, name: str) -> Shape:
    """The elements of a list argument, each an integer scalar."""
    value = ctx.expr(name)
    if isinstance(value, MakeTuple) and any(
        isinstance(element.type, UnknownType) for element in value.elements
    ):
        raise _UnknownOperand
    return tuple(folded_dim(e) for e in ctx.int_list(name))


_INDEX_ELEMENT_DTYPES = (DataType.INT64, DataType.UINT64, DataType.INDEX)


def index_elements(ctx: DeduceContext, name: str) -> Shape:
    """A list whose elements must be INT64 / UINT64 / INDEX scalars (block.view)."""
    elements = int_elements(ctx, name)
    for element in elements:
        et = element.type
        if isinstance(et, ScalarType) and et.dtype not in _INDEX_ELEMENT_DTYPES:
            ctx.fail(
                f"{ctx.op.name}: elements of '{name}' must be INT64 or UINT64 scalars, "
                f"got {et.short()}",
                at=name,
            )
    return elements


def static_positive_shape(ctx: DeduceContext, name: str) -> Shape:
    """A shape list whose every element is a positive integer literal (tile allocations), or
    a size fixed when the program is built (``ctx.symbols``)."""
    elements = int_elements(ctx, name)
    if not elements:
        ctx.fail(f"{ctx.op.name}: argument '{name}' must not be empty", at=name, code="E307")
    for index, element in enumerate(elements):
        value = const_int_value(element)
        if value is None and element in ctx.symbols:
            continue
        if value is None:
            ctx.fail(
                f"{ctx.op.name}: element {index} of '{name}' must be a constant integer "
                "(tile shapes are static)",
                at=name,
            )
        if value <= 0:
            ctx.fail(
                f"{ctx.op.name}: element {index} of '{name}' must be positive, got {value}",
                at=name,
                code="E307",
            )
    return elements


def require_integer(ctx: DeduceContext, name: str, dtype: DataType) -> None:
    if not dtype.is_int:
        ctx.fail(
            f"{ctx.op.name}: argument '{name}' must have an integer dtype, got {dtype.name}",
            at=name,
        )


def require_rank(
    ctx: DeduceContext, name: str, shaped: ShapedType, *, exactly: int = 0, at_least: int = 0
) -> None:
    if exactly and shaped.rank != exactly:
        ctx.fail(
            f"{ctx.op.name}: argument '{name}' must be {exactly}-D, got {shaped.rank}-D "
            f"{shaped.short()}",
            at=name,
            code="E307",
        )
    if shaped.rank < at_least:
        ctx.fail(
            f"{ctx.op.name}: argument '{name}' must be at least {at_least}-D, got "
            f"{shaped.rank}-D {shaped.short()}",
            at=name,
            code="E307",
        )


# --------------------------------------------------------------------------------------------
# Reading attributes (E309 on a bad value)
# --------------------------------------------------------------------------------------------


def _attr(ctx: DeduceContext, name: str, types: tuple[type, ...], what: str) -> Any:
    value = ctx.attr(name)
    if value is None:
        param = ctx.op.param(name)
        if param is not None and param.default is REQUIRED:
            ctx.fail(f"{ctx.op.name}: attribute '{name}' is required", at=name, code="E309")
        return None
    # bool is an int in Python; an int attribute must not silently take True/False.
    wrong_bool = isinstance(value, bool) and bool not in types
    if wrong_bool or not isinstance(value, types):
        ctx.fail(
            f"{ctx.op.name}: attribute '{name}' must be {what}, got {value!r}", at=name, code="E309"
        )
    return value


def attr_int(ctx: DeduceContext, name: str) -> int:
    value: int = _attr(ctx, name, (int,), "an integer")
    return value


def attr_bool(ctx: DeduceContext, name: str) -> bool:
    value = _attr(ctx, name, (bool,), "True or False")
    return bool(value)


def attr_dtype(ctx: DeduceContext, name: str) -> DataType | None:
    value: DataType | None = _attr(ctx, name, (DataType,), "a data type such as pl.FP32")
    return value


def attr_memory(ctx: DeduceContext, name: str, allowed: Sequence[MemorySpace]) -> MemorySpace:
    value: MemorySpace = _attr(ctx, name, (MemorySpace,), "a pl.MemorySpace")
    if value not in allowed:
        names = ", ".join(m.name for m in allowed)
        ctx.fail(
            f"{ctx.op.name}: attribute '{name}' must be one of {names}, got {value.name}",
            at=name,
            code="E309",
        )
    return value


# Rounding modes of cast, in the order of their integer codes 0..6.
CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def check_cast_mode(ctx: DeduceContext, name: str = "mode") -> None:
    value = _attr(ctx, name, (str, int), "a rounding mode")
    valid = value in CAST_MODES if isinstance(value, str) else 0 <= value < len(CAST_MODES)
    if not valid:
        ctx.fail(
            f"{ctx.op.name}: unknown cast mode {value!r}; expected one of " + ", ".join(CAST_MODES),
            at=name,
            code="E309",
        )


def normalize_axis(ctx: DeduceContext, axis: int, rank: int, at: str) -> int:
    """A possibly negative axis as an index into a rank-``rank`` shape (E309 if outside)."""
    if not -rank <= axis < rank:
        ctx.fail(
            f"{ctx.op.name}: axis {axis} is out of range for a {rank}-D operand "
            f"(expected {-rank}..{rank - 1})",
            at=at,
            code="E309",
        )
    return axis + rank if axis < 0 else axis


# --------------------------------------------------------------------------------------------
# Shapes and dtypes (spec section 6)
# --------------------------------------------------------------------------------------------


def promote_all(dtypes: Sequence[DataType]) -> DataType:
    result = dtypes[0]
    for dtype in dtypes[1:]:
        result = promote(result, dtype)
    return result


def _is_one(dim: Expr) -> bool:
    return static_value(dim) == 1


def broadcast_shapes(ctx: DeduceContext, a: Shape, b: Shape, names: tuple[str, str]) -> Shape:
    """Right-aligned broadcast: equal dims (``dims_equal``), or one side a constant 1; missing
    leading dims come from the longer shape. E307 at the second name otherwise."""
    result: list[Expr] = []
    for i in range(1, max(len(a), len(b)) + 1):
        if i > len(a) or i > len(b):
            result.append(b[-i] if i > len(a) else a[-i])
            continue
        da, db = a[-i], b[-i]
        if dims_equal(da, db) or _is_one(db):
            result.append(da)
        elif _is_one(da):
            result.append(db)
        else:
            ctx.fail(
                f"{ctx.op.name} requires compatible shapes, but got {shape_str(a)} and "
                f"{shape_str(b)} (arguments '{names[0]}' and '{names[1]}')",
                at=names[1],
                code="E307",
            )
    return tuple(reversed(result))


def broadcast_all(ctx: DeduceContext, operands: Sequence[tuple[str, ShapedType]]) -> Shape:
    shape = operands[0][1].shape
    first = operands[0][0]
    for name, shaped in operands[1:]:
        shape = broadcast_shapes(ctx, shape, shaped.shape, (first, name))
    return shape


def dims_conflict(a: Expr, b: Expr) -> bool:
    """Two dims that are certainly different: both static and unequal."""
    va, vb = static_value(a), static_value(b)
    return va is not None and vb is not None and va != vb


def same_kind(template: ShapedType, shape: Shape, dtype: DataType) -> ShapedType:
    """A fresh tensor or tile type (as ``template`` is) with the given shape and dtype."""
    if isinstance(template, TensorType):
        return TensorType(shape, dtype)
    return TileType(shape, dtype)


def check_reshape(ctx: DeduceContext, source: Shape, target: Shape, at: str) -> None:
    before, after = num_elements(source), num_elements(target)
    if before is not None and after is not None and before != after:
        ctx.fail(
            f"{ctx.op.name}: cannot reshape {shape_str(source)} ({before} elements) to "
            f"{shape_str(target)} ({after} elements)",
            at=at,
            code="E307",
        )


def check_window(
    ctx: DeduceContext, tensor: TensorType, offsets: Shape, sizes: Shape, names: tuple[str, str]
) -> None:
    """Offsets / sizes of a load or store: equal length >= 1 (E307), and, where the tensor's
    dim and the window are constants, inside the tensor (E308)."""
    offsets_name, sizes_name = names
    op = ctx.op.name
    if len(offsets) != len(sizes):
        ctx.fail(
            f"{op}: '{offsets_name}' and '{sizes_name}' must have the same length, got "
            f"{len(offsets)} and {len(sizes)}",
            at=sizes_name,
            code="E307",
        )
    if not sizes:
        ctx.fail(
            f"{op}: '{sizes_name}' must have at least one dimension", at=sizes_name, code="E307"
        )
    for axis, size_expr in enumerate(sizes):
        size = const_int_value(size_expr)
        if size is not None and size <= 0:
            ctx.fail(
                f"{op}: size {size} on dimension {axis} must be positive",
                at=sizes_name,
                code="E307",
            )
    for axis, offset_expr in enumerate(offsets):
        offset = const_int_value(offset_expr)
        if offset is not None and offset < 0:
            ctx.fail(
                f"{op}: offset {offset} on dimension {axis} is negative",
                at=offsets_name,
                code="E308",
            )
    if len(sizes) != tensor.rank:
        return  # the window does not map dimension by dimension onto the tensor
    for axis, (offset_expr, size_expr, dim) in enumerate(
        zip(offsets, sizes, tensor.shape, strict=True)
    ):
        extent, size = static_value(dim), const_int_value(size_expr)
        if extent is None or size is None:
            continue
        if size > extent:
            ctx.fail(
                f"{op}: size {size} on dimension {axis} exceeds the tensor's extent {extent}",
                at=sizes_name,
                code="E308",
            )
        offset = const_int_value(offset_expr)
        if offset is not None and offset + size > extent:
            ctx.fail(
                f"{op}: window {offset}..{offset + size} on dimension {axis} reaches outside "
                f"the tensor's extent {extent}",
                at=offsets_name,
                code="E308",
            )
        if offset is None and ctx.ranges:
            _check_window_in_loops(ctx, offset_expr, size, extent, axis, offsets_name)


def warn_window_past_tensor(
    ctx: DeduceContext,
    tensor: TensorType,
    offsets: Shape,
    sizes: Sequence[int | None],
    at: str,
) -> None:
    """W034 for a view or an assembly whose window reaches past the tensor, where the extent,
    the size and the offset (a constant, or the loops' constant bounds) are known. Upstream
    accepts it (its reference pads a slice past the end), so it is no error; on the device
    the kernel reads or writes memory outside the tensor."""
    if len(offsets) != len(sizes) or len(sizes) != tensor.rank:
        return
    for axis, (offset, size, dim) in enumerate(zip(offsets, sizes, tensor.shape, strict=True)):
        extent = static_value(dim)
        if extent is None or size is None:
            continue
        constant = const_int_value(offset)
        span = (constant, constant) if constant is not None else value_range(offset, ctx.ranges)
        if span is None or (span[0] >= 0 and span[1] + size <= extent):
            continue
        low, high = span
        moves = "" if constant is not None else " (at the loops' bounds)"
        ctx.warn(
            f"{ctx.op.name}: the window on dimension {axis} reaches {low}..{high + size}"
            f"{moves}, past the tensor's extent {extent}: the kernel reads or writes memory "
            "outside the tensor",
            at=at,
            code="W034",
        )
        return


def _check_window_in_loops(
    ctx: DeduceContext, offset: Expr, size: int, extent: int, axis: int, at: str
) -> None:
    """An offset that moves with loops of constant bounds: its window at the loops' extreme
    iterations must stay inside the tensor."""
    span = value_range(offset, ctx.ranges)
    if span is None:
        return
    low, high = span
    loops = [v for v in ctx.ranges if any(v is u for u in expr_vars_of(offset))]
    where = ", ".join(f"{v.name} in {ctx.ranges[v][0]}..{ctx.ranges[v][1]}" for v in loops)
    if low < 0:
        ctx.fail(
            f"{ctx.op.name}: with {where} the offset on dimension {axis} reaches {low}, "
            "before the tensor's start",
            at=at,
            code="E308",
        )
    if high + size > extent:
        ctx.fail(
            f"{ctx.op.name}: with {where} the window on dimension {axis} reaches "
            f"{high}..{high + size}, outside the tensor's extent {extent}",
            at=at,
            code="E308",
        )


def expr_vars_of(expr: Expr) -> list[Var]:
    if isinstance(expr, Var):
        return [expr]
    if isinstance(expr, Binary):
        return expr_vars_of(expr.lhs) + expr_vars_of(expr.rhs)
    if isinstance(expr, Unary):
        return expr_vars_of(expr.operand)
    return []


def value_range(expr: Expr, ranges: Mapping[Var, tuple[int, int]]) -> tuple[int, int] | None:
    """The least and greatest value of an integer expression of loop variables (interval
    arithmetic over + - * and floor division by a positive constant); None when unknown."""
    if isinstance(expr, ConstInt):
        return expr.value, expr.value
    if isinstance(expr, Var):
        return next((r for v, r in ranges.items() if v is expr), None)
    if isinstance(expr, Unary) and expr.op is UnaryOp.Neg:
        inner = value_range(expr.operand, ranges)
        return None if inner is None else (-inner[1], -inner[0])
    if not isinstance(expr, Binary):
        return None
    lhs, rhs = value_range(expr.lhs, ranges), value_range(expr.rhs, ranges)
    if lhs is None or rhs is None:
        return None
    if expr.op is BinaryOp.Add:
        return lhs[0] + rhs[0], lhs[1] + rhs[1]
    if expr.op is BinaryOp.Sub:
        return lhs[0] - rhs[1], lhs[1] - rhs[0]
    if expr.op is BinaryOp.Mul:
        products = [a * b for a in lhs for b in rhs]
        return min(products), max(products)
    if expr.op is BinaryOp.FloorDiv and rhs[0] == rhs[1] and rhs[0] > 0:
        return lhs[0] // rhs[0], lhs[1] // rhs[0]
    return None


# --------------------------------------------------------------------------------------------
# Tile views implied by memory spaces (pto-isa tile layouts)
# --------------------------------------------------------------------------------------------

MAT_VIEW = TileView(blayout=BLayout.col_major, slayout=BLayout.row_major)
LEFT_VIEW = TileView(blayout=BLayout.row_major, slayout=BLayout.row_major)
RIGHT_VIEW = TileView(blayout=BLayout.row_major, slayout=BLayout.col_major)
# Matmul results live in Acc: column-major blocks of row-major 1024-byte fractals.
ACC_VIEW = TileView(blayout=BLayout.col_major, slayout=BLayout.row_major, fractal=1024)

_VIEW_BY_MEMORY: dict[MemorySpace, TileView] = {
    MemorySpace.Mat: MAT_VIEW,
    MemorySpace.Left: LEFT_VIEW,
    MemorySpace.Right: RIGHT_VIEW,
    MemorySpace.Acc: ACC_VIEW,
}


def view_for(memory: MemorySpace) -> TileView | None:
    """The tile view of a tile placed in ``memory`` (None: the default row-major view)."""
    return _VIEW_BY_MEMORY.get(memory)


def moved_view(memory: MemorySpace, transpose: bool) -> TileView | None:
    """The view of a ``block.move`` result, as the original sets it: the default view with the
    scatter layout of a Left / Right operand (Vec and Mat keep the default); a transpose swaps
    block and scatter layouts, or flips the block layout when there is no scatter layout."""
    scatter = {MemorySpace.Left: BLayout.row_major, MemorySpace.Right: BLayout.col_major}
    view = TileView(slayout=scatter.get(memory, BLayout.none_box))
    if transpose:
        if view.slayout is BLayout.none_box:
            view = TileView(blayout=BLayout.col_major)
        else:
            view = TileView(blayout=view.slayout, slayout=view.blayout)
    return None if view.is_default() else view


# --------------------------------------------------------------------------------------------
# Generic rules shared by tensor and block ops
# --------------------------------------------------------------------------------------------

# Roles of an element-wise op's EXPR parameters, one letter each, in order:
#   t  shaped operand: joins the broadcast and the promotion
#   s  scalar operand: joins the promotion
#   v  shaped operand that joins the promotion only (a row / column vector)
#   x  shaped helper (a tmp buffer, a mask): must be of the op's kind, nothing else
#   m  scalar helper (a select mode): must be a scalar, nothing else


@record(frozen=True, slots=True)
class Elementwise:
    roles: str
    integer: bool = False  # t / s / v operands must have integer dtypes
    keep_lhs_dtype: bool = False  # result dtype is the first operand's, not the promotion
    float_result: bool = False  # a non-float result dtype becomes FP32 (tensor.exp)

    def promoted(self, names: Sequence[str]) -> tuple[str, ...]:
        """The shaped operands (roles t and v) converted to the result's dtype before the
        instruction (``OpDef.promoted``): none when the result keeps the first operand's dtype
        or becomes a float, or when one tile only joins the promotion (a tile and scalars: the
        code generators convert it into the destination in place)."""
        if self.keep_lhs_dtype or self.float_result:
            return ()
        shaped = tuple(n for n, r in zip(names, self.roles, strict=False) if r in "tv")
        return shaped if len(shaped) > 1 else ()


def warn_index_scalar(ctx: DeduceContext, name: str, paired: DataType) -> None:
    """W029: a scalar operand of INDEX dtype that is a variable of the function (a loop
    variable, a dimension). PyPTO 2026-08 re-types only constants to the tile's dtype and
    rejects the others (spec §4); the fix converts it. INDEX exists in 2026-08 only."""
    value = ctx.expr(name)
    # (a builder's parameters, and values made of them, are closure constants upstream folds)
    if not isinstance(value, Var) or value in ctx.symbols or not isinstance(value.type, ScalarType):
        return
    if value.type.dtype is DataType.INDEX:
        ctx.warn(
            f"{ctx.op.short_name}: '{name}' is an INDEX variable; PyPTO 2026-08 gives only a "
            f"constant the tile's dtype and rejects this operand: convert it with "
            f"pl.cast({name}, pl.{paired.name})",
            code="W029",
            at=name,
            cast=paired,
        )


def elementwise(
    kind: Kind, spec: Elementwise, extra: Callable[[DeduceContext], None] | None = None
) -> TypeRule:
    """The rule of every element-wise op: kinds, dtype checks, broadcast, promotion."""

    def deduce(ctx: DeduceContext) -> Type:
        names = expr_params(ctx)
        shaped: list[tuple[str, ShapedType]] = []
        dtypes: list[DataType] = []
        for name, role in zip(names, spec.roles, strict=False):
            if role in "tvx":
                value: ShapedType | ScalarType = operand(ctx, name, kind)
            else:
                value = ctx.scalar(name)
            if role in "tsv":
                if spec.integer:
                    require_integer(ctx, name, value.dtype)
                if role != "s" or not paired_constant(ctx.expr(name)):
                    dtypes.append(value.dtype)
            if role == "t":
                assert isinstance(value, ShapedType)
                shaped.append((name, value))
        if extra is not None:
            extra(ctx)
        for name, role in zip(names, spec.roles, strict=False):
            if role == "s" and shaped:
                warn_index_scalar(ctx, name, shaped[0][1].dtype)
        shape = broadcast_all(ctx, shaped)
        dtype = dtypes[0] if spec.keep_lhs_dtype else promote_all(dtypes)
        if spec.float_result and not dtype.is_float:
            dtype = DataType.FP32
        return same_kind(shaped[0][1], shape, dtype)

    return rule(deduce)


def elementwise_doc(kind: Kind, spec: Elementwise, names: Sequence[str]) -> str:
    """The one-line rule summary, e.g. ``t(broadcast(lhs, rhs), promote(lhs, rhs))``."""
    roles = list(zip(names, spec.roles, strict=False))
    shaped = [n for n, r in roles if r == "t"]
    typed = [n for n, r in roles if r in "tsv"]
    shape = f"broadcast({', '.join(shaped)})" if len(shaped) > 1 else f"{shaped[0]}.shape"
    dtype = (
        f"{typed[0]}.dtype"
        if spec.keep_lhs_dtype or len(typed) == 1
        else (f"promote({', '.join(typed)})")
    )
    if spec.float_result:
        dtype = f"float({dtype})"
    return f"{'t' if kind == 'tile' else 'T'}({shape}, {dtype})"


def cast_rule(kind: Kind) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        source = operand(ctx, expr_params(ctx)[0], kind)
        target = attr_dtype(ctx, "target_type")
        check_cast_mode(ctx)
        assert target is not None  # required attribute
        return same_kind(source, source.shape, target)

    return rule(deduce)


def reshape_rule(kind: Kind) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        source_name, shape_name = expr_params(ctx)[:2]
        source = operand(ctx, source_name, kind)
        shape = int_elements(ctx, shape_name)
        check_reshape(ctx, source.shape, shape, shape_name)
        return same_kind(source, shape, source.dtype)

    return rule(deduce)


def transpose_rule(kind: Kind) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        source_name, first_name, second_name = expr_params(ctx)[:3]
        source = operand(ctx, source_name, kind)
        require_rank(ctx, source_name, source, at_least=2)
        first = normalize_axis(ctx, const_int_arg(ctx, first_name), source.rank, first_name)
        second = normalize_axis(ctx, const_int_arg(ctx, second_name), source.rank, second_name)
        if first == second:
            ctx.fail(
                f"{ctx.op.name}: the two axes must differ, got {first} twice",
                at=second_name,
                code="E309",
            )
        shape = list(source.shape)
        shape[first], shape[second] = shape[second], shape[first]
        return same_kind(source, tuple(shape), source.dtype)

    return rule(deduce)


def view_rule(kind: Kind) -> TypeRule:
    """``view(x, shape, offset)``: a window of ``shape`` at ``offset``, same dtype."""

    def deduce(ctx: DeduceContext) -> Type:
        source_name, shape_name, offset_name = expr_params(ctx)[:3]
        source = operand(ctx, source_name, kind)
        read = index_elements if kind == "tile" else int_elements
        shape = read(ctx, shape_name)
        offsets = read(ctx, offset_name)
        if isinstance(source, TensorType):
            sizes = [const_int_value(d) for d in shape]
            warn_window_past_tensor(ctx, source, offsets, sizes, offset_name)
        return same_kind(source, shape, source.dtype)

    return rule(deduce)


def row_reduce_rule(kind: Kind, min_rank: int) -> TypeRule:
    """``row_sum``-like: the last dim becomes 1; an optional second operand is a tmp buffer."""

    def deduce(ctx: DeduceContext) -> Type:
        names = expr_params(ctx)
        source = operand(ctx, names[0], kind)
        require_rank(ctx, names[0], source, at_least=min_rank)
        for helper in names[1:]:
            operand(ctx, helper, kind)
        return same_kind(source, (*source.shape[:-1], const_int(1)), source.dtype)

    return rule(deduce)


INDEX_SCALAR = ScalarType(INDEX)


# --------------------------------------------------------------------------------------------
# Parameters and lowerings, briefly
# --------------------------------------------------------------------------------------------


def p_tile(
    name: str,
    doc: str,
    default: Any = REQUIRED,
    *,
    spaces: tuple[MemorySpace, ...] = (),
    access: Access = Access.READ,
    staged_from: tuple[MemorySpace, ...] = (),
) -> Param:
    return Param(
        name,
        doc,
        default=default,
        accepts=("tile",),
        spaces=spaces,
        access=access,
        staged_from=staged_from,
    )


def p_tensor(name: str, doc: str, *, access: Access = Access.READ) -> Param:
    return Param(name, doc, accepts=("tensor",), access=access)


def p_scalar(name: str, doc: str) -> Param:
    return Param(name, doc, accepts=("scalar",))


def p_shape(name: str, doc: str) -> Param:
    return Param(name, doc, accepts=("shape",))


def p_attr(name: str, doc: str, types: tuple[type, ...], default: Any = REQUIRED) -> Param:
    return Param(name, doc, kind=ParamKind.ATTR, default=default, attr_types=types)


# Parameters a block op and its tensor form share, after the tile / tensor operand.
CAST_ATTRS = (
    p_attr("target_type", "Element type of the result", (DataType,)),
    p_attr("mode", "Rounding: none, rint, round, floor, ceil, trunc or odd", (str, int), "round"),
)
AXES_TO_SWAP = (
    Param("axis1", "First constant axis to swap", accepts=("scalar",)),
    Param("axis2", "Second constant axis to swap (different from axis1)", accepts=("scalar",)),
)


_ISA_NAME = re.compile(r"\bT[A-Z_]+\b")


def pto_name(instruction: str) -> str:
    """The PTO dialect op of a pto-isa instruction, as the dialect spells it: ``TROWSUM`` ->
    ``pto.trowsum``, ``TMATMUL_ACC`` -> ``pto.tmatmul.acc`` (variants are dotted suffixes)."""
    return "pto." + instruction.lower().replace("_", ".")


def _pto_or_none(instruction: str | None) -> str | None:
    return pto_name(instruction) if instruction is not None else None


def isa(
    instruction: str,
    note: str = "",
    pto_note: str | None = None,
    *,
    column_form: str | None = None,
    row_broadcast: str | None = None,
    col_broadcast: str | None = None,
    attr_args: tuple[str, ...] = (),
    operands: tuple[str, ...] | None = None,
    scratch: bool = False,
    pto_attrs: tuple[TypedAttr, ...] = (),
    pto_returns_value: bool = False,
    pto_unsupported: str | None = None,
    cce_unsupported: str | None = None,
    cce_dtypes: tuple[DataType, ...] = (),
    same_rows: bool = False,
    cce_byte_scratch: bool = False,
    space_pairs: tuple[tuple[MemorySpace, MemorySpace], ...] = (),
    **pto_only: Any,
) -> dict[str, Lowering]:
    """Both lowerings of a block op from its pto-isa names: ``TADD`` and ``pto.tadd`` (and
    likewise for the column and broadcast forms). The PTO note defaults to the CCE note with
    instruction names in their dialect spelling. Operands, scratch and same_rows are facts of
    the instruction (both targets); ``pto_*`` options are the dialect's own spelling;
    ``pto_unsupported`` says why the dialect has no form of this op (``cce_unsupported``: why
    pto-isa's C++ has none, the instruction of that name taking other operands). Any other ``pto_X``
    option is the PTO lowering's field X (``pto_dtypes``: the element types the dialect's
    instruction takes on A2/A3; ``cce_dtypes``: those pto-isa's A2/A3 implementation takes,
    where it asserts fewer than its CPU simulator)."""
    if pto_note is None:
        pto_note = _ISA_NAME.sub(lambda m: pto_name(m.group(0)), note)
    shared: dict[str, Any] = {"attr_args": attr_args, "operands": operands, "scratch": scratch}
    shared |= {"same_rows": same_rows, "space_pairs": space_pairs}
    cce = Lowering(
        instruction,
        note,
        column_form=column_form,
        row_broadcast=row_broadcast,
        col_broadcast=col_broadcast,
        dtypes=cce_dtypes,
        byte_scratch=cce_byte_scratch,
        **shared,
    )
    if cce_unsupported is not None:
        cce = Lowering(None, cce_unsupported)
    if pto_unsupported is not None:
        return {"cce": cce, "pto": Lowering(None, pto_unsupported)}
    pto = Lowering(
        pto_name(instruction),
        pto_note,
        column_form=_pto_or_none(column_form),
        row_broadcast=_pto_or_none(row_broadcast),
        col_broadcast=_pto_or_none(col_broadcast),
        typed_attrs=pto_attrs,
        returns_value=pto_returns_value,
        **{name.removeprefix("pto_"): value for name, value in pto_only.items()},
        **shared,
    )
    return {"cce": cce, "pto": pto}


# --------------------------------------------------------------------------------------------
# Table-driven registration that keeps a per-entry source line
# --------------------------------------------------------------------------------------------


_LOWERING_TRAITS = frozenset(
    {
        "column_form",
        "row_broadcast",
        "col_broadcast",
        "attr_args",
        "operands",
        "scratch",
        "pto_note",
        "pto_attrs",
        "pto_returns_value",
        "pto_unsupported",
        "cce_unsupported",
        "cce_dtypes",
        "same_rows",
        "cce_byte_scratch",
        "space_pairs",
        "pto_dtypes",
        "pto_bitwise",
        "pto_scalar_dtypes",
        "pto_tile_form",
        "pto_scalar_dtype",
        "pto_byte_scratch",
        "pto_vec_window",
        "pto_stated_by_type",
        "pto_index_operands",
        "pto_since_ptoas",
    }
)


@record(frozen=True, slots=True)
class Entry:
    """One row of a family table: its DSL name, pto-isa instruction and description, the
    traits that set it apart from its family (e.g. ``scalar_form``, ``column_form``), and the
    file and call where the row is written (recorded as the op's definition)."""

    name: str
    instruction: str
    description: str
    file: str
    site: Site
    note: str = ""  # a lowering note (e.g. how an attribute changes the instruction)
    traits: tuple[tuple[str, Any], ...] = ()  # OpDef fields of this row
    lowering_traits: tuple[tuple[str, Any], ...] = ()  # isa() options of this row

    def isa(self) -> dict[str, Lowering]:
        return isa(self.instruction, self.note, **dict(self.lowering_traits))


def entry(
    name: str,
    instruction: str,
    description: str,
    note: str = "",
    *,
    broadcast: str | None = None,
    **traits: Any,
) -> Entry:
    """A family row. ``broadcast="ADD"`` names the TROWEXPAND/TCOLEXPAND forms of a binary
    op; other keywords are op traits or lowering options."""
    source_file, source_site = call_site(2)
    if broadcast is not None:
        traits.update(
            row_broadcast="TROWEXPAND" + broadcast, col_broadcast="TCOLEXPAND" + broadcast
        )
    lowering = tuple((k, v) for k, v in traits.items() if k in _LOWERING_TRAITS)
    op_traits = tuple((k, v) for k, v in traits.items() if k not in _LOWERING_TRAITS)
    return Entry(
        name,
        instruction,
        description,
        source_file,
        source_site,
        note,
        op_traits,
        lowering,
    )


def register_entry(
    row: Entry,
    ir_name: str,
    category: Category,
    params: list[Param],
    type_rule: TypeRule,
    **extra: Any,
) -> OpDef:
    """Register a table row's op, its definition at the row (not at this helper)."""
    extra.update(row.traits)
    op = OpDef(
        name=ir_name,
        category=category,
        params=tuple(params),
        rule=type_rule,
        description=row.description,
        source_file=row.file,
        source_site=row.site,
        **extra,
    )
    return REGISTRY.add(op)
