"""MemoryReuse: tiles whose lifetimes do not overlap share one buffer.

Statements are numbered in execution order of the text (both branches of an if are numbered,
then before else, which is sound because only one of them runs). A buffer is live from the
first definition of a variable naming it to the last use of one, widened as follows:

* a variable used inside a loop but defined before it is live until the end of the loop
  (every iteration reads it);
* a loop-carried value is live for the whole loop, and every buffer that can flow into it
  (initial value, yielded value) with it; loop and if results keep the buffers flowing into
  them live until their own last use.

Buffers are then visited in definition order (MemRef id). Each one joins the first earlier
buffer in the same on-chip memory space that is at least as large and whose lifetime (with
everything already sharing it) does not overlap; otherwise it keeps its own. Lifetimes are
closed intervals, so a tile defined by the statement that last reads another does not take
that tile's buffer: no op writes over its own input. DDR buffers are never shared.
"""

from __future__ import annotations

from ..ir.expr import Expr, Var
from ..ir.function import Function
from ..ir.stmt import AssignStmt, EvalStmt, IfStmt, LoopStmt, ReturnStmt, Stmt, YieldStmt
from ..ir.types import MemorySpace, MemRef, ShapedType, Type
from ..ir.visitor import with_fields
from ..records import field, record
from .base import FunctionPass, PassContext
from .buffers import buffer_aliases, memref_of
from .irutil import (
    bodies,
    conditions,
    defined_vars,
    direct_exprs,
    expr_vars,
    retype_function,
    stmt_binds,
)


@record
class _Loop:
    start: int
    end: int = -1


#: A use of a variable: its position and the loops around it, innermost last.
_Use = tuple[int, tuple[_Loop, ...]]


@record
class _Lifetimes:
    """Definition and use positions of every variable of one function."""

    position: int = 0
    defs: dict[Var, int] = field(default_factory=dict)
    uses: dict[Var, list[_Use]] = field(default_factory=dict)
    carried: list[tuple[Var, _Loop]] = field(default_factory=list)
    #: The statement at each position (position - 1), for the memory map.
    statements: list[Stmt] = field(default_factory=list)

    def tick(self, stmt: Stmt) -> int:
        self.position += 1
        self.statements.append(stmt)
        return self.position

    def define(self, var: Var, position: int) -> None:
        self.defs.setdefault(var, position)

    def use(self, exprs: list[Expr], position: int, loops: tuple[_Loop, ...]) -> None:
        use = (position, loops)
        uses = self.uses
        for expr in exprs:
            for var in expr_vars(expr):
                found = uses.get(var)
                if found is None:
                    uses[var] = [use]
                else:
                    found.append(use)

    def walk(self, stmt: Stmt | None, loops: tuple[_Loop, ...]) -> None:
        if stmt is None:
            return
        if isinstance(stmt, AssignStmt):
            here = self.tick(stmt)
            self.use([stmt.value], here, loops)
            self.define(stmt.var, here)
        elif isinstance(stmt, EvalStmt | YieldStmt | ReturnStmt):
            self.use(direct_exprs(stmt), self.tick(stmt), loops)
        elif isinstance(stmt, IfStmt):
            self.use([stmt.condition], self.tick(stmt), loops)
            self.walk(stmt.then_body, loops)
            self.walk(stmt.else_body, loops)
            end = self.tick(stmt)
            for result in stmt.return_vars:
                self.define(result, end)
        elif isinstance(stmt, LoopStmt):
            here = self.tick(stmt)
            self.use(direct_exprs(stmt), here, loops)
            loop = _Loop(here)
            inner = (*loops, loop)
            for var in stmt_binds(stmt):  # the loop variable, carried values
                self.define(var, here)
            self.use(conditions(stmt), here, inner)
            self.carried.extend((arg, loop) for arg in stmt.iter_args)
            self.walk(stmt.body, inner)
            loop.end = self.tick(stmt)
            for result in stmt.return_vars:
                self.define(result, loop.end)
        else:
            for body in bodies(stmt):
                self.walk(body, loops)

    def interval(self, var: Var) -> tuple[int, int]:
        start = self.defs.get(var, 0)
        end = start
        for position, loops in self.uses.get(var, ()):
            if position > end:
                end = position
            for loop in loops:
                if start < loop.start and loop.end > end:
                    end = loop.end
        return start, end


def function_lifetimes(fn: Function) -> _Lifetimes:
    """Every statement of ``fn`` numbered (from 1), with each variable's definition and uses."""
    lifetimes = _Lifetimes()
    for param in fn.params:
        lifetimes.define(param, 0)
    lifetimes.walk(fn.body, ())
    return lifetimes


def buffer_lifetimes(
    fn: Function, definitions: list[tuple[Var, Stmt | None]] | None = None
) -> dict[int, tuple[int, int]]:
    """MemRef id -> (first, last) statement position at which the buffer holds a live value."""
    lifetimes = function_lifetimes(fn)
    aliases = buffer_aliases(fn, definitions)
    spans: dict[int, tuple[int, int]] = {}

    def widen(ids: frozenset[int], start: int, end: int) -> None:
        for memref_id in ids:
            old = spans.get(memref_id)
            spans[memref_id] = (
                (start, end) if old is None else (min(old[0], start), max(old[1], end))
            )

    for var, ids in aliases.items():
        widen(ids, *lifetimes.interval(var))
    for arg, loop in lifetimes.carried:
        widen(aliases.get(arg, frozenset()), loop.start, loop.end)
    return spans


@record
class _Shared:
    memref: MemRef
    intervals: list[tuple[int, int]]

    def admits(self, memref: MemRef, interval: tuple[int, int]) -> bool:
        if memref.memory_space is not self.memref.memory_space or memref.size > self.memref.size:
            return False
        start, end = interval
        return all(end < s or start > e for s, e in self.intervals)


def plan_reuse(
    fn: Function, definitions: list[tuple[Var, Stmt | None]] | None = None
) -> dict[int, MemRef]:
    """MemRef id -> the MemRef it is replaced by (only the ids that change)."""
    definitions = defined_vars(fn) if definitions is None else definitions
    memrefs: dict[int, MemRef] = {}
    for var, _ in definitions:
        memref = memref_of(var)
        if memref is not None and memref.memory_space is not MemorySpace.DDR:
            memrefs.setdefault(memref.id, memref)
    lifetimes = buffer_lifetimes(fn, definitions)
    shared: list[_Shared] = []
    plan: dict[int, MemRef] = {}
    for memref_id in sorted(memrefs):
        memref = memrefs[memref_id]
        interval = lifetimes.get(memref_id, (0, 0))
        for group in shared:
            if group.admits(memref, interval):
                group.intervals.append(interval)
                plan[memref_id] = group.memref
                break
        else:
            shared.append(_Shared(memref, [interval]))
    return plan


class MemoryReuse(FunctionPass):
    name = "MemoryReuse"
    description = (
        "Let tiles whose lifetimes do not overlap share one buffer (same memory "
        "space, no larger than the buffer reused), first fit in definition order."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        definitions = defined_vars(fn)
        plan = plan_reuse(fn, definitions)
        new_types: dict[Var, Type] = {}
        for var, _ in definitions:
            memref = memref_of(var)
            if memref is not None and memref.id in plan:
                assert isinstance(var.type, ShapedType)
                new_types[var] = with_fields(var.type, memref=plan[memref.id])
        return retype_function(fn, new_types, definitions=definitions)
