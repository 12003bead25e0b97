"""``ptoc run --pipes``: the lowered function on the reference interpreter, each pipe its own
stream, interleaved in many seeded orders the synchronisation allows.

The function is lowered (addresses, and the sync InsertSync placed or, with the ``ptoas``
pipeline, the sync the file holds), then run once in program order while every instruction
is recorded (``Recorder``: the per-pipe stream of ``passes/sync_check/stream.py``, each op
with the interpreter's bindings before it). Each interleaving replays that trace with one
queue per pipe: a pipe's next instruction runs when its wait's event was set (and a
``bar_all`` when all earlier work ran), the choice among the pipes that can run is seeded.
An op reads its tiles from the bytes they live in as this interleaving left them and writes
its result there; loads and stores use this interleaving's tensors. So a missing wait is a
tile read before the op producing it ran (or overwritten before it was read): reported with
both lines, and seen as wrong numbers in the results. Pipes that can no longer run while
others wait are a deadlock.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..interp.evaluator import Evaluator, Frame
from ..ir.expr import Expr, Var
from ..ir.function import Function, Program
from ..ir.stmt import AssignStmt, EvalStmt, Stmt, YieldStmt
from ..ir.types import ShapedType, TensorType, TileType
from ..ops.registry import PipeType
from ..passes.buffers import memref_of
from ..passes.sync_check.stream import (
    BarrierInstr,
    Branch,
    EventKey,
    Instr,
    Loop,
    Node,
    OpInstr,
    Region,
    SetInstr,
    StreamReader,
    WaitInstr,
    function_regions,
)

if TYPE_CHECKING:
    from .compare import Comparison

#: How many interleavings a run tries.
INTERLEAVINGS = 64


class Step(NamedTuple):
    """One executed instruction, in program order."""

    position: int
    node: Node
    values: dict[str, Any] | None  # an op's bindings before it ran
    dims: dict[str, int] | None
    yielded: tuple[Expr, Any] | None = None  # a yield copy's source, and its value


class Race(NamedTuple):
    """``later`` ran before ``earlier``, which program order puts first and which it
    conflicts with."""

    later: Step
    earlier: Step
    kind: str  # "read after write", ...


def pipe_of(node: Node) -> PipeType:
    if isinstance(node, OpInstr | BarrierInstr):
        return node.pipe
    if isinstance(node, SetInstr):
        return node.key.signal
    assert isinstance(node, WaitInstr)
    return node.key.wait


class Recorder(Evaluator):
    """The interpreter, recording each instruction of one function as it runs: each op with
    the bindings before it, each yield copy with the value it copies, and where each op
    result was put."""

    def __init__(self, program: Program, function: Function, regions: Placement) -> None:
        super().__init__(program)
        self.function = function
        self.regions = regions
        self.instructions: dict[int, Node] = {}
        #: loop body -> the yield copies ending it, each with its carried value's position
        self.copies: dict[int, list[tuple[Instr, int | None]]] = {}
        self.learn(StreamReader(function).nodes)
        self.trace: list[Step] = []
        self.placed: dict[int, tuple[Region, Any]] = {}  # id(result) -> its region (and it)

    def learn(self, nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            if isinstance(node, Branch):
                self.learn(node.then)
                self.learn(node.orelse)
            elif isinstance(node, Loop):
                self.learn(tuple(n for n in node.body if not isinstance(n.stmt, YieldStmt)))
                positions = iter(node.copied)
                copies = [
                    (n, next(positions) if isinstance(n, OpInstr) else None)
                    for n in node.body
                    if isinstance(n.stmt, YieldStmt)
                ]
                if copies:
                    self.copies[id(node.stmt.body)] = copies
            else:
                self.instructions[id(node.stmt)] = node

    def exec(self, stmt: Stmt, frame: Frame) -> Any:
        if frame.function is not self.function:
            return super().exec(stmt, frame)
        node = self.instructions.get(id(stmt))
        if node is not None:
            op = isinstance(node, OpInstr)
            values, dims = (dict(frame.values), frame.dims) if op else (None, None)
            self.trace.append(Step(len(self.trace), node, values, dims))
        signal = super().exec(stmt, frame)
        if isinstance(node, OpInstr) and isinstance(stmt, AssignStmt):
            region = self.regions.region(stmt.var)
            value = frame.values.get(stmt.var.name)
            if region is not None and isinstance(value, np.ndarray):
                self.placed[id(value)] = (region, value)
        for copy, position in self.copies.get(id(stmt), ()):
            yielded = None
            if position is not None and signal is not None and isinstance(copy.stmt, YieldStmt):
                yielded = (copy.stmt.values[position], signal.values[position])
            self.trace.append(Step(len(self.trace), copy, None, None, yielded))
        return signal


def ordering(trace: Sequence[Step]) -> list[list[tuple[Step, str]]]:
    """For each step, the earlier steps on other pipes it conflicts with (the last writer
    of what it reads; the last writer and the readers since of what it writes), each with
    the kind of conflict."""
    writes: list[tuple[Region, Step]] = []  # the latest write of each range
    reads: list[tuple[Region, Step]] = []  # reads since that write
    out: list[list[tuple[Step, str]]] = []
    for step in trace:
        found: list[tuple[Step, str]] = []
        node = step.node
        if isinstance(node, OpInstr):
            pipe = node.pipe
            for region in node.access.reads:
                found += [
                    (w, "read after write")
                    for r, w in writes
                    if r.overlaps(region) and pipe_of(w.node) is not pipe
                ]
            for region in node.access.writes:
                found += [
                    (w, "write after write")
                    for r, w in writes
                    if r.overlaps(region) and pipe_of(w.node) is not pipe
                ]
                found += [
                    (s, "write after read")
                    for r, s in reads
                    if r.overlaps(region) and pipe_of(s.node) is not pipe
                ]
            reads += [(r, step) for r in node.access.reads]
            for region in node.access.writes:
                writes = [(r, w) for r, w in writes if not region.covers(r)] + [(region, step)]
                reads = [(r, s) for r, s in reads if not region.covers(r)]
        out.append(found)
    return out


class Interleaving:
    """One replay of the trace, each pipe a queue, the next pipe to run chosen by ``rng``
    (``priority``: pipes in a fixed random order, else a fresh choice at every step)."""

    def __init__(self, replay: Replay, rng: random.Random, priority: bool) -> None:
        self.replay = replay
        self.rng = rng
        order = list({pipe_of(s.node) for s in replay.trace})
        rng.shuffle(order)
        self.rank = {pipe: i for i, pipe in enumerate(order)} if priority else None
        self.queues: dict[PipeType, deque[Step]] = {}
        for step in replay.trace:
            self.queues.setdefault(pipe_of(step.node), deque()).append(step)
        self.done = [False] * len(replay.trace)
        self.flags: dict[EventKey, int] = {}
        self.races: list[Race] = []
        self.memory: dict[Region, Any] = {}
        self.tensors = {name: array.copy() for name, array in replay.inputs.items()}
        self.deadlock: list[Step] = []

    def ready(self, step: Step) -> bool:
        node = step.node
        if isinstance(node, WaitInstr):
            return self.flags.get(node.key, 0) > 0
        if isinstance(node, BarrierInstr) and node.pipe is PipeType.ALL:
            return all(self.done[: step.position])
        return True

    def run(self) -> None:
        while any(self.queues.values()):
            ready = [p for p, q in self.queues.items() if q and self.ready(q[0])]
            if not ready:
                self.deadlock = [q[0] for q in self.queues.values() if q]
                return
            if self.rank is not None:
                pipe = min(ready, key=self.rank.__getitem__)
            else:
                pipe = self.rng.choice(sorted(ready, key=lambda p: p.value))
            self.execute(self.queues[pipe].popleft())

    def execute(self, step: Step) -> None:
        node = step.node
        for earlier, kind in self.replay.before[step.position]:
            if not self.done[earlier.position]:
                self.races.append(Race(step, earlier, kind))
        self.done[step.position] = True
        if isinstance(node, SetInstr):
            self.flags[node.key] = self.flags.get(node.key, 0) + 1
        elif isinstance(node, WaitInstr):
            self.flags[node.key] -= 1
        elif isinstance(node, OpInstr):
            if isinstance(node.stmt, YieldStmt):
                self.copy(step, node)
            else:
                self.compute(step, node)

    def copy(self, step: Step, node: OpInstr) -> None:
        source: Region | None = node.access.reads[0] if node.access.reads else None
        if step.yielded is not None and isinstance(step.yielded[0], Var):
            source = self.replay.source(step.yielded[0], step.yielded[1])
        for region in node.access.writes:
            self.memory[region] = self.memory.get(source) if source is not None else None

    def compute(self, step: Step, node: OpInstr) -> None:
        stmt = node.stmt
        assert step.values is not None and isinstance(stmt, AssignStmt | EvalStmt)
        frame = Frame(self.replay.function)
        frame.values = dict(step.values)
        frame.dims = step.dims or {}
        call = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr
        for arg in getattr(call, "args", ()):
            if isinstance(arg, Var):
                frame.values[arg.name] = self.operand(arg, step.values.get(arg.name))
        with np.errstate(all="ignore"):
            result = self.replay.evaluator.eval(call, frame)
        if isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, TileType):
            region = self.replay.placement.region(stmt.var)
            if region is not None:
                self.memory[region] = result

    def operand(self, var: Var, recorded: Any) -> Any:
        """``var``'s value in this interleaving: a tile from its bytes, a tensor this run's."""
        if isinstance(var.type, TensorType) and isinstance(recorded, np.ndarray):
            tensor = self.replay.tensor(recorded, self.tensors)
            return tensor if tensor is not None else recorded
        region = self.replay.source(var, recorded) if isinstance(var.type, TileType) else None
        if region is None or not isinstance(recorded, np.ndarray):
            return recorded
        held = self.memory.get(region)
        if isinstance(held, np.ndarray) and held.shape == recorded.shape:
            return held.astype(recorded.dtype, copy=False)
        return unwritten(recorded)


def unwritten(like: np.ndarray) -> np.ndarray:
    """What a tile read before anything wrote it holds here: NaN, or the largest integer."""
    if np.issubdtype(like.dtype, np.floating) or like.dtype.kind == "V":
        return np.full_like(like, np.nan)
    if like.dtype == np.bool_:
        return np.ones_like(like)
    return np.full_like(like, np.iinfo(like.dtype).max)


class Placement:
    """The bytes each variable's buffer occupies (tiles on chip, after AllocateMemoryAddr)."""

    def __init__(self, function: Function) -> None:
        self.regions = function_regions(function)

    def region(self, var: Var) -> Region | None:
        memref = memref_of(var)
        if memref is None or memref.addr is None or not isinstance(var.type, ShapedType):
            return None
        return self.regions.get(memref.id)


