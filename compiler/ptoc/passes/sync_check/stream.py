"""A lowered function as the pipes see it: each statement's instruction on its pipe.

An op statement runs on the pipe its registration names and reads and writes buffers; a
buffer is a byte range of one memory space (its MemRef's address and size after
AllocateMemoryAddr, so tiles MemoryReuse or the allocator put in the same bytes overlap). A
MemRef without an address (a tensor in DDR) is its own range: views of one tensor share it.
Loop-carried values and if results name every buffer that can flow into them
(``passes/buffers.py``), as InsertSync reads them. Sync statements become set / wait /
barrier instructions; ops on the scalar pipe and calls of functions are not instructions.
"""

from __future__ import annotations

from typing import NamedTuple

from ...ir import stmt as ir
from ...ir.expr import Call, ConstInt, Var
from ...ir.function import Function
from ...ir.span import Span
from ...ir.types import MemorySpace, MemRef
from ...ops.registry import PipeType, Role
from ..buffers import buffer_aliases, memref_of, var_buffers
from ..insert_sync import _effects as buffer_effects
from ..irutil import defined_vars, final_yield, op_call_of
from ..op_info import op_def

#: Pipes that run no tracked instruction (scalar work; ALL is only a barrier's operand).
UNTRACKED = frozenset({PipeType.S, PipeType.ALL})


class Region(NamedTuple):
    """Bytes ``[start, end)`` of one memory space (``space`` is its name)."""

    space: str
    start: int
    end: int

    def overlaps(self, other: Region) -> bool:
        return self.space == other.space and self.start < other.end and other.start < self.end

    def covers(self, other: Region) -> bool:
        return self.space == other.space and self.start <= other.start and other.end <= self.end

    def describe(self) -> str:
        if "#" in self.space:
            return f"the {self.space.split('#')[0]} tensor"
        return f"{self.space} [{self.start:#x}, {self.end:#x})"


class Access(NamedTuple):
    """What one op instruction does to memory."""

    reads: tuple[Region, ...]
    writes: tuple[Region, ...]


class OpInstr(NamedTuple):
    stmt: ir.Stmt
    pipe: PipeType
    access: Access


class EventKey(NamedTuple):
    """One event: the pipe that sets it, the pipe that waits for it, its id."""

    signal: PipeType
    wait: PipeType
    event: int

    def describe(self) -> str:
        return f"{self.signal.name}→{self.wait.name} event {self.event}"


class SetInstr(NamedTuple):
    stmt: ir.Stmt
    key: EventKey


class WaitInstr(NamedTuple):
    stmt: ir.Stmt
    key: EventKey


class BarrierInstr(NamedTuple):
    stmt: ir.Stmt
    pipe: PipeType  # ALL: every pipe


class Branch(NamedTuple):
    stmt: ir.IfStmt
    then: tuple[Node, ...]
    orelse: tuple[Node, ...]


class Loop(NamedTuple):
    stmt: ir.LoopStmt
    body: tuple[Node, ...]
    trips: int | None  # None: not known statically
    #: The carried values the CCE generator copies at the end of the body (iter_args
    #: positions), in the order of the copies that end ``body``.
    copied: tuple[int, ...] = ()


Instr = OpInstr | SetInstr | WaitInstr | BarrierInstr
Node = OpInstr | SetInstr | WaitInstr | BarrierInstr | Branch | Loop


def _pipe(value: object) -> PipeType | None:
    if isinstance(value, PipeType):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return next((p for p in PipeType if p.value == value), None)
    return None


