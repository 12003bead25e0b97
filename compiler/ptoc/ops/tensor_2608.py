"""Tensor ops PyPTO 2026-08 added (spec pypto-2026-08.md section 9.1): ``pl.tensor.X``, IR
``tensor.X``. Like the 2026-03 tensor ops they run on the orchestration side, so neither kernel
target lowers them; where a block op computes the same on tiles with the same operands, it is the
op's ``block_form`` (ConvertTensorToBlockOps uses it inside InCore functions).
"""

from __future__ import annotations

from typing import Any

from .. import records
from ..ir.dtype import DataType, promote
from ..ir.expr import paired_constant
from ..ir.types import ScalarType, TensorType, Type
from .registry import Category, DeduceContext, Param, PipeType, Role, call_site
from .rules import (
    Elementwise,
    Entry,
    broadcast_shapes,
    entry,
    p_attr,
    row_reduce_rule,
    rule,
)
from .rules_2608 import (
    TENSOR_LOWERINGS,
    axis_reduce_rule,
    broadcast_families,
    concat_rule,
    elementwise_family,
    p_shaped,
    p_value,
    part_rule,
    registrar,
    require_dtypes,
)

_D = DataType


tensor_op = registrar("tensor", Category.TENSOR, pipe=PipeType.S, **TENSOR_LOWERINGS)


def _family(
    rows: tuple[Entry, ...], params: list[Param], spec: Elementwise, *more: Any, **traits: Any
) -> None:
    elementwise_family("tensor", tensor_op, rows, params, spec, *more, **traits)


def _tensor(name: str, doc: str, **more: Any) -> Param:
    return p_shaped(name, doc, "tensor", **more)


def _twin(name: str, description: str, **traits: Any) -> Entry:
    """A row whose block op of the same name computes the same on tiles; its definition is
    the line calling this."""
    file, site = call_site(2)
    row = entry(name, "", description, block_form=f"block.{name}", **traits)
    return records.replace(row, file=file, site=site)


_INPUT = [_tensor("input", "Tensor operand")]
_PRECISE = p_attr("high_precision", "Compute in the slower, more precise mode", (bool,), False)
_LHS = _tensor("lhs", "Left tensor operand")
_RHS = _tensor("rhs", "Right tensor operand (broadcast against lhs)")
_SCALAR_RHS = p_value("rhs", "Scalar applied to every element")

# --- element-wise ----------------------------------------------------------------------------

