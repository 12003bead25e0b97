"""AllocateMemoryAddr: byte addresses for on-chip buffers.

Within each memory space, the function's MemRefs (each shared MemRef once) are laid out in id
order from address 0, each at the next multiple of the target's alignment (32 bytes). DDR
MemRefs get no address: tensors live wherever the caller put them. When a space's buffers end
beyond the target's capacity for it, an E402 diagnostic names the bytes needed and the
capacity, at the definition of the first tile that does not fit.
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, Var
from ..ir.function import Function
from ..ir.span import Span
from ..ir.types import MemorySpace, MemRef, ShapedType, Type
from ..ir.visitor import IRMutator, with_fields
from .base import FunctionPass, PassContext
from .buffers import memref_of
from .irutil import defined_vars, retype_function


class AllocateMemoryAddr(FunctionPass):
    name = "AllocateMemoryAddr"
    description = (
        "Lay out each memory space's buffers from address 0 in MemRef id order, "
        "32-byte aligned; report spaces that exceed the target's capacity."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        memrefs: dict[int, MemRef] = {}
        where: dict[int, Span] = {}
        names: dict[int, list[str]] = {}
        for var, stmt in defined_vars(fn):
            memref = memref_of(var)
            if memref is None or memref.memory_space is MemorySpace.DDR:
                continue
            memrefs.setdefault(memref.id, memref)
            names.setdefault(memref.id, []).append(var.name)
            span = stmt.span if stmt is not None and stmt.span.is_known else fn.span
            where.setdefault(memref.id, span)

        placed: dict[int, MemRef] = {}
        for space in MemorySpace:
            cursor = 0
            first_misfit: int | None = None
            capacity = ctx.target.capacity(space)
            for memref in sorted(
                (m for m in memrefs.values() if m.memory_space is space), key=lambda m: m.id
            ):
                addr = ctx.target.align(cursor)
                cursor = addr + memref.size
                placed[memref.id] = with_fields(memref, addr=addr)
                if capacity is not None and cursor > capacity and first_misfit is None:
                    first_misfit = memref.id
            if capacity is not None and first_misfit is not None:
                ctx.error(
                    "E402",
                    f"tiles live in {space.name} need {cursor} bytes, but the "
                    f"target's {space.name} capacity is {capacity} bytes; "
                    + _largest(space, memrefs, names),
                    where[first_misfit],
                )

        new_types: dict[Var, Type] = {}
        for var, _ in defined_vars(fn):
            memref = memref_of(var)
            if memref is not None and memref.id in placed and placed[memref.id] != memref:
                assert isinstance(var.type, ShapedType)
                new_types[var] = with_fields(var.type, memref=placed[memref.id])
        return retype_function(fn, new_types, _AddressRetyper(placed))


def _largest(
    space: MemorySpace, memrefs: dict[int, MemRef], names: dict[int, list[str]], shown: int = 4
) -> str:
    """The biggest buffers of a space, each with the tiles sharing it: what to shrink."""
    buffers = sorted(
        (m for m in memrefs.values() if m.memory_space is space), key=lambda m: (-m.size, m.id)
    )
    parts = [f"{' / '.join(dict.fromkeys(names[m.id]))} ({m.size} B)" for m in buffers[:shown]]
    more = f" and {len(buffers) - shown} more" if len(buffers) > shown else ""
    return f"buffers: {', '.join(parts)}{more}"


class _AddressRetyper(IRMutator):
    """Only addresses change here, and no type rule reads an address: a call's type gets the
    placed MemRef directly instead of running its op's rule again (as the generic retyper does
    after InitMemRef, when buffers themselves change)."""

    def __init__(self, placed: dict[int, MemRef]) -> None:
        super().__init__()
        self.placed = placed

    def mutate_Call(self, call: Call) -> Expr:
        new = self.generic_mutate(call)
        memref = new.type.memref if isinstance(new.type, ShapedType) else None
        if memref is not None and memref.id in self.placed and self.placed[memref.id] != memref:
            return with_fields(new, type=with_fields(new.type, memref=self.placed[memref.id]))
        return new
