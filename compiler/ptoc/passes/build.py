"""The index tuples (offsets, shapes) of the op calls the passes insert (``ops.registry.op_call``
builds the calls)."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.dtype import INDEX
from ..ir.expr import Expr, MakeTuple, const_int, make_tuple
from ..ir.span import Span


def index_tuple(values: Sequence[Expr | int], span: Span) -> MakeTuple:
    """Offsets or a shape: integers become INDEX constants."""
    return make_tuple(
        tuple(const_int(v, INDEX, span) if isinstance(v, int) else v for v in values), span
    )