_family(
    (
        _twin("abs", "Element-wise absolute value."),
        _twin("neg", "Element-wise negation."),
        _twin("sqrt", "Element-wise square root."),
    ),
    _INPUT,
    Elementwise("t"),
)
_family(
    (
        entry("rsqrt", "", "Element-wise reciprocal square root."),
        _twin("recip", "Element-wise reciprocal."),
        entry("log", "", "Element-wise natural logarithm."),
    ),
    [*_INPUT, _PRECISE],
    Elementwise("t"),
)
_family(
    (
        _twin("sin", "Element-wise sine of an FP32 tensor."),
        _twin("cos", "Element-wise cosine of an FP32 tensor."),
    ),
    _INPUT,
    Elementwise("t"),
    require_dtypes("input", (_D.FP32,)),
)
_family(
    (_twin("not", "Element-wise bitwise NOT of an INT16 / UINT16 tensor.", dsl_names=("not_",)),),
    _INPUT,
    Elementwise("t"),
    require_dtypes("input", (_D.INT16, _D.UINT16)),
)
_family(
    (
        _twin("minimum", "Element-wise minimum of two tensors, with broadcasting."),
        _twin(
            "fmod",
            "Element-wise floating remainder of two tensors (C fmod: the sign of lhs).",
            scalar_form="tensor.fmods",
        ),
    ),
    [_LHS, _RHS],
    Elementwise("tt"),
)
_family(
    (
        _twin("and", "Element-wise bitwise AND of two integer tensors.", dsl_names=("and_",)),
        _twin("or", "Element-wise bitwise OR of two integer tensors.", dsl_names=("or_",)),
        entry("xor", "", "Element-wise bitwise XOR of two integer tensors."),
    ),
    [_LHS, _RHS],
    Elementwise("tt", integer=True),
)
_family(
    (
        _twin("shl", "Shift each element of lhs left by the matching element of rhs."),
        _twin("shr", "Shift each element of lhs right by the matching element of rhs."),
    ),
    [_LHS, _RHS],
    Elementwise("tt", integer=True, keep_lhs_dtype=True),
)
_family(
    (
        _twin("ands", "Bitwise AND of every element of an integer tensor with a scalar."),
        _twin("ors", "Bitwise OR of every element of an integer tensor with a scalar."),
        _twin("shls", "Shift every element of an integer tensor left by a scalar."),
        _twin("shrs", "Shift every element of an integer tensor right by a scalar."),
        entry("xors", "", "Bitwise XOR of every element of an integer tensor with a scalar."),
    ),
    [_LHS, _SCALAR_RHS],
    Elementwise("ts", integer=True, keep_lhs_dtype=True),
)
_family(
    (_twin("fmods", "Floating remainder of every element of a tensor by a scalar."),),
    [_LHS, _SCALAR_RHS],
    Elementwise("ts", keep_lhs_dtype=True),
)
_family(
    (entry("expands", "", "A tensor shaped like target with every element = scalar."),),
    [_tensor("target", "Tensor giving the result shape"), p_value("scalar", "The fill value")],
    Elementwise("ts", keep_lhs_dtype=True),
    role=Role.BROADCAST,
)

_CMP_TYPES = range(6)


@rule
def _cmp(ctx: DeduceContext) -> Type:
    """Tensor comparison: 1 / 0 in the promoted dtype, against a tensor or a scalar."""
    lhs = ctx.tensor("lhs")
    rhs = ctx.type("rhs")
    value = ctx.attr("cmp_type")
    if type(value) is not int or value not in _CMP_TYPES:
        ctx.fail(
            f"{ctx.op.name}: attribute 'cmp_type' must be 0..5 (EQ, NE, LT, LE, GT, GE), "
            f"got {value!r}",
            at="cmp_type",
            code="E309",
        )
    if isinstance(rhs, ScalarType):  # (2026-08's int literal takes the tensor's dtype)
        paired = paired_constant(ctx.expr("rhs"))
        return TensorType(lhs.shape, lhs.dtype if paired else promote(lhs.dtype, rhs.dtype))
    other = ctx.tensor("rhs")
    shape = broadcast_shapes(ctx, lhs.shape, other.shape, ("lhs", "rhs"))
    return TensorType(shape, promote(lhs.dtype, other.dtype))


tensor_op(
    entry(
        "cmp",
        "",
        "Element-wise comparison: 1 where it holds, else 0 (a scalar rhs compares every "
        "element with it).",
    ),
    [
        _LHS,
        Param("rhs", "Tensor (broadcast against lhs) or scalar", accepts=("tensor", "scalar")),
        p_attr("cmp_type", "Comparison: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE", (int,), 0),
    ],
    _cmp,
    "T(broadcast(lhs, rhs), promote(lhs, rhs)) of 1 / 0",
)

_PART = [_LHS, _tensor("rhs", "Right tensor, of lhs's dtype")]
for _row in (
    entry("part_add", "", "Sum where both tensors are valid; elsewhere the valid one."),
    entry("part_max", "", "Maximum where both tensors are valid; elsewhere the valid one."),
    entry("part_min", "", "Minimum where both tensors are valid; elsewhere the valid one."),
    entry("part_mul", "", "Product where both tensors are valid; elsewhere the valid one."),
):
    tensor_op(_row, _PART, part_rule("tensor"), "T(per dimension the larger of lhs, rhs, dtype)")

# --- broadcasts of a row / column vector -------------------------------------------------------

