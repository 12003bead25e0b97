"""ISAMapper: which pto-isa instruction an op call becomes (seed 000, section 4).

Every fact comes from the op's registration: the instruction (``OpDef.cce``), its column form
for axis reductions (axis 0 -> TCOLSUM, axis 1 -> TROWSUM), the pipe a barrier orders, and the
attributes that become trailing C++ arguments (``Lowering.attr_args``: cast round modes,
compare modes). This module renders what depends on the call itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.expr import AttrValue, Call, Op
from ...ir.shape import static_shape
from ...ir.span import Span
from ...ir.types import ShapedType
from ...ops import REGISTRY, Category, OpDef, PipeType, Role
from ..common import CodegenError, axis_instruction
from .declarations import tile_rows_cols

ROUND_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
CMP_MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")


@dataclass(frozen=True, slots=True)
class ISAMapping:
    op: OpDef
    instruction: str
    # Attribute arguments, rendered, placed after the operands.
    attr_args: tuple[str, ...] = ()

    @property
    def op_name(self) -> str:
        return self.op.name

    @property
    def role(self) -> Role:
        return self.op.role

    @property
    def operand_names(self) -> tuple[str, ...]:
        """Names of the op's value (EXPR) parameters, in argument order."""
        return tuple(p.name for p in self.op.expr_params)


def pipe_name(value: AttrValue | PipeType, span: Span) -> str:
    """``PipeType.MTE2`` (or its number, or its name) -> ``PIPE_MTE2``."""
    if isinstance(value, PipeType):
        return "PIPE_" + value.name
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return "PIPE_" + PipeType(value).name
        except ValueError:
            pass
    if isinstance(value, str):
        name = value.upper().removeprefix("PIPE_")
        if name in PipeType.__members__:
            return "PIPE_" + name
    raise CodegenError("E400", f"not a hardware pipe: {value!r}", span)


def event_name(value: AttrValue, span: Span) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return f"EVENT_ID{value}"
    if isinstance(value, str) and value.startswith("EVENT_ID"):
        return value
    raise CodegenError("E400", f"not an event id: {value!r}", span)


def round_mode(value: AttrValue, span: Span) -> str:
    """A cast mode (name or its number 0..6) -> ``RoundMode::CAST_ROUND`` etc."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ROUND_MODES):
        value = ROUND_MODES[value]
    if isinstance(value, str) and value.lower() in ROUND_MODES:
        return "RoundMode::CAST_" + value.upper()
    raise CodegenError("E400", f"unsupported cast mode {value!r}", span)


def cmp_mode(value: AttrValue, span: Span) -> str:
    """A compare type (EQ 0, NE 1, LT 2, LE 3, GT 4, GE 5) -> ``CmpMode::EQ`` etc."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(CMP_MODES):
        return "CmpMode::" + CMP_MODES[value]
    if isinstance(value, str) and value.upper() in CMP_MODES:
        return "CmpMode::" + value.upper()
    raise CodegenError("E400", f"unsupported compare type {value!r}", span)


class ISAMapper:
    def get_mapping(self, call: Call) -> ISAMapping:
        """The instruction for ``call``; CodegenError E400 when the CCE target has none."""
        span = call.span
        if not isinstance(call.callee, Op):
            raise CodegenError(
                "E400",
                f"call to function '{call.callee.name}' cannot be generated inside a CCE kernel",
                span,
            )
        name = call.callee.name
        op = REGISTRY.get(name)
        instruction = op.cce.instruction if op is not None else None
        if op is None or instruction is None:
            hint = (
                " (tensor ops run on the host side; use block ops in kernels)"
                if (op is not None and op.category is Category.TENSOR)
                else ""
            )
            if op is not None and op.cce.note and not hint:
                hint = f": {op.cce.note}"
            raise CodegenError("E400", f"'{name}' has no CCE lowering{hint}", span)

        if op.role in (Role.SET_FLAG, Role.WAIT_FLAG):
            args = (
                pipe_name(call.kwarg("set_pipe"), span),
                pipe_name(call.kwarg("wait_pipe"), span),
                event_name(call.kwarg("event_id", 0), span),
            )
            return ISAMapping(op, instruction, args)
        if op.role is Role.BARRIER:
            assert op.barrier_pipe is not None, op.name
            return ISAMapping(op, instruction, (pipe_name(op.barrier_pipe, span),))
        if op.cce.column_form is not None:
            instruction = axis_instruction(op, "cce", call)
        if op.cce.row_broadcast is not None:
            instruction = _broadcast_instruction(op, call, instruction)
        attrs = tuple(
            _ATTR_RENDERERS[name](_attr(op, call, name), span) for name in op.cce.attr_args
        )
        return ISAMapping(op, instruction, attrs)


def _broadcast_instruction(op: OpDef, call: Call, instruction: str) -> str:
    """A binary op whose rhs is a per-row vector [M, 1] or a per-column vector [1, N] of an
    [M, N] lhs is the op's TROWEXPAND / TCOLEXPAND form (a plain element-wise instruction
    would read past the vector). Other broadcasts have no instruction: E400."""
    if len(call.args) < 2:
        return instruction
    lhs, rhs = (_matrix_shape(arg.type) for arg in call.args[:2])
    if lhs is None or rhs is None or lhs == rhs:
        return instruction
    (rows, cols), (vec_rows, vec_cols) = lhs, rhs
    if vec_cols == 1 and vec_rows == rows and cols > 1 and op.cce.row_broadcast:
        return op.cce.row_broadcast
    if vec_rows == 1 and vec_cols == cols and rows > 1 and op.cce.col_broadcast:
        return op.cce.col_broadcast
    raise CodegenError(
        "E400",
        f"{op.name} of a [{rows}, {cols}] and a [{vec_rows}, {vec_cols}] tile has no CCE "
        "instruction: only the rhs may be broadcast, as a per-row [M, 1] or a per-column "
        "[1, N] vector (swap the operands of a commutative op, or expand the lhs first)",
        call.span,
    )


def _matrix_shape(type_: object) -> tuple[int, int] | None:
    """Rows and columns of a tile with a static shape of rank 2 or more, as pto-isa sees it."""
    if not isinstance(type_, ShapedType):
        return None
    dims = static_shape(type_.shape)
    if dims is None or len(dims) < 2:
        return None
    return tile_rows_cols(dims)


def _attr(op: OpDef, call: Call, name: str) -> AttrValue:
    """An attribute of the call, or the parameter's default when the call leaves it out."""
    param = op.param(name)
    default = param.default if param is not None and not param.required else None
    return call.kwarg(name, default)


# How an attribute named in ``Lowering.attr_args`` becomes a C++ argument.
_ATTR_RENDERERS = {"mode": round_mode, "cmp_type": cmp_mode}
