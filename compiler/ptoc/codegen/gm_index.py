"""The row-major offset of one element of a tensor parameter read in a kernel (``pl.read(t,
[i, j])``), for both code generators: each reads it through the parameter's pointer. The
tensor must be a parameter of static shape; another tensor (a view) has no pointer of its
own there: E400."""

from __future__ import annotations

from ..ir.expr import Call, Expr, MakeTuple, Var
from ..ir.shape import static_shape
from ..ir.span import Span
from ..ir.types import TensorType
from .common import CodegenError


def element_terms(
    call: Call, has_pointer: bool, span: Span
) -> tuple[TensorType, list[tuple[Expr, int]]]:
    """The type of the tensor ``call`` reads and its element's offset as (index, stride)
    terms."""
    tensor, indices = call.args[0], call.args[1]
    if not has_pointer:
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
    terms: list[tuple[Expr, int]] = []
    for position, expr in enumerate(index):
        stride = 1
        for dim in dims[position + 1 :]:
            stride *= dim
        terms.append((expr, stride))
    return tensor.type, terms
