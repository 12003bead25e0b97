"""Valid regions on the CCE route (PyPTO 2026-08's ``pl.load(..., valid_shape=[..])``).

A tile whose type states a valid region smaller than its shape is declared with it when it is
constant (``Tile<..., -1, -1> t(16, 100)``, declarations.py); a region known only at run time
is set where the tile is defined (``t.SetValidShape(16, n);``). pto-isa's TLOAD copies as
many elements as its GlobalTensor's shape, which must equal the tile's valid shape, so a load
(and a store) copies through a GlobalTensor of the valid region (its dynamic extents given to
``Shape``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Expr
from ...ir.shape import static_value
from ...ir.types import TensorType, TileType
from ..common import CodegenError
from . import expressions
from .declarations import cpp_dtype, static_dims

if TYPE_CHECKING:
    from .context import FunctionContext

_DYNAMIC = -1


def valid_region(tile: TileType) -> tuple[Expr, ...] | None:
    """The tile's valid region when its type states one (None: the whole tile)."""
    view = tile.tile_view
    return view.valid_shape if view is not None else None


def is_dynamic(valid: tuple[Expr, ...]) -> bool:
    return any(static_value(d) is None for d in valid)


def set_valid_shape(ctx: FunctionContext, target: str, tile: TileType, call: Call) -> None:
    """``t.SetValidShape(rows, cols);`` for a tile whose valid region is known at run time
    (2-D: pto-isa's tiles are)."""
    valid = valid_region(tile)
    if valid is None or not is_dynamic(valid):
        return
    if len(valid) != 2:
        raise CodegenError(
            "E400",
            f"a {len(valid)}-D valid region known at run time has no pto-isa form (a tile's "
            "valid region is [rows, cols])",
            call.span,
        )
    rows, cols = (expressions.value(ctx, d) for d in valid)
    ctx.out.emit_line(f"{target}.SetValidShape({rows}, {cols});")


def region_global(
    ctx: FunctionContext,
    global_name: str,
    tensor: TensorType,
    address: str,
    tile: TileType,
    call: Call,
) -> str | None:
    """The GlobalTensor a load into (or a store of) a tile with a valid region copies: the
    region's shape (its run-time extents passed to ``Shape``) with the tensor's strides, at
    ``address``. None when the tile has no valid region of its own."""
    valid = valid_region(tile)
    if valid is None:
        return None
    what = f"tensor '{global_name}'"
    dims = static_dims(tensor.shape, what, call.span, follow_on=True)
    if len(valid) != len(dims):
        raise CodegenError(
            "E400",
            f"a {len(valid)}-D valid region of a load from the rank-{len(dims)} {what} has no "
            "pto-isa form",
            call.span,
        )
    padding = [1] * (5 - len(valid))
    statics = [static_value(d) for d in valid]
    shape = (
        "Shape<"
        + ", ".join(
            str(d) for d in [*padding, *(s if s is not None else _DYNAMIC for s in statics)]
        )
        + ">"
    )
    extents = [*map(str, padding), *(expressions.value(ctx, d) for d in valid)]
    stride = ctx.types.generate_stride_type(dims)
    element = cpp_dtype(tensor.dtype, what, call.span)
    name = ctx.names.reserve(global_name + "Valid")
    given = f", {shape}({', '.join(extents)})" if is_dynamic(valid) else ""
    ctx.out.emit_line(f"GlobalTensor<{element}, {shape}, {stride}> {name}({address}{given});")
    return name


def lower_set_valid_shape(
    ctx: FunctionContext, call: Call, target: str, target_type: object
) -> None:
    """``set_validshape(t, rows, cols)``: the result is a Tile at the source's address (the
    registry's ``aliases``: its MemRef is the source's) whose region is set here
    (``r.SetValidShape(rows, cols);``: ptoc declares every tile with dynamic valid extents)."""
    if not target or len(call.args) != 3:
        raise CodegenError("E400", "set_validshape needs a tile, its rows and columns", call.span)
    rows, cols = (expressions.value(ctx, d) for d in call.args[1:])
    ctx.out.emit_line(f"{target}.SetValidShape({rows}, {cols});")
