"""``pl.read(t, [i, j])`` in a kernel: one element of a tensor parameter (a paged-attention
block table), which the scalar unit reads from the parameter's memory: the parameter's
``__gm__`` pointer indexed by the element's row-major offset (no pto-isa instruction). The
tensor must be a parameter of static shape; another tensor (a view) has no pointer of its own
here: E400."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.expr import Call, Var
from ...ir.types import TensorType
from ..gm_index import element_terms
from . import expressions

if TYPE_CHECKING:
    from .context import FunctionContext


def read(ctx: FunctionContext, call: Call) -> str:
    """``block_table[(b * 16 + i)]``: the element's value (value mode)."""
    tensor = call.args[0]
    pointer = None
    if isinstance(tensor, Var) and isinstance(tensor.type, TensorType):
        pointer = ctx.names.get_pointer(expressions.variable(ctx, tensor))
    _, terms = element_terms(call, pointer is not None, call.span)
    offset: list[str] = []
    for expr, stride in terms:
        text = expressions.operand(ctx, expr)
        offset.append(text if stride == 1 else f"({text}) * {stride}")
    return f"{pointer}[{' + '.join(offset)}]"
