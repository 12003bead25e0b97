"""Tensor ops (``tensor.*``, spec dsl-surface.md section 7.1): whole N-D tensors in DDR.

They run on the orchestration side, so neither kernel target lowers them; in an InCore
function, ConvertTensorToBlockOps replaces each op that has a ``block_form`` by that block op.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ..editions import Edition
from ..ir.dtype import DataType
from ..ir.expr import Expr, const_int, make_tuple
from ..ir.shape import dim_str, static_value
from ..ir.types import ScalarType, TensorType, Type
from .registry import (
    GM_ELEMENT,
    Access,
    Category,
    DeduceContext,
    EditionForm,
    Lowering,
    Param,
    PipeType,
    Role,
    TypeRule,
)
from .rules import (
    AXES_TO_SWAP,
    CAST_ATTRS,
    INDEX_SCALAR,
    Elementwise,
    Entry,
    Shape,
    attr_bool,
    attr_dtype,
    broadcast_shapes,
    cast_rule,
    const_int_arg,
    dims_conflict,
    elementwise,
    elementwise_doc,
    entry,
    int_elements,
    normalize_axis,
    p_attr,
    p_scalar,
    p_shape,
    p_tensor,
    promote_all,
    register_entry,
    require_rank,
    reshape_rule,
    row_reduce_rule,
    rule,
    transpose_rule,
    view_rule,
    warn_window_past_tensor,
)

_NO_KERNEL = Lowering(None, "tensor ops run on the orchestration side; use block ops in kernels")
_TENSOR = {"pipe": PipeType.S, "cce": _NO_KERNEL, "pto": _NO_KERNEL}


# --- rules of the ops that are not element-wise --------------------------------------------


@rule
def _create(ctx: DeduceContext) -> Type:
    shape = int_elements(ctx, "shape")
    dtype = attr_dtype(ctx, "dtype")
    assert dtype is not None  # a required attribute: attr_dtype failed otherwise
    return TensorType(shape, dtype)


@rule
def _read(ctx: DeduceContext) -> Type:
    tensor = ctx.tensor("tensor")
    indices = int_elements(ctx, "indices")
    if len(indices) != tensor.rank:
        ctx.fail(
            f"{ctx.op.name}: expected {tensor.rank} indices for the {tensor.rank}-D tensor, "
            f"got {len(indices)}",
            at="indices",
            code="E307",
        )
    return ScalarType(tensor.dtype)


@rule
def _dim(ctx: DeduceContext) -> Type:
    tensor = ctx.tensor("tensor")
    normalize_axis(ctx, const_int_arg(ctx, "axis"), tensor.rank, "axis")
    return INDEX_SCALAR


@rule
def _assemble(ctx: DeduceContext) -> Type:
    target = ctx.tensor("target")
    source = ctx.tensor("source")
    offsets = int_elements(ctx, "offset")
    sizes = [static_value(d) for d in source.shape]
    warn_window_past_tensor(ctx, target, offsets, sizes, "offset")
    return TensorType(target.shape, target.dtype)


def _matmul_operand(
    shaped: TensorType, transposed: bool, *, is_lhs: bool
) -> tuple[Shape, Shape, Expr]:
    """(batch dims, the M or N dim it contributes, its K dim). A 1-D operand is a vector:
    its only dim is K and it adds no M / N dim to the result."""
    if shaped.rank == 1:
        return (), (), shaped.shape[0]
    rows, cols = shaped.shape[-2], shaped.shape[-1]
    if transposed:
        rows, cols = cols, rows
    return (shaped.shape[:-2], (rows,), cols) if is_lhs else (shaped.shape[:-2], (cols,), rows)


@rule
def _matmul(ctx: DeduceContext) -> Type:
    lhs, rhs = ctx.tensor("lhs"), ctx.tensor("rhs")
    a_trans, b_trans = attr_bool(ctx, "a_trans"), attr_bool(ctx, "b_trans")
    attr_bool(ctx, "c_matrix_nz")
    out_dtype = attr_dtype(ctx, "out_dtype")
    require_rank(ctx, "lhs", lhs, at_least=1)
    require_rank(ctx, "rhs", rhs, at_least=1)
    lhs_batch, m_dims, k_lhs = _matmul_operand(lhs, a_trans, is_lhs=True)
    rhs_batch, n_dims, k_rhs = _matmul_operand(rhs, b_trans, is_lhs=False)
    if dims_conflict(k_lhs, k_rhs):
        ctx.fail(
            f"{ctx.op.name}: inner dimensions differ: K of 'lhs' is {dim_str(k_lhs)} but K of "
            f"'rhs' is {dim_str(k_rhs)}",
            at="rhs",
            code="E307",
        )
    batch = broadcast_shapes(ctx, lhs_batch, rhs_batch, ("lhs", "rhs"))
    dtype = out_dtype or promote_all([lhs.dtype, rhs.dtype])
    return TensorType((*batch, *m_dims, *n_dims), dtype)


# --- registrations: creation, access and layout ----------------------------------------------

_DTYPE = (DataType,)
_VIEW = {"role": Role.VIEW, "aliases": "tensor"}  # views of a tensor's storage: no copy


def _reinterpreted(args: dict[str, Expr]) -> dict[str, Expr]:
    """2026-08's ``view(tensor, shape=None, valid_shape=None)`` reinterprets the whole tensor:
    a window at its start (the valid shape is not modelled)."""
    tensor = args["tensor"]
    dims = tensor.type.shape if isinstance(tensor.type, TensorType) else ()
    shape = args.get("shape") or make_tuple(tuple(dims), span=tensor.span)
    zeros = tuple(const_int(0, span=tensor.span) for _ in dims)
    return {"tensor": tensor, "shape": shape, "offset": make_tuple(zeros, span=tensor.span)}


_VIEW_2026_08 = EditionForm(
    Edition.V2026_08,
    (
        p_tensor("tensor", "Tensor to reinterpret"),
        Param("shape", "The new shape (default: the tensor's)", default=None, accepts=("shape",)),
        Param("valid_shape", "The valid region (not modelled)", default=None, accepts=("shape",)),
    ),
    _reinterpreted,
    "2026-08: view(tensor, shape=None, valid_shape=None, *, layout=None) reinterprets",
    meaning_note=(
        "valid_shape",
        "the third argument of pl.tensor.view is a valid shape in PyPTO 2026-08, not an "
        "offset (2026-03): this views the tensor from its start; write pl.tensor.slice(t, "
        "shape, offset) for a window",
    ),
)


def _tensor_op(
    row: Entry, params: list[Param], type_rule: TypeRule, doc: str, **traits: Any
) -> None:
    """Register a row's tensor op: ``traits`` are its family's, the row's own come first."""
    register_entry(
        row,
        f"tensor.{row.name}",
        Category.TENSOR,
        params,
        type_rule,
        type_rule_doc=doc,
        **traits,
        **_TENSOR,
    )


