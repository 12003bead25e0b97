"""Which pipe runs a pto-isa instruction of PTOAS's C++.

The op registry names each instruction ptoc generates and the pipe its op runs on
(``Lowering.instruction`` and its column / broadcast forms, on both targets; ``OpDef.pipe``).
An instruction several ops share on different pipes (TMOV: MTE1 from L1 into L0, V within
the unified buffer; TSTORE: FIX out of L0C, MTE3 out of the unified buffer) is told apart by
where its operands live, with what each pipe moves: MTE2 from GM, MTE1 from L1 into L0A /
L0B / bias, M from L0A / L0B into L0C, FIX out of L0C, MTE3 from the unified buffer to GM, V
within the unified buffer. An instruction the registry does not name (or names for other
operands) runs on the one pipe that moves between its operands' spaces, when one does: an
instruction between tiles of the unified buffer is a vector instruction (V).
"""

from __future__ import annotations

from functools import cache

from ...ops.registry import REGISTRY, PipeType

GM = "GM"
VEC = "Vec"
#: Where each pipe reads (None: any) and writes.
_MOVES: tuple[tuple[PipeType, frozenset[str] | None, frozenset[str]], ...] = (
    (PipeType.MTE2, frozenset({GM}), frozenset({"Mat", VEC})),
    (PipeType.MTE1, frozenset({"Mat"}), frozenset({"Left", "Right", "Bias", "Scaling"})),
    (PipeType.M, frozenset({"Left", "Right", "Bias", "Acc"}), frozenset({"Acc"})),
    (PipeType.FIX, frozenset({"Acc"}), frozenset({GM, "Mat", VEC})),
    (PipeType.MTE3, frozenset({VEC}), frozenset({GM})),
    (PipeType.V, frozenset({VEC}), frozenset({VEC})),
)


@cache
def registered_pipes() -> dict[str, frozenset[PipeType]]:
    """pto-isa instruction name -> the pipes of the ops the registry lowers to it (the PTO
    dialect's ``pto.tmatmul.acc`` is pto-isa's ``TMATMUL_ACC``)."""
    found: dict[str, set[PipeType]] = {}
    for op in REGISTRY.ops.values():
        for lowering in (op.cce, op.pto):
            names = (
                lowering.instruction,
                lowering.column_form,
                lowering.row_broadcast,
                lowering.col_broadcast,
            )
            for name in names:
                if name:
                    key = name.removeprefix("pto.").replace(".", "_").upper()
                    found.setdefault(key, set()).add(op.pipe)
    return {name: frozenset(pipes) for name, pipes in found.items()}


def fitting_pipes(reads: frozenset[str], writes: frozenset[str]) -> frozenset[PipeType]:
    """The pipes that move data from ``reads``' spaces into ``writes``'."""
    return frozenset(
        pipe
        for pipe, sources, targets in _MOVES
        if writes <= targets and (sources is None or reads <= sources)
    )


def instruction_pipe(
    name: str, reads: frozenset[str], writes: frozenset[str]
) -> tuple[PipeType | None, str]:
    """The pipe of instruction ``name`` reading and writing tiles of those spaces, or None
    and why it is not known: the registry's pipe that moves between those spaces; else the
    one pipe that does (an instruction the registry does not name, or names for other
    operands); else the registry's only pipe."""
    pipes = registered_pipes().get(name, frozenset())
    fitting = fitting_pipes(reads, writes)
    for choice in (pipes & fitting, fitting):
        if len(choice) == 1:
            return next(iter(choice)), ""
    if len(pipes) == 1:
        return next(iter(pipes)), ""
    spaces = ", ".join(sorted(reads)) + " -> " + ", ".join(sorted(writes))
    if not pipes:
        return None, f"{name} is no instruction the op registry names"
    options = "/".join(sorted(p.name for p in pipes))
    return None, f"{name} runs on {options} by its operands, and {spaces} fits none of them"
