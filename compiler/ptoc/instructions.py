"""What an instruction of the generated code means, read from the op registry: ``TADD`` in
pto-isa C++ and ``pto.tadd`` in PTO MLIR are ``block.add`` on the V pipe, reading ``lhs`` and
``rhs``. The preview hovers of the editor ask it (``ptols/instruction``); the registry stays the
one place that knows which op becomes which instruction.
"""

from __future__ import annotations

import functools

from .ops import REGISTRY
from .ops.describe import param_traits
from .ops.registry import Lowering, OpDef, ParamKind
from .records import record

TARGETS = ("cce", "pto")


@record(frozen=True)
class Operand:
    name: str
    traits: str  # "written; in Vec", "" when plainly read


@record(frozen=True)
class InstructionInfo:
    """One op an instruction lowers, on one target and in one form."""

    instruction: str  # as the target spells it: TADD, pto.tadd
    target: str  # "cce" or "pto"
    op: str  # block.add
    form: str  # "" for the op's main instruction, else which variant: "row vector rhs"
    description: str
    pipe: str  # V, MTE2, ...
    operands: tuple[Operand, ...]
    attributes: tuple[str, ...]  # the op's attribute parameters (set_pipe, event_id, ...)
    note: str


def _forms(lowering: Lowering) -> list[tuple[str, str]]:
    """(instruction, form) of a lowering: its main instruction and its variants."""
    named = [
        (lowering.instruction, ""),
        (lowering.column_form, "column axis"),
        (lowering.row_broadcast, "row vector rhs"),
        (lowering.col_broadcast, "column vector rhs"),
    ]
    return [(name, form) for name, form in named if name]


def _operands(op: OpDef, lowering: Lowering) -> tuple[Operand, ...]:
    values = [p for p in op.params if p.kind is ParamKind.EXPR]
    if lowering.operands is not None:
        chosen = {name: i for i, name in enumerate(lowering.operands)}
        values = sorted((p for p in values if p.name in chosen), key=lambda p: chosen[p.name])
    found = [Operand(p.name, param_traits(p)) for p in values]
    if lowering.scratch:
        found.append(Operand("scratch", "a scratch tile"))
    return tuple(found)


@functools.cache
def _index() -> dict[str, tuple[InstructionInfo, ...]]:
    found: dict[str, list[InstructionInfo]] = {}
    for op in REGISTRY:
        for target in TARGETS:
            lowering: Lowering = getattr(op, target)
            for name, form in _forms(lowering):
                info = InstructionInfo(
                    instruction=name,
                    target=target,
                    op=op.name,
                    form=form,
                    description=op.description,
                    pipe=op.pipe.name,
                    operands=_operands(op, lowering),
                    attributes=tuple(p.name for p in op.params if p.kind is ParamKind.ATTR),
                    note=lowering.note,
                )
                found.setdefault(name.lower(), []).append(info)
    return {key: tuple(infos) for key, infos in found.items()}


def lookup(name: str, target: str | None = None) -> list[InstructionInfo]:
    """The ops ``name`` is an instruction of (on ``target`` only, when given), in registry
    order; the spelling's case does not matter (C++ writes TADD, MLIR pto.tadd)."""
    return [
        info for info in _index().get(name.lower(), ()) if target is None or info.target == target
    ]


__all__ = ["InstructionInfo", "Operand", "lookup"]
