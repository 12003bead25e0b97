"""The predicted per-pipe timeline of one lowered function.

The function's instruction stream (``passes/sync_check/stream.py``) is laid out in program
order, loops repeated by their trip count (constant, or computed from scalar parameters whose
values the caller gives; once when neither), an if by its then-branch. As in pto-isa's cost
model, each pipe runs its instructions in order, after the scalar unit has placed every tile
(one cycle each); an instruction starts once its pipe is free, a ``wait_flag`` once the
matching ``set_flag`` fired (at the end of the setting pipe's latest instruction), and a read
once the bytes' last writer finished; barriers delay nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from ..ir import stmt as ir
from ..ir.expr import Var
from ..ir.function import Function
from ..ir.shape import integer_value
from ..ir.stmt import AssignStmt
from ..ir.types import TileType
from ..ops.registry import PipeType
from ..passes.irutil import walk_stmts
from ..passes.sync_check import stream
from ..records import field, record
from .costs import instructions
from .tables import CostTables

#: The longest stream laid out (loops beyond it are cut: the prediction says so).
MAX_INSTRUCTIONS = 200_000


class Event(NamedTuple):
    """One instruction on the timeline."""

    name: str
    pipe: PipeType
    start: int
    cycles: int
    line: int
    cause: Event | None  # what it waited for last (its pipe, a flag, a write), if anything

    @property
    def end(self) -> int:
        return self.start + self.cycles


class Flow(NamedTuple):
    """A set_flag -> wait_flag pair: when and where each side ran."""

    key: stream.EventKey
    set_time: int
    set_line: int
    wait_time: int
    wait_line: int


class Idle(NamedTuple):
    """A wait that held its pipe: how long, and which set released it."""

    pipe: PipeType
    signal: PipeType
    cycles: int
    wait_line: int
    set_line: int


@record
class Timeline:
    name: str
    events: list[Event] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    idles: list[Idle] = field(default_factory=list)
    placed: int = 0  # tiles the scalar unit placed first (cycles)
    cut: bool = False  # the stream was longer than ``limit`` instructions
    limit: int = MAX_INSTRUCTIONS  # the most instructions laid out
    dynamic_loops: int = 0  # loops counted once: their trip count is not constant

    @property
    def total(self) -> int:
        return max((e.end for e in self.events), default=self.placed)

    def busy(self) -> dict[PipeType, int]:
        out: dict[PipeType, int] = {}
        for e in self.events:
            out[e.pipe] = out.get(e.pipe, 0) + e.cycles
        return out

    def critical_path(self) -> list[Event]:
        last = max(self.events, key=lambda e: e.end, default=None)
        path: list[Event] = []
        while last is not None:
            path.append(last)
            last = last.cause
        return path[::-1]


class _Layout:
    """Lays a stream out in program order and schedules it."""

    def __init__(
        self, timeline: Timeline, tables: CostTables, scalars: dict[int, int] | None = None
    ) -> None:
        self.timeline = timeline
        self.tables = tables
        self.scalars = scalars or {}  # id of a parameter Var -> its value
        self.prices: dict[int, list[tuple[int, str]]] = {}  # id of an OpInstr -> its cost
        self.free: dict[PipeType, tuple[int, Event | None]] = {}
        self.signals: dict[stream.EventKey, tuple[int, Event | None, int]] = {}
        self.writers: list[tuple[stream.Region, Event]] = []
        self.count = 0

    def walk(self, nodes: tuple[stream.Node, ...]) -> None:
        for node in nodes:
            if self.count >= self.timeline.limit:
                self.timeline.cut = True
                return
            if isinstance(node, stream.Branch):
                self.walk(node.then)
            elif isinstance(node, stream.Loop):
                trips = node.trips if node.trips is not None else self.given_trips(node.stmt)
                self.timeline.dynamic_loops += trips is None
                for _ in range(1 if trips is None else trips):
                    before = self.count
                    self.walk(node.body)
                    # Past the cut, or a body of no instructions (every trip walks the same
                    # nodes): the rest adds nothing, and a loop of 2**40 trips never ended.
                    if self.timeline.cut or self.count == before:
                        break
            else:
                self.count += 1
                self.step(node)

    def given_trips(self, loop: ir.LoopStmt) -> int | None:
        """A for loop's trip count from the parameters' given values (None: not computable)."""
        if not isinstance(loop, ir.ForStmt):
            return None
        bounds = [integer_value(b, self.scalars) for b in (loop.start, loop.stop, loop.step)]
        start, stop, step = bounds
        if start is None or stop is None or step is None or step <= 0:
            return None
        return max(0, -(-(stop - start) // step))

    def step(
        self, node: stream.OpInstr | stream.SetInstr | stream.WaitInstr | stream.BarrierInstr
    ) -> None:
        line = node.stmt.span.line
        if isinstance(node, stream.SetInstr):
            time, event = self.free.get(node.key.signal, (self.timeline.placed, None))
            self.signals[node.key] = (time, event, line)
        elif isinstance(node, stream.WaitInstr):
            self.wait(node, line)
        elif isinstance(node, stream.OpInstr):
            self.op(node, line)

    def wait(self, node: stream.WaitInstr, line: int) -> None:
        signal = self.signals.pop(node.key, None)
        if signal is None:
            return
        time, event, set_line = signal
        pipe = node.key.wait
        free, last = self.free.get(pipe, (self.timeline.placed, None))
        self.timeline.flows.append(Flow(node.key, time, set_line, max(free, time), line))
        if time > free:
            self.timeline.idles.append(Idle(pipe, node.key.signal, time - free, line, set_line))
            self.free[pipe] = (time, event)

    def op(self, node: stream.OpInstr, line: int) -> None:
        start, cause = self.free.get(node.pipe, (self.timeline.placed, None))
        for region in node.access.reads:
            for written, writer in self.writers:
                if writer.end > start and written.overlaps(region):
                    start, cause = writer.end, writer
        event: Event | None = None
        priced = self.prices.get(id(node))
        if priced is None:  # a loop body's instructions cost the same on every trip
            priced = self.prices[id(node)] = instructions(node, self.tables)
        for busy, name in priced:
            event = Event(name, node.pipe, start, busy, line, cause)
            self.timeline.events.append(event)
            start, cause = event.end, event
        assert event is not None
        self.free[node.pipe] = (event.end, event)
        for region in node.access.writes:
            self.writers = [(r, w) for r, w in self.writers if not region.covers(r)]
            self.writers.append((region, event))


def _placed_tiles(fn: Function) -> int:
    """Tiles the generated code places (TASSIGN): one per tile an op defines."""
    names = {
        s.var.name
        for s in walk_stmts(fn.body)
        if isinstance(s, AssignStmt)
        and isinstance(s.var.type, TileType)
        and not isinstance(s.value, Var)
    }
    return len(names)


def predict(
    fn: Function,
    tables: CostTables,
    scalars: dict[str, int] | None = None,
    limit: int | None = None,
) -> Timeline:
    """The timeline of ``fn``; ``scalars``: values of its scalar parameters by name (the run's
    arguments), which loops whose trip count depends on them are counted with; ``limit``: the
    most instructions laid out (MAX_INSTRUCTIONS), the rest cut."""
    laid_out = MAX_INSTRUCTIONS if limit is None else limit
    timeline = Timeline(fn.name, placed=_placed_tiles(fn), limit=laid_out)
    given = {id(p): scalars[p.name] for p in fn.params if scalars and p.name in scalars}
    _Layout(timeline, tables, given).walk(stream.StreamReader(fn).nodes)
    return timeline
