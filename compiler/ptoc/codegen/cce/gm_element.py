"""``pl.read(t, [i, j])`` in a kernel: one element of a tensor parameter (a paged-attention
block table), which the scalar unit reads from the parameter's memory: the parameter's
``__gm__`` pointer indexed by the element's row-major offset (no pto-isa instruction). The
tensor must be a parameter of static shape; another tensor (a view) has no pointer of its own
here: E400."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Expr, MakeTuple, Var
from ...ir.shape import static_shape
from ...ir.types import TensorType
from ..common import CodegenError
from . import expressions

if TYPE_CHECKING:
    from .context import FunctionContext


def read(ctx: FunctionContext, call: Call) -> str:
    """``block_table[(b * 16 + i)]``: the element's value (value mode)."""
    tensor, indices = call.args[0], call.args[1]
    pointer = None
    if isinstance(tensor, Var) and isinstance(tensor.type, TensorType):
        pointer = ctx.names.get_pointer(expressions.variable(ctx, tensor))
    if pointer is None:
        raise CodegenError(
            "E400",
            f"{call.op_name} in a kernel reads an element of a tensor parameter, through its "
            "pointer; this tensor has none of its own (read the parameter itself)",
            call.span,
        )
    assert isinstance(tensor, Var) and isinstance(tensor.type, TensorType)
    dims = static_shape(tensor.type.shape)
    if dims is None:
        raise CodegenError(
            "E400", f"{call.op_name} of '{tensor.name}': the tensor needs a static shape", call.span
        )
    index: list[Expr] = list(indices.elements) if isinstance(indices, MakeTuple) else [indices]
    if len(index) != len(dims):
        raise CodegenError(
            "E400",
            f"{call.op_name} of '{tensor.name}' gives {len(index)} indices for {len(dims)} "
            "dimensions",
            call.span,
        )
    terms: list[str] = []
    for position, expr in enumerate(index):
        stride = 1
        for dim in dims[position + 1 :]:
            stride *= dim
        text = expressions.operand(ctx, expr)
        terms.append(text if stride == 1 else f"({text}) * {stride}")
    return f"{pointer}[{' + '.join(terms)}]"
