"""ISAMapper: which pto-isa instruction an op call becomes (seed 000, section 4).

The instruction name comes from the op registry (``OpDef.cce.instruction``); this module adds
what depends on the call itself: the reduction axis of ``block.sum`` (axis 0 -> TCOLSUM,
axis 1 -> TROWSUM; ``block.max``/``block.min`` likewise), the pipe of each barrier, and
attributes that become trailing C++ arguments (sync pipes and events, cast round modes,
compare modes).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.expr import AttrValue, Call, Op
from ...ir.span import Span
from ...ir.types import ShapedType
from ...ops import REGISTRY, Category, ParamKind, PipeType
from ..common import CodegenError

SYNC_OPS = frozenset({"system.sync_src", "system.sync_dst"})
BARRIER_PIPES: dict[str, str] = {
    "system.bar_v": "PIPE_V",
    "system.bar_m": "PIPE_M",
    "system.bar_all": "PIPE_ALL",
}
# Axis reductions: the instruction is TROW<kind> or TCOL<kind> by the reduced axis.
AXIS_REDUCTIONS: dict[str, str] = {"block.sum": "SUM", "block.max": "MAX", "block.min": "MIN"}

ROUND_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
CMP_MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")


@dataclass(frozen=True, slots=True)
class ISAMapping:
    op_name: str
    instruction: str
    category: Category
    # Attribute arguments, rendered, placed after the operands.
    attr_args: tuple[str, ...] = ()
    # Names of the op's value (EXPR) parameters, in argument order.
    operand_names: tuple[str, ...] = ()

    @property
    def is_sync(self) -> bool:
        return self.category is Category.SYNC


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
            hint = " (tensor ops run on the host side; use block ops in kernels)" if (
                name.startswith("tensor.")
            ) else ""
            raise CodegenError("E400", f"'{name}' has no CCE lowering{hint}", span)

        if name in SYNC_OPS:
            args = (
                pipe_name(call.kwarg("set_pipe"), span),
                pipe_name(call.kwarg("wait_pipe"), span),
                event_name(call.kwarg("event_id", 0), span),
            )
            return ISAMapping(name, instruction, Category.SYNC, args)
        if name in BARRIER_PIPES:
            return ISAMapping(name, instruction, Category.SYNC, (BARRIER_PIPES[name],))
        if name in AXIS_REDUCTIONS:
            instruction = self._reduction(call, AXIS_REDUCTIONS[name])
        attrs: list[str] = []
        if name.endswith(".cast"):
            attrs.append(round_mode(call.kwarg("mode", "round"), span))
        if name in ("block.cmp", "block.cmps"):
            attrs.append(cmp_mode(call.kwarg("cmp_type", 0), span))
        operand_names = tuple(p.name for p in op.params if p.kind is ParamKind.EXPR)
        return ISAMapping(name, instruction, op.category, tuple(attrs), operand_names)

    @staticmethod
    def _reduction(call: Call, kind: str) -> str:
        axis = call.kwarg("axis")
        source = call.args[0].type if call.args else None
        rank = source.rank if isinstance(source, ShapedType) else 2
        if isinstance(axis, int) and not isinstance(axis, bool):
            if axis < 0:
                axis += rank
            if axis == rank - 1:
                return "TROW" + kind
            if axis == rank - 2:
                return "TCOL" + kind
        raise CodegenError(
            "E400",
            f"{call.callee.name} over axis {axis!r} of a rank-{rank} tile has no CCE "
            "instruction (only the last two axes: columns -> TCOL, rows -> TROW)",
            call.span,
        )