class Replay:
    """The recorded run of one lowered function and what its interleavings share."""

    def __init__(self, program: Program, function: Function, inputs: dict[str, Any]) -> None:
        self.function = function
        self.placement = Placement(function)
        args = [np.array(inputs[p.name], copy=True) for p in function.params]
        self.inputs = {
            p.name: np.array(inputs[p.name], copy=True)
            for p in function.params
            if isinstance(p.type, TensorType)
        }
        recorder = Recorder(program, function, self.placement)
        self.evaluator: Evaluator = recorder
        with np.errstate(all="ignore"):
            recorder.call_function(function, list(args), function.span)
        #: The tensors after the run in program order, and which array was which parameter.
        self.expected = {
            p.name: arg
            for p, arg in zip(function.params, args, strict=True)
            if p.name in self.inputs
        }
        self.tensor_of = {id(arg): name for name, arg in self.expected.items()}
        self.trace = recorder.trace
        self.placed = recorder.placed
        self.before = ordering(self.trace)
        #: Buffers a yield copies into: a carried value is read there, not where it was made.
        self.copied_into = {
            region
            for step in self.trace
            if isinstance(step.node, OpInstr) and isinstance(step.node.stmt, YieldStmt)
            for region in step.node.access.writes
        }

    def source(self, var: Var, recorded: Any) -> Region | None:
        """Where the instruction reading ``var`` (recorded as ``recorded``) finds it: its own
        buffer, unless the generated code re-points it at the buffer the value was made in
        (an if result, a carried value the generator does not copy)."""
        own = self.placement.region(var)
        if own is not None and own in self.copied_into:
            return own
        made = self.placed.get(id(recorded))
        return made[0] if made is not None else own

    def tensor(self, recorded: np.ndarray, tensors: dict[str, np.ndarray]) -> np.ndarray | None:
        """The array of ``tensors`` that ``recorded`` (a parameter of the recorded run, or a
        view of one) stands for, or None."""
        base: Any = recorded
        while isinstance(base, np.ndarray) and id(base) not in self.tensor_of:
            base = base.base
        if not isinstance(base, np.ndarray):
            return None
        target = tensors[self.tensor_of[id(base)]]
        if base is recorded:
            return target
        offset = recorded.ctypes.data - base.ctypes.data
        return np.ndarray(
            recorded.shape, recorded.dtype, buffer=target, offset=offset, strides=recorded.strides
        )


