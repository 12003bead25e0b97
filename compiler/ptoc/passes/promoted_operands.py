"""Tile operands of another dtype than an element-wise result, converted first.

The type rules promote (an FP16 tile plus an FP32 tile is FP32, as upstream's rules say in
both editions), but the instructions take every operand in the result's dtype: pto-isa's
TADD ``static_assert``s that dst, src0 and src1 share one (include/pto/npu/a2a3/TAdd.hpp,
TAddCheck), and so do the other binary instructions and PTO's ``pto.tadd`` ... .
``c = block.add(a_fp16, b_fp32)`` becomes ``c_lhs = block.cast(a_fp16, target_type=FP32,
mode="rint"); c = block.add(c_lhs, b_fp32)``: the converted tile is an IR tile, so the later
passes give it a buffer, reuse and synchronisation like any other. The operands converted are
the registration's ``OpDef.promoted``; ``rint`` is the conversion the interpreter computes
(round to nearest, ties to even) and the one the code generators use for a tile a scalar
promotes.
"""

from __future__ import annotations

from ..ir.expr import AttrValue, Call, Expr, Op, Var
from ..ir.span import Span
from ..ir.stmt import AssignStmt, Stmt
from ..ir.types import TileType
from ..ir.visitor import with_fields
from ..ops import OpDef, OpError, Role
from .irutil import NameAllocator
from .op_info import the_first

#: The rounding of a promoting conversion (module docstring).
PROMOTION_MODE = "rint"


def with_promoted_operands(
    stmt: AssignStmt, call: Call, op: OpDef, names: NameAllocator
) -> tuple[list[Stmt], AssignStmt] | None:
    """The conversions of ``call``'s promoted operands whose dtype is not the result's, and
    the assignment reading the converted tiles; None when every operand has the result's
    dtype (or a conversion's rule refuses it: code generation then reports the call)."""
    result = call.type
    if not op.promoted or not isinstance(result, TileType):
        return None
    bound = op.bind(call.args)
    positions = {name: index for index, name in enumerate(bound)}
    args = list(call.args)
    out: list[Stmt] = []
    cast = _conversion()
    for name in op.promoted:
        arg = bound.get(name)
        if arg is None or not isinstance(arg.type, TileType):
            continue
        if arg.type.dtype is result.dtype:
            continue
        kwargs: tuple[tuple[str, AttrValue], ...] = (
            ("target_type", result.dtype),
            ("mode", PROMOTION_MODE),
        )
        try:
            converted = _define(
                out, names.fresh(f"{stmt.var.name}_{name}"), cast, arg, kwargs, stmt
            )
        except OpError:
            return None
        args[positions[name]] = converted
    if not out:
        return None
    return out, with_fields(stmt, value=with_fields(call, args=tuple(args)))


def _conversion() -> OpDef:
    """The registry's element-type conversion of a tile (block.cast, TCVT)."""
    return the_first(Role.CAST, "block", lambda op: op.param("target_type") is not None)


def _define(
    out: list[Stmt],
    name: str,
    op: OpDef,
    arg: Expr,
    kwargs: tuple[tuple[str, AttrValue], ...],
    stmt: AssignStmt,
) -> Var:
    span: Span = stmt.value.span
    value_type = op.deduce(op.bind((arg,)), dict(kwargs))
    var = Var(value_type, name=name, span=span)
    call = Call(value_type, callee=Op(op.name), args=(arg,), kwargs=kwargs, span=span)
    out.append(AssignStmt(var, call, span=stmt.span))
    return var