_tensor_op(
    entry(
        "create",
        "",
        "Create a tensor of the given shape and element type (contents undefined).",
        dsl_names=("create_tensor", "create"),
        role=Role.CREATE,
        unified_always=True,
    ),
    [
        p_shape("shape", "Shape of the new tensor: a list of integer scalars"),
        p_attr("dtype", "Element data type, e.g. pl.FP32", _DTYPE),
    ],
    _create,
    "T(shape, dtype)",
)
_tensor_op(
    entry(
        "read",
        "",
        "Read one element of a tensor as a scalar.",
        role=Role.SCALAR,
        # In a kernel, an element of a tensor parameter (a paged-attention block table) is
        # read by the scalar unit from the parameter's memory.
        cce=Lowering(GM_ELEMENT, "the parameter's pointer indexed by the element's offset"),
        pto=Lowering("pto.load_scalar"),
    ),
    [
        p_tensor("tensor", "Tensor to read from"),
        Param(
            "indices",
            "One integer index per dimension (a lone index for a rank-1 tensor)",
            accepts=("shape",),
            one_index=True,
        ),
    ],
    _read,
    "s(tensor.dtype); len(indices) == rank",
)
_tensor_op(
    entry(
        "dim",
        "",
        "The size of one dimension of a tensor, as an INDEX scalar.",
        role=Role.SCALAR,
        index_result=True,
        unified_always=True,
    ),
    [
        p_tensor("tensor", "Tensor whose dimension is queried"),
        Param("axis", "Constant axis, negative counts from the end", accepts=("scalar",)),
    ],
    _dim,
    "s(INDEX); axis in -rank..rank-1",
)
_tensor_op(
    entry("view", "", "A window of a tensor, without copying.", role=Role.VIEW, aliases="tensor"),
    [
        p_tensor("tensor", "Tensor to take a window of"),
        p_shape("shape", "Shape of the window (the rank may differ from the tensor's)"),
        p_shape("offset", "Start of the window in each dimension of the tensor"),
    ],
    view_rule("tensor"),
    "T(shape, tensor.dtype)",
    edition_forms=(_VIEW_2026_08,),
    **_VIEW,
)
_tensor_op(
    entry(
        "assemble",
        "",
        "Write a tensor into a region of a larger tensor; the result is the updated target.",
        role=Role.STORE,
        aliases="target",
        unified_always=True,
    ),
    [
        p_tensor("target", "Tensor written into", access=Access.WRITE),
        p_tensor("source", "Tensor whose contents are written"),
        p_shape("offset", "Where in 'target' the 'source' starts, per dimension"),
        p_attr(
            "atomic",
            "pl.AtomicType.Add adds 'source' into the region (split-K); default: overwrite",
            (Enum,),
            None,
        ),
    ],
    _assemble,
    "T(target.shape, target.dtype)",
)
_tensor_op(
    entry("reshape", "", "The same elements under a new shape.", block_form="block.reshape"),
    [
        p_tensor("tensor", "Tensor to reshape"),
        p_shape("shape", "New shape; static element counts must match"),
    ],
    reshape_rule("tensor"),
    "T(shape, tensor.dtype); same element count",
    **_VIEW,
)
_tensor_op(
    entry("transpose", "", "Swap two dimensions of a tensor.", block_form="block.transpose"),
    [p_tensor("tensor", "Tensor of rank 2 or more"), *AXES_TO_SWAP],
    transpose_rule("tensor"),
    "T(shape with axis1 and axis2 swapped, tensor.dtype)",
    **_VIEW,
)
_tensor_op(
    entry(
        "cast",
        "",
        "Convert every element to another data type.",
        role=Role.CAST,
        block_form="block.cast",
    ),
    [p_tensor("input", "Tensor to convert"), *CAST_ATTRS],
    cast_rule("tensor"),
    "T(input.shape, target_type)",
)
_tensor_op(
    entry(
        "matmul",
        "",
        "Matrix product with numpy-style batch broadcasting; 1-D operands act as vectors. "
        "Constant inner dimensions must agree.",
        role=Role.MATMUL,
        block_form="block.matmul",
    ),
    [
        p_tensor("lhs", "Left operand [..., M, K] (or a 1-D vector [K])"),
        p_tensor("rhs", "Right operand [..., K, N] (or a 1-D vector [K])"),
        p_attr(
            "out_dtype",
            "Result element type (default: promote(lhs, rhs))",
            (DataType, type(None)),
            None,
        ),
        p_attr("a_trans", "Use lhs transposed", (bool,), False),
        p_attr("b_trans", "Use rhs transposed", (bool,), False),
        p_attr("c_matrix_nz", "Produce the result in the NZ fractal layout", (bool,), False),
    ],
    _matmul,
    "T([*broadcast(batch), M, N], out_dtype or promote(lhs, rhs))",
)