_ROW_VEC = _tensor("row_vec", "Per-row values: same rows, last dimension 1")
_COL_VEC = _tensor("col_vec", "Per-column values: [..., 1, cols]")
_SOURCE = _tensor("tensor", "Tensor of rank 2 or more")
broadcast_families(
    "tensor",
    tensor_op,
    (
        (
            -1,
            [_tensor("target", "Tensor giving the result shape"), _ROW_VEC],
            (entry("row_expand", "", "Broadcast row_vec[i] across row i, shaped like target."),),
        ),
        (
            -1,
            [_SOURCE, _ROW_VEC],
            (
                _twin("row_expand_add", "Add row_vec[i] to every element of row i."),
                _twin("row_expand_sub", "Subtract row_vec[i] from every element of row i."),
                _twin("row_expand_mul", "Multiply every element of row i by row_vec[i]."),
                _twin("row_expand_div", "Divide every element of row i by row_vec[i]."),
                _twin("row_expand_max", "Maximum of every element of row i and row_vec[i]."),
                _twin("row_expand_min", "Minimum of every element of row i and row_vec[i]."),
                _twin("row_expand_expdif", "exp(tensor - row_vec): per row, exponentiated."),
            ),
        ),
        (
            -2,
            [_SOURCE, _COL_VEC],
            (
                _twin("col_expand", "Broadcast col_vec down every row, shaped like tensor."),
                _twin("col_expand_add", "Add col_vec to every row."),
                _twin("col_expand_sub", "Subtract col_vec from every row."),
                _twin("col_expand_mul", "Multiply every row by col_vec."),
                _twin("col_expand_div", "Divide every row by col_vec."),
                _twin("col_expand_max", "Maximum of every row and col_vec."),
                _twin("col_expand_min", "Minimum of every row and col_vec."),
                _twin("col_expand_expdif", "exp(tensor - col_vec): per column, exponentiated."),
            ),
        ),
    ),
)

# --- reductions --------------------------------------------------------------------------------

_REDUCED = [_tensor("input", "Tensor reduced")]
for _row in (
    _twin("row_min", "Minimum of each row: the last dimension reduces to 1."),
    entry("row_prod", "", "Product of each row: the last dimension reduces to 1."),
):
    tensor_op(
        _row,
        _REDUCED,
        row_reduce_rule("tensor", 1),
        "T([..., 1], input.dtype)",
        role=Role.REDUCTION,
    )
for _row in (
    _twin("col_max", "Maximum of each column: the rows reduce to 1."),
    _twin("col_min", "Minimum of each column: the rows reduce to 1."),
    _twin("col_prod", "Product of each column: the rows reduce to 1."),
    _twin("col_sum", "Sum of each column: the rows reduce to 1."),
):
    tensor_op(
        _row,
        _REDUCED,
        axis_reduce_rule("tensor", -2),
        "T([..., 1, cols], input.dtype)",
        role=Role.REDUCTION,
    )
for _row, _axis, _doc in (
    (entry("row_argmax", "", "Column index of each row's maximum."), -1, "T([..., 1], INT32)"),
    (entry("row_argmin", "", "Column index of each row's minimum."), -1, "T([..., 1], INT32)"),
    (
        entry("col_argmax", "", "Row index of each column's maximum."),
        -2,
        "T([..., 1, cols], INT32)",
    ),
    (
        entry("col_argmin", "", "Row index of each column's minimum."),
        -2,
        "T([..., 1, cols], INT32)",
    ),
):
    tensor_op(
        _row, _REDUCED, axis_reduce_rule("tensor", _axis, _D.INT32), _doc, role=Role.REDUCTION
    )

tensor_op(
    entry("concat", "", "Two tensors side by side: src1's columns after src0's."),
    [_tensor("src0", "Left tensor"), _tensor("src1", "Right tensor: same rows and dtype")],
    concat_rule("tensor"),
    "T([..., src0.cols + src1.cols], dtype); equal other dims and dtypes",
)
