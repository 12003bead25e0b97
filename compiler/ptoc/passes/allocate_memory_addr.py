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
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
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
        definitions = defined_vars(fn)
        memrefs: dict[int, MemRef] = {}
        where: dict[int, Span] = {}
        names: dict[int, list[str]] = {}
        by_space: dict[MemorySpace, list[MemRef]] = {}
        on_chip: list[tuple[Var, MemRef]] = []
        for var, stmt in definitions:
            memref = memref_of(var)
            if memref is None or memref.memory_space is MemorySpace.DDR:
                continue
            on_chip.append((var, memref))
            sharing = names.get(memref.id)
            if sharing is not None:
                sharing.append(var.name)
                continue
            memrefs[memref.id] = memref
            names[memref.id] = [var.name]
            where[memref.id] = stmt.span if stmt is not None and stmt.span.is_known else fn.span
            by_space.setdefault(memref.memory_space, []).append(memref)

        placed: dict[int, MemRef] = {}
        for space in _SPACES:
            if space not in by_space:
                continue  # nothing to place, nothing to report
            cursor = 0
            first_misfit: int | None = None
            capacity = ctx.target.capacity(space)
            for memref in sorted(by_space[space], key=_by_id):
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
        for var, memref in on_chip:
            new = placed[memref.id]
            if new.addr != memref.addr or new != memref:
                assert isinstance(var.type, ShapedType)
                new_types[var] = with_fields(var.type, memref=new)
        if not new_types:
            return fn
        return _retype(fn, definitions, new_types, placed, ctx)


#: The memory spaces in the order they are laid out (iterating the enum costs more).
_SPACES = tuple(MemorySpace)


def _retype(
    fn: Function,
    definitions: list[tuple[Var, Stmt | None]],
    new_types: dict[Var, Type],
    placed: dict[int, MemRef],
    ctx: PassContext,
) -> Function:
    """``fn`` with its buffers placed. The CCE pipeline's input differs from the ptoas one's by
    InsertSync's statements only: same variables, same plan, the same objects for every other
    statement. So pipelines run together share one retyper per set of variables, and the
    second rebuilds only what InsertSync rebuilt, with the very same new variables."""
    if ctx.shared is None:
        return retype_function(fn, new_types, _AddressRetyper(placed), definitions)
    key = (AllocateMemoryAddr, tuple(var for var, _ in definitions))
    retyper = ctx.shared.get(key)
    if isinstance(retyper, _AddressRetyper):
        result = retyper.mutate(fn)  # its var_map already holds every variable's new version
        assert isinstance(result, Function)
        return result
    retyper = ctx.shared[key] = _AddressRetyper(placed)
    return retype_function(fn, new_types, retyper, definitions)


def _by_id(memref: MemRef) -> int:
    return memref.id


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
        #: id(statement) -> (statement, its rebuilt version), for the next pipeline's input.
        self.done: dict[int, tuple[Stmt, Stmt]] = {}

    def mutate_stmt_once(self, stmt: Stmt) -> Stmt:
        known = self.done.get(id(stmt))
        if known is not None:
            return known[1]
        new: Stmt = self.generic_mutate(stmt)
        self.done[id(stmt)] = (stmt, new)
        return new

    def mutate_Call(self, call: Call) -> Expr:
        new = self.generic_mutate(call)
        memref = new.type.memref if isinstance(new.type, ShapedType) else None
        if memref is not None and memref.id in self.placed and self.placed[memref.id] != memref:
            return with_fields(new, type=with_fields(new.type, memref=self.placed[memref.id]))
        return new


for _stmt_class in (
    AssignStmt,
    EvalStmt,
    SeqStmts,
    YieldStmt,
    ReturnStmt,
    IfStmt,
    ForStmt,
    WhileStmt,
    ScopeStmt,
):
    setattr(_AddressRetyper, "mutate_" + _stmt_class.__name__, _AddressRetyper.mutate_stmt_once)