class PipesOutcome(NamedTuple):
    interleavings: int
    races: dict[tuple[int, int], tuple[Race, int]]  # (later, earlier) stmt ids -> first, count
    deadlocks: list[list[Step]]
    mismatches: list[tuple[int, list[Comparison]]]  # interleaving -> results that differ


def run_pipes(
    program: Program, function: Function, inputs: dict[str, Any], seed: int
) -> PipesOutcome:
    from .compare import compare

    replay = Replay(program, function, inputs)
    races: dict[tuple[int, int], tuple[Race, int]] = {}
    deadlocks: list[list[Step]] = []
    mismatches: list[tuple[int, list[Comparison]]] = []
    for number in range(INTERLEAVINGS):
        rng = random.Random(seed * 1_000_003 + number)
        run = Interleaving(replay, rng, priority=number % 2 == 0)
        run.run()
        seen = {(id(r.later.node.stmt), id(r.earlier.node.stmt)): r for r in run.races}
        for key, race in seen.items():
            first, count = races.get(key, (race, 0))
            races[key] = (first, count + 1)
        if run.deadlock:
            deadlocks.append(run.deadlock)
            continue
        differ = [
            comparison
            for p in function.params
            if isinstance(p.type, TensorType)
            for comparison in [
                compare(p.name, p.type.dtype, run.tensors[p.name], replay.expected[p.name])
            ]
            if not comparison.ok
        ]
        if differ:
            mismatches.append((number, differ))
    return PipesOutcome(INTERLEAVINGS, races, deadlocks, mismatches)


