"""``pl.read(t, [i, j])`` in a kernel: one element of a tensor parameter (a paged-attention
block table), which the scalar unit reads from the parameter's memory:
``%v = pto.load_scalar %argN[%offset] : !pto.ptr<T> -> T`` at the element's row-major offset.
The tensor must be a parameter of static shape; another tensor (a view) has no pointer of its
own here: E400."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Var
from ...ir.span import Span
from ..gm_index import element_terms
from . import expressions
from . import mlir_types as mt

if TYPE_CHECKING:
    from .context import FunctionContext, Value

INSTRUCTION = "pto.load_scalar"


def read(ctx: FunctionContext, call: Call, span: Span) -> Value:
    tensor = call.args[0]
    pointer = ctx.pointers.get(tensor) if isinstance(tensor, Var) else None
    tensor_type, terms = element_terms(call, pointer is not None, span)
    assert pointer is not None
    offset: Value | None = None
    for expr, stride in terms:
        term = expressions.index(ctx, expr, span)
        if stride != 1:
            factor = ctx.constants.integer(stride)
            term = ctx.emit_result(mt.INDEX, f"arith.muli {term.name}, {factor.name} : index")
        if offset is None:
            offset = term
        else:
            offset = ctx.emit_result(mt.INDEX, f"arith.addi {offset.name}, {term.name} : index")
    assert offset is not None
    element = mt.element_type(tensor_type.dtype, span)
    return ctx.emit_result(
        element, f"{INSTRUCTION} {pointer.name}[{offset.name}] : {pointer.type} -> {element}"
    )
