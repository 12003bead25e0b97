"""Building typed op calls for the passes that insert ops (ConvertTensorToBlockOps)."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.dtype import INDEX
from ..ir.expr import Call, Expr, MakeTuple, Op, const_int, make_tuple
from ..ir.span import Span
from ..ops.registry import OpDef, ParamKind


def op_call(
    op: OpDef, args: Sequence[Expr], kwargs: tuple[tuple[str, object], ...], span: Span
) -> Call:
    """A call of ``op`` typed by its rule, with its attributes as the front end records them:
    every one present (defaults filled), in parameter order. Raises OpError when the rule
    rejects the operands."""
    given = dict(kwargs)
    attrs = [p for p in op.params if p.kind is ParamKind.ATTR]
    for p in attrs:
        if p.name not in given and not p.required:
            given[p.name] = p.default
    canonical = tuple((p.name, given[p.name]) for p in attrs if p.name in given)
    deduced = op.deduce(op.bind(args), dict(canonical))  # type: ignore[arg-type]
    return Call(
        deduced,
        callee=Op(op.name),
        args=tuple(args),
        kwargs=canonical,  # type: ignore[arg-type]
        span=span,
    )


def index_tuple(values: Sequence[Expr | int], span: Span) -> MakeTuple:
    """Offsets or a shape: integers become INDEX constants."""
    return make_tuple(
        tuple(const_int(v, INDEX, span) if isinstance(v, int) else v for v in values), span
    )
