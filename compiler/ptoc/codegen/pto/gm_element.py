"""``pl.read(t, [i, j])`` in a kernel: one element of a tensor parameter (a paged-attention
block table), which the scalar unit reads from the parameter's memory:
``%v = pto.load_scalar %argN[%offset] : !pto.ptr<T> -> T`` at the element's row-major offset.
The tensor must be a parameter of static shape; another tensor (a view) has no pointer of its
own here: E400."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Expr, MakeTuple, Var
from ...ir.shape import static_shape
from ...ir.span import Span
from ...ir.types import TensorType
from ..common import CodegenError
from . import expressions
from . import mlir_types as mt

if TYPE_CHECKING:
    from .context import FunctionContext, Value

INSTRUCTION = "pto.load_scalar"


def read(ctx: FunctionContext, call: Call, span: Span) -> Value:
    tensor, indices = call.args[0], call.args[1]
    pointer = ctx.pointers.get(tensor) if isinstance(tensor, Var) else None
    if pointer is None:
        raise CodegenError(
            "E400",
            f"{call.op_name} in a kernel reads an element of a tensor parameter, through its "
            "pointer; this tensor has none of its own (read the parameter itself)",
            span,
        )
    assert isinstance(tensor, Var) and isinstance(tensor.type, TensorType)
    dims = static_shape(tensor.type.shape)
    if dims is None:
        raise CodegenError(
            "E400", f"{call.op_name} of '{tensor.name}': the tensor needs a static shape", span
        )
    index: list[Expr] = list(indices.elements) if isinstance(indices, MakeTuple) else [indices]
    if len(index) != len(dims):
        raise CodegenError(
            "E400",
            f"{call.op_name} of '{tensor.name}' gives {len(index)} indices for {len(dims)} "
            "dimensions",
            span,
        )
    offset: Value | None = None
    for position, expr in enumerate(index):
        stride = 1
        for dim in dims[position + 1 :]:
            stride *= dim
        term = expressions.index(ctx, expr, span)
        if stride != 1:
            factor = ctx.constants.integer(stride)
            term = ctx.emit_result(mt.INDEX, f"arith.muli {term.name}, {factor.name} : index")
        if offset is None:
            offset = term
        else:
            offset = ctx.emit_result(mt.INDEX, f"arith.addi {offset.name}, {term.name} : index")
    assert offset is not None
    element = mt.element_type(tensor.type.dtype, span)
    return ctx.emit_result(
        element, f"{INSTRUCTION} {pointer.name}[{offset.name}] : {pointer.type} -> {element}"
    )