# --- registrations: element-wise and row reductions ------------------------------------------

_TT = Elementwise("tt")
_TS = Elementwise("ts")


def _tensor_binary(row: Entry, spec: Elementwise, rhs: Param) -> None:
    params = [p_tensor("lhs", "Left tensor operand"), rhs]
    doc = elementwise_doc("tensor", spec, ["lhs", "rhs"])
    _tensor_op(row, params, elementwise("tensor", spec), doc)


_RHS_TENSOR = p_tensor("rhs", "Right tensor operand (broadcast against lhs)")
_RHS_SCALAR = p_scalar("rhs", "Scalar operand applied to every element")

for _row in (
    entry(
        "add",
        "",
        "Element-wise addition of two tensors, with broadcasting.",
        scalar_form="tensor.add_scalar",
        block_form="block.add",
    ),
    entry(
        "sub",
        "",
        "Element-wise subtraction of two tensors, with broadcasting.",
        scalar_form="tensor.sub_scalar",
        block_form="block.sub",
    ),
    entry(
        "mul",
        "",
        "Element-wise multiplication of two tensors, with broadcasting.",
        scalar_form="tensor.mul_scalar",
        block_form="block.mul",
    ),
    entry(
        "div",
        "",
        "Element-wise division of two tensors, with broadcasting.",
        scalar_form="tensor.div_scalar",
        block_form="block.div",
    ),
    entry(
        "maximum",
        "",
        "Element-wise maximum of two tensors, with broadcasting.",
        block_form="block.maximum",
    ),
):
    _tensor_binary(_row, _TT, _RHS_TENSOR)

# A scalar right operand of pl.add / pl.tensor.add resolves to these (printed without _scalar).
for _row in (
    entry(
        "add_scalar",
        "",
        "Add a scalar to every element of a tensor.",
        unified_always=True,
        block_form="block.adds",
    ),
    entry(
        "sub_scalar",
        "",
        "Subtract a scalar from every element of a tensor.",
        unified_always=True,
        block_form="block.subs",
    ),
    entry(
        "mul_scalar",
        "",
        "Multiply every element of a tensor by a scalar.",
        unified_always=True,
        block_form="block.muls",
    ),
    entry(
        "div_scalar",
        "",
        "Divide every element of a tensor by a scalar.",
        unified_always=True,
        block_form="block.divs",
    ),
):
    _tensor_binary(_row, _TS, _RHS_SCALAR)

_EXP = Elementwise("t", float_result=True)
_tensor_op(
    entry(
        "exp",
        "",
        "Element-wise natural exponential; a non-float input gives an FP32 result.",
        block_form="block.exp",
    ),
    [p_tensor("input", "Tensor operand")],
    elementwise("tensor", _EXP),
    elementwise_doc("tensor", _EXP, ["input"]),
)

for _row in (
    entry(
        "row_max",
        "",
        "Maximum of each row: the last dimension reduces to 1.",
        block_form="block.row_max",
    ),
    entry(
        "row_sum",
        "",
        "Sum of each row: the last dimension reduces to 1.",
        block_form="block.row_sum",
    ),
):
    _tensor_op(
        _row,
        [p_tensor("input", "Tensor of rank 1 or more")],
        row_reduce_rule("tensor", 1),
        "T([..., 1], input.dtype)",
        role=Role.REDUCTION,
    )