def _static_trips(loop: ir.LoopStmt) -> int | None:
    if not isinstance(loop, ir.ForStmt):
        return None
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, ConstInt) for b in bounds):
        return None
    start, stop, step = (b.value for b in bounds if isinstance(b, ConstInt))
    if step <= 0:
        return None
    return max(0, -(-(stop - start) // step))


def function_regions(fn: Function) -> dict[int, Region]:
    """MemRef id -> the bytes it occupies, for every MemRef a parameter or variable has."""
    memrefs: dict[int, MemRef] = {}
    for var in [*fn.params, *(v for v, _ in defined_vars(fn))]:
        memref = memref_of(var)
        if memref is not None:
            memrefs.setdefault(memref.id, memref)
    regions: dict[int, Region] = {}
    for key, memref in memrefs.items():
        space = memref.memory_space.name
        if memref.addr is None:
            # Unallocated (DDR): a range of its own, away from every address.
            regions[key] = Region(f"{space}#{key}", 0, 1)
        else:
            regions[key] = Region(space, memref.addr, memref.addr + max(memref.size, 1))
    return regions


class StreamReader:
    """Reads a function's body into the nodes the checker and the pipes run walk."""

    def __init__(self, fn: Function) -> None:
        self.aliases: dict[Var, frozenset[int]] = buffer_aliases(fn)
        self.regions = function_regions(fn)
        self.nodes = self.read(fn.body)

    def read(self, stmt: ir.Stmt | None) -> tuple[Node, ...]:
        nodes: list[Node] = []
        if stmt is not None:
            self.add(stmt, nodes)
        return tuple(nodes)

    def add(self, stmt: ir.Stmt, nodes: list[Node]) -> None:
        if isinstance(stmt, ir.SeqStmts):
            for inner in stmt.stmts:
                self.add(inner, nodes)
        elif isinstance(stmt, ir.ScopeStmt):
            self.add(stmt.body, nodes)
        elif isinstance(stmt, ir.IfStmt):
            nodes.append(Branch(stmt, self.read(stmt.then_body), self.read(stmt.else_body)))
        elif isinstance(stmt, ir.ForStmt | ir.WhileStmt):
            copies, copied = self.yield_copies(stmt)
            nodes.append(Loop(stmt, self.read(stmt.body) + copies, _static_trips(stmt), copied))
        elif isinstance(stmt, ir.AssignStmt | ir.EvalStmt):
            instr = self.instruction(stmt)
            if instr is not None:
                nodes.append(instr)

    def instruction(self, stmt: ir.Stmt) -> Instr | None:
        call = op_call_of(stmt)
        op = op_def(call) if call is not None else None
        if op is None or call is None:
            return None
        if op.role is Role.BARRIER:
            pipe = op.barrier_pipe if op.barrier_pipe is not None else PipeType.ALL
            return BarrierInstr(stmt, pipe)
        if op.role in (Role.SET_FLAG, Role.WAIT_FLAG):
            key = event_key(call)
            if key is None:
                return None
            return SetInstr(stmt, key) if op.role is Role.SET_FLAG else WaitInstr(stmt, key)
        if op.pipe in UNTRACKED:
            return None
        effects = buffer_effects(stmt, call, op, self.aliases)
        return OpInstr(
            stmt, op.pipe, Access(self.ranges(effects.reads), self.ranges(effects.writes))
        )

    def yield_copies(self, loop: ir.LoopStmt) -> tuple[tuple[Node, ...], tuple[int, ...]]:
        """What the CCE generator adds at the end of a loop body: each carried vector tile
        yielded from another buffer is copied into the carried one, TMOV on V after a
        barrier, and another barrier before a copy overwriting what an earlier one reads
        (``codegen/cce/statements.py``)."""
        last = final_yield(loop.body)
        if last is None:
            return (), ()
        copies: list[tuple[frozenset[int], int]] = []
        copied: list[int] = []
        for position, (arg, value) in enumerate(zip(loop.iter_args, last.values, strict=False)):
            source = memref_of(value)
            target = memref_of(arg.init_value) if arg.init_value is not None else None
            if source is None or target is None or source.memory_space is not MemorySpace.Vec:
                continue
            if target.memory_space is MemorySpace.Vec and source.addr != target.addr:
                # From wherever the yielded value is (an if result: either branch's buffer).
                sources = var_buffers(value, self.aliases) if isinstance(value, Var) else None
                copies.append((sources or frozenset({source.id}), target.id))
                copied.append(position)
        if not copies:
            return (), ()
        nodes: list[Node] = [BarrierInstr(last, PipeType.V)]
        read: set[int] = set()
        for source_ids, target_id in copies:
            if target_id in read:
                nodes.append(BarrierInstr(last, PipeType.V))
                read.clear()
            read |= source_ids
            reads, writes = self.ranges(source_ids), self.ranges(frozenset({target_id}))
            nodes.append(OpInstr(last, PipeType.V, Access(reads, writes)))
        return tuple(nodes), tuple(copied)

    def ranges(self, ids: frozenset[int]) -> tuple[Region, ...]:
        return tuple(sorted({self.regions[i] for i in ids if i in self.regions}))


def event_key(call: Call) -> EventKey | None:
    """The event a set / wait call names (None when an attribute is not a pipe or an id)."""
    signal, wait = _pipe(call.kwarg("set_pipe")), _pipe(call.kwarg("wait_pipe"))
    event = call.kwarg("event_id", 0)
    if signal is None or wait is None or not isinstance(event, int):
        return None
    return EventKey(signal, wait, event)


def span_of(node: Node) -> Span:
    return node.stmt.span
