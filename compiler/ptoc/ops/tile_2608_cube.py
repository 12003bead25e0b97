"""Cube-side tile ops PyPTO 2026-08 added (spec pypto-2026-08.md section 9.1): the batched
accumulating matmul, the MX block-scale matmuls (scales in LeftScale / RightScale, spaces ptoc's
MemorySpace does not have yet, so their operands are not constrained), and the halves of a
``pl.split_aiv`` region. IR names ``block.X``, as in tile_2608.py.
"""

from __future__ import annotations

from ..ir.dtype import DataType
from ..ir.expr import Expr
from ..ir.shape import dim_str, static_value
from ..ir.types import MemorySpace, TileType, Type
from .registry import DeduceContext, PipeType, Role, TypeRule
from .rules import (
    ACC_VIEW,
    dims_conflict,
    entry,
    p_tile,
    require_rank,
    rule,
    view_for,
)
from .rules_2608 import check_acc, no_lowering, product_shape
from .tile_2608 import tile_op

_LEFT, _RIGHT, _ACC = MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc
_CUBE = {"pipe": PipeType.M, "role": Role.MATMUL, "result_space": _ACC}
_ACC_NOTE = "Result in Acc (FP32)."


def _product(ctx: DeduceContext, *, batched: bool = False) -> tuple[Expr, ...]:
    """The [..., M, N] of lhs [..., M, K] @ rhs [..., K, N] (batch dims broadcast)."""
    lhs, rhs = ctx.tile("lhs"), ctx.tile("rhs")
    for name, tile in (("lhs", lhs), ("rhs", rhs)):
        if batched:
            require_rank(ctx, name, tile, at_least=2)
        else:
            require_rank(ctx, name, tile, exactly=2)
    return product_shape(ctx, lhs, rhs)


def _acc_result(shape: tuple[Expr, ...], dtype: DataType) -> TileType:
    return TileType(shape, dtype, tile_view=ACC_VIEW)


@rule
def _batch_matmul_acc(ctx: DeduceContext) -> Type:
    lhs = ctx.tile("lhs")
    acc = check_acc(ctx, _product(ctx, batched=True))
    return _acc_result(acc.shape, DataType.FP32 if lhs.dtype.is_float else DataType.INT32)


tile_op(
    entry(
        "batch_matmul_acc",
        "",
        "Batched accumulating matrix product: acc + lhs @ rhs per batch index. " + _ACC_NOTE,
        aliases="acc",  # as block.matmul_acc: the sum is in the accumulator's own buffer
        **no_lowering("ptoc does not expand a batched product into per-batch matmuls yet"),
    ),
    [
        p_tile("acc", "Accumulators [..., M, N] (in Acc)", spaces=(_ACC,)),
        p_tile("lhs", "Left matrices [..., M, K] (in Left)", spaces=(_LEFT,)),
        p_tile("rhs", "Right matrices [..., K, N] (in Right)", spaces=(_RIGHT,)),
    ],
    _batch_matmul_acc,
    "t(acc.shape, FP32 if float else INT32); batch dims broadcast",
    **_CUBE,
)


def _scales(ctx: DeduceContext) -> None:
    for name in ("lhs_scale", "rhs_scale"):
        ctx.tile(name)


@rule
def _matmul_mx(ctx: DeduceContext) -> Type:
    _scales(ctx)
    shape = _product(ctx)
    if ctx.has("acc"):
        shape = check_acc(ctx, shape).shape
    if ctx.has("bias"):
        bias = ctx.tile("bias")
        if static_value(bias.shape[0]) not in (None, 1) or dims_conflict(bias.shape[-1], shape[-1]):
            ctx.fail(
                f"{ctx.op.name}: 'bias' must be [1, {dim_str(shape[-1])}], got {bias.short()}",
                at="bias",
                code="E307",
            )
    return _acc_result(shape, DataType.FP32)


_MX_LHS = p_tile("lhs", "Left matrix [M, K] (in Left)", spaces=(_LEFT,))
_MX_RHS = p_tile("rhs", "Right matrix [K, N] (in Right)", spaces=(_RIGHT,))
_MX_LHS_SCALE = p_tile("lhs_scale", "Block scales of lhs (in LeftScale)")
_MX_RHS_SCALE = p_tile("rhs_scale", "Block scales of rhs (in RightScale)")
_MX_DOC = "t([M, N], FP32) in Acc; K must agree"
_MX_SCALES = (
    "TMATMUL_MX / pto.tmatmul.mx read the scales from LeftScale / RightScale, spaces ptoc does "
    "not place tiles in yet"
)
tile_op(
    entry(
        "matmul_mx",
        "",
        "MX block-scale matrix product: (lhs * lhs_scale) @ (rhs * rhs_scale). " + _ACC_NOTE,
        **no_lowering(_MX_SCALES),
    ),
    [_MX_LHS, _MX_LHS_SCALE, _MX_RHS, _MX_RHS_SCALE],
    _matmul_mx,
    _MX_DOC,
    **_CUBE,
)
tile_op(
    entry(
        "matmul_mx_acc",
        "",
        "Accumulating MX block-scale matrix product: acc + (lhs * lhs_scale) @ (rhs * "
        "rhs_scale). " + _ACC_NOTE,
        aliases="acc",  # TMATMUL_MX(out, in, ..) adds into out, as TMATMUL_ACC does
        **no_lowering(_MX_SCALES),
    ),
    [
        p_tile("acc", "Accumulator [M, N] (in Acc)", spaces=(_ACC,)),
        _MX_LHS,
        _MX_LHS_SCALE,
        _MX_RHS,
        _MX_RHS_SCALE,
    ],
    _matmul_mx,
    "t(acc.shape, FP32) in Acc; M, N, K must agree",
    **_CUBE,
)
tile_op(
    entry(
        "matmul_mx_bias",
        "",
        "MX block-scale matrix product plus a bias row. " + _ACC_NOTE,
        **no_lowering(_MX_SCALES),
    ),
    [_MX_LHS, _MX_LHS_SCALE, _MX_RHS, _MX_RHS_SCALE, p_tile("bias", "Bias row [1, N] (in Bias)")],
    _matmul_mx,
    _MX_DOC + "; bias is [1, N]",
    **_CUBE,
)

# --- the halves of a pl.split_aiv region ----------------------------------------------------------


def _split_half(space: MemorySpace) -> TypeRule:
    """A tile of a pl.split_aiv region in ``space``: the region, not the op, sizes it."""

    def deduce(ctx: DeduceContext) -> Type:
        x = ctx.tile("x")
        return TileType(x.shape, x.dtype, tile_view=view_for(space))

    return rule(deduce)


_SPLIT = "only inside pl.split_aiv, whose region the front end lowers"
for _row, _space, _doc in (
    (
        entry(
            "aiv_shard",
            "",
            "Inside pl.split_aiv: this vector core's half of a tile, along the region's split "
            "axis (the region, not the op, halves the shape).",
            **no_lowering(_SPLIT),
        ),
        MemorySpace.Vec,
        "t(x.shape, x.dtype) in Vec; the split_aiv region halves its split axis",
    ),
    (
        entry(
            "aic_gather",
            "",
            "Inside pl.split_aiv: the two vector cores' halves rejoined for the cube core.",
            **no_lowering(_SPLIT),
        ),
        MemorySpace.Mat,
        "t(x.shape, x.dtype) in Mat; the split_aiv region doubles its split axis",
    ),
):
    tile_op(
        _row,
        [p_tile("x", "A tile of the split_aiv region")],
        _split_half(_space),
        _doc,
        pipe=PipeType.S,
        role=Role.VIEW,
        result_space=_space,
    )