def race_line(race: Race) -> str:
    later, earlier = race.later.node, race.earlier.node
    assert isinstance(later, OpInstr)
    where = later.stmt.span
    there = earlier.stmt.span
    assert isinstance(earlier, OpInstr)
    mine = later.access.reads + later.access.writes
    theirs = earlier.access.reads + earlier.access.writes
    shared = [r for r in mine if any(r.overlaps(o) for o in theirs)]
    what = shared[0].describe() if shared else "a buffer"
    return (
        f"{where.file}:{where.line}:{where.column + 1}: race ({race.kind}): "
        f"{pipe_of(later).name} at line {where.line} ran before {pipe_of(earlier).name} at "
        f"line {there.line} ({what}): a {pipe_of(earlier).name}→{pipe_of(later).name} wait "
        "is missing"
    )


def deadlock_line(blocked: list[Step]) -> str:
    waits = [s for s in blocked if isinstance(s.node, WaitInstr)]
    parts = [
        f"{pipe_of(s.node).name} at line {s.node.stmt.span.line} waits for {s.node.key.describe()}"
        for s in waits
        if isinstance(s.node, WaitInstr)
    ]
    first = (waits or blocked)[0].node.stmt.span
    return f"{first.file}:{first.line}:{first.column + 1}: deadlock: " + "; ".join(parts)
