"""InsertSync: flags between hardware pipes, so that no op reads or overwrites a buffer
before the op it depends on has finished.

Every op-call statement runs on the pipe its registration names (MTE2 load, V vector, M
matmul, MTE3 store, MTE1 move, FIX l0c_store); ops on the scalar pipe and calls of program
functions are not tracked. A statement on pipe P depends on earlier work on pipe Q != P when
it reads a buffer Q last wrote (RAW), writes a buffer Q read since its last write (WAR), or
writes a buffer Q last wrote (WAW). Buffers are MemRefs; a loop-carried value or an if result
stands for every buffer that can flow into it (see buffers.py).

Placement. For each dependency not yet covered, a pair

    system.sync_src(set_pipe=Q, wait_pipe=P, event_id=0)
    system.sync_dst(set_pipe=Q, wait_pipe=P, event_id=0)

goes immediately before the consumer: one pair per (Q, P) per consumer, however many buffers
need it. Because the two halves are adjacent, no two pairs are ever in flight at once and the
event id is always 0. A dependency is covered, and no pair is repeated, when a pair Q -> P was
placed after the producer; coverage is transitive (after Q -> R and then R -> P, P also waits
for Q's work issued before the first pair), so e.g. a store after load -> add needs only
V -> MTE3. When one consumer needs several pairs, the pair that covers the most is placed first.

Loops. Dependencies of a loop body on work before the loop are covered by pairs placed just
before the loop statement (once, not every iteration). Dependencies carried around the back
edge (a load at the top of iteration i+1 overwriting a buffer the previous iteration's vector
op read, a vector op overwriting what the previous iteration's store reads) get their pair
just before the consumer at the top of the body; the adjacent set/wait is harmless on the
first iteration. The body is analysed repeatedly from the state the previous pass through it
left, until no new pair appears. After an if or a loop (which may run zero times) the
states of all paths are merged conservatively. Each loop's outcome is remembered per entry
state (up to renaming its times, which only ever get compared), so an outer loop's repeated
passes replay its inner loops instead of solving them again: linear in nesting depth where
solving afresh doubled the work per level.

Barriers. The V and M pipes may overlap their own instructions: an op on such a pipe (the
target's ``barrier_pipes``) that reads a buffer last written by an earlier op of the same
pipe, or writes a buffer an earlier op of the same pipe read or wrote since that buffer's
last write (buffers MemoryReuse shares between a dead value and a new one), with no barrier
since, gets ``system.bar_v()`` / ``system.bar_m()`` before it.

Sync statements already in the IR that this pass creates (sync_src, sync_dst, bar_v, bar_m)
are removed first, so running the pass twice gives the same result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, cast

from ..ir.expr import AttrValue, Call, Op, Var
from ..ir.fields import layout
from ..ir.function import Function
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    LoopStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
)
from ..ir.types import UNKNOWN
from ..ir.visitor import with_fields
from ..ops.registry import OpDef, PipeType
from ..records import field, record
from .base import FunctionPass, PassContext
from .buffers import buffer_aliases, memref_of, var_buffers
from .irutil import expr_vars, op_call_of
from .op_info import (
    barrier_op,
    is_inserted_sync,
    op_def,
    set_flag_op,
    wait_flag_op,
    written_positions,
)
from .rewriter import map_bodies
from .target import Target

_UNTRACKED = frozenset({PipeType.S.value, PipeType.ALL.value})
#: The statements that hold no body (most statements).
_LEAVES = (AssignStmt, EvalStmt)
#: The statements holding bodies (a tuple: ``isinstance`` with a new union costs more).
_HOLDS_BODIES = (IfStmt, ForStmt, WhileStmt, ScopeStmt)
_MAX_LOOP_PASSES = 8
#: Pipes are plain ints (their ``PipeType`` values) inside the planner: its frozen states sort
#: them (members do not order) and its tables are keyed by them at every statement.
Pipe = int
_PIPES = {pipe.value: pipe for pipe in PipeType}
_PIPE_VALUES = {pipe: pipe.value for pipe in PipeType}


class Pair(NamedTuple):
    """A sync_src/sync_dst pair: ``wait`` waits for ``signal``'s earlier work."""

    signal: Pipe
    wait: Pipe


class Barrier(NamedTuple):
    pipe: Pipe


SyncEntry = Pair | Barrier


class Effects(NamedTuple):
    pipe: Pipe
    reads: frozenset[int]
    writes: frozenset[int]


class _Step(NamedTuple):
    """An op statement on a tracked pipe, with what it reads and writes."""

    stmt: Stmt
    effects: Effects


class _Branch(NamedTuple):
    stmt: IfStmt
    then: tuple[_Node, ...]
    orelse: tuple[_Node, ...]


class _Loop(NamedTuple):
    stmt: LoopStmt
    body: tuple[_Node, ...]


#: What the planner walks: a body reduced to tracked op statements, ifs and loops.
_Node = _Step | _Branch | _Loop


@record
class _State:
    """What is known at one program point. Times are positions in the analysis order."""

    # buffer -> pipe -> time of its latest write on that pipe (only the last writer's pipe
    # remains after a write, unless paths merged)
    writes: dict[int, dict[Pipe, int]] = field(default_factory=dict)
    # buffer -> pipe -> time of its latest read since the buffer's last write
    reads: dict[int, dict[Pipe, int]] = field(default_factory=dict)
    # (waiter, producer) -> T: producer work issued before T is done before waiter work
    # issued from now on
    synced: dict[tuple[Pipe, Pipe], int] = field(default_factory=dict)
    # pipe -> time of its latest barrier
    barrier: dict[Pipe, int] = field(default_factory=dict)

    def copy(self) -> _State:
        # The per-buffer maps are never changed in place (see ``access`` and ``_merge``), so
        # copies share them.
        return _State(
            self.writes.copy(), self.reads.copy(), self.synced.copy(), self.barrier.copy()
        )

    def join(self, other: _State) -> _State:
        """Either path may have been taken: every access of both, only the sync of both."""
        return _State(
            _merge(self.writes, other.writes),
            _merge(self.reads, other.reads),
            {k: min(v, other.synced[k]) for k, v in self.synced.items() if k in other.synced},
            {k: min(v, other.barrier[k]) for k, v in self.barrier.items() if k in other.barrier},
        )

    def apply(self, entry: SyncEntry, time: int) -> None:
        if isinstance(entry, Barrier):
            self.barrier[entry.pipe] = time
            return
        waiter, producer = entry.wait, entry.signal
        synced = self.synced
        # A round trip (the producer waited for the waiter's work before T) completes the
        # waiter's own work issued before T, as a barrier at T would.
        back = synced.get((producer, waiter))
        if back is not None:
            self.barrier[waiter] = max(self.barrier.get(waiter, -1), back)
        synced[(waiter, producer)] = time
        # The signal fires after everything the producer pipe already waited for.
        for (w, p), t in list(synced.items()):
            if w == producer and p != waiter:
                synced[(waiter, p)] = max(synced.get((waiter, p), -1), t)

    def access(self, effects: Effects, time: int) -> None:
        pipe, reads, writes = effects
        for buffer in reads:
            pipes = self.reads.get(buffer)
            if pipes is None:
                self.reads[buffer] = {pipe: time}
            else:
                self.reads[buffer] = {**pipes, pipe: time}
        for buffer in writes:
            self.writes[buffer] = {pipe: time}
            self.reads[buffer] = {}

    def pending(self, effects: Effects) -> dict[Pipe, int]:
        """Producer pipe -> time of the latest work ``effects`` depends on that is not yet
        covered (other pipes only)."""
        pipe, reads, writes = effects
        out: dict[Pipe, int] = {}
        synced = self.synced
        for found in _accesses(self.writes, self.reads, reads, writes):
            for producer, t in found.items():
                if (
                    producer != pipe
                    and synced.get((pipe, producer), -1) < t
                    and out.get(producer, -1) < t
                ):
                    out[producer] = t
        return out

    def times(self) -> set[int]:
        out = {t for pipes in self.writes.values() for t in pipes.values()}
        out.update(t for pipes in self.reads.values() for t in pipes.values())
        out.update(self.synced.values())
        out.update(self.barrier.values())
        return out

    def relabel(self, label: Callable[[int], int]) -> _FrozenState:
        """The state with every time replaced by ``label(time)``, hashable and independent of
        dict order (empty per-buffer maps mean nothing and are dropped)."""

        def accesses(table: dict[int, dict[Pipe, int]]) -> _FrozenAccesses:
            return tuple(
                sorted(
                    (b, tuple(sorted((p, label(t)) for p, t in pipes.items())))
                    for b, pipes in table.items()
                    if pipes
                )
            )

        return (
            accesses(self.writes),
            accesses(self.reads),
            tuple(sorted((key, label(t)) for key, t in self.synced.items())),
            tuple(sorted((p, label(t)) for p, t in self.barrier.items())),
        )

    @staticmethod
    def thaw(frozen: _FrozenState, label: Callable[[int], int]) -> _State:
        def accesses(table: _FrozenAccesses) -> dict[int, dict[Pipe, int]]:
            return {b: {p: label(t) for p, t in pipes} for b, pipes in table}

        writes, reads, synced, barrier = frozen
        return _State(
            accesses(writes),
            accesses(reads),
            {key: label(t) for key, t in synced},
            {p: label(t) for p, t in barrier},
        )

    def needs_barrier(self, effects: Effects) -> bool:
        """Whether ``effects``, on a pipe that may overlap its own instructions, needs a
        barrier first."""
        pipe, reads, writes = effects
        last = self.barrier.get(pipe, -1)
        written, read = self.writes, self.reads
        if any(written.get(b, {}).get(pipe, -1) > last for b in reads):
            return True  # read after write
        # Write after read or write: buffers MemoryReuse shares, a result overwriting an
        # operand the pipe's previous instruction may still be reading or writing.
        return any(
            written.get(b, {}).get(pipe, -1) > last or read.get(b, {}).get(pipe, -1) > last
            for b in writes
        )


def _accesses(
    written: dict[int, dict[Pipe, int]],
    read: dict[int, dict[Pipe, int]],
    reads: frozenset[int],
    writes: frozenset[int],
) -> list[dict[Pipe, int]]:
    """The access tables an op depends on: the last writes of what it reads, the last writes
    and reads of what it writes (those not empty, in that order)."""
    get_written, get_read = written.get, read.get
    found = [get_written(b) for b in reads]
    for b in writes:
        found.append(get_written(b))
        found.append(get_read(b))
    return [f for f in found if f]


_FrozenAccesses = tuple[tuple[int, tuple[tuple[int, int], ...]], ...]
_FrozenState = tuple[
    _FrozenAccesses,
    _FrozenAccesses,
    tuple[tuple[tuple[int, int], int], ...],
    tuple[tuple[int, int], ...],
]


def _merge(
    a: dict[int, dict[Pipe, int]], b: dict[int, dict[Pipe, int]]
) -> dict[int, dict[Pipe, int]]:
    out = a.copy()
    for buffer, pipes in b.items():
        into = out.get(buffer)
        if into is None or into is pipes:
            out[buffer] = pipes
            continue
        into = into.copy()
        for pipe, t in pipes.items():
            into[pipe] = max(into.get(pipe, -1), t)
        out[buffer] = into
    return out


@record
class _Hoist:
    """Collects pairs whose producers all precede a loop, while probing its body."""

    loop_start: int
    found: list[Pair] = field(default_factory=list)


class _Planner:
    """Decides which sync entries go before which statement (keyed by statement identity)."""

    def __init__(self, target: Target, ctx: PassContext, remember: bool = True) -> None:
        self.target = target
        self.remember = remember  # False only to test that summaries change nothing
        self.ctx = ctx
        self.time = 0
        self.plan: dict[int, list[SyncEntry]] = {}
        self.recorded = 0
        self.recording = True
        self.hoist: _Hoist | None = None
        self.summaries: dict[tuple[object, ...], _LoopSummary] = {}
        self.visits = 0  # statements walked, for the test that depth costs linear time
        self.depth = 0  # loops being analysed around the statement walked
        #: The pipes that may overlap their own instructions and have a barrier op.
        self.barrier_pipes = frozenset(
            pipe.value for pipe in target.barrier_pipes if barrier_op(pipe) is not None
        )

    def tick(self) -> int:
        self.time += 1
        return self.time

    def record(self, stmt: Stmt, entry: SyncEntry) -> None:
        entries = self.plan.setdefault(id(stmt), [])
        if entry not in entries:
            entries.append(entry)
            self.recorded += 1

    def apply_planned(self, stmt: Stmt, state: _State) -> None:
        for entry in self.plan.get(id(stmt), []):
            state.apply(entry, self.tick())

    # --- walking ----------------------------------------------------------------------------

    def run(self, nodes: tuple[_Node, ...], state: _State) -> _State:
        for node in nodes:
            self.visits += 1
            self.ctx.at(node.stmt.span)
            if isinstance(node, _Step):
                self.consume(node.stmt, node.effects, state)
            elif isinstance(node, _Branch):
                then_state = self.run(node.then, state.copy())
                state = then_state.join(self.run(node.orelse, state.copy()))
            else:
                state = self.loop(node, state)
        return state

    def consume(self, stmt: Stmt, effects: Effects, state: _State) -> None:
        if id(stmt) in self.plan:
            self.apply_planned(stmt, state)
        while True:
            pending = state.pending(effects)
            if not pending:
                break
            pair = self.best_pair(effects, state, pending)
            if self.hoist is not None and pending[pair.signal] < self.hoist.loop_start:
                if pair not in self.hoist.found:
                    self.hoist.found.append(pair)
            elif self.recording:
                self.record(stmt, pair)
            state.apply(pair, self.tick())
        if effects.pipe in self.barrier_pipes and state.needs_barrier(effects):
            barrier = Barrier(effects.pipe)
            if self.recording:
                self.record(stmt, barrier)
            state.apply(barrier, self.tick())
        self.time += 1
        state.access(effects, self.time)

    @staticmethod
    def best_pair(effects: Effects, state: _State, pending: dict[Pipe, int]) -> Pair:
        """The pair leaving the fewest dependencies uncovered (lowest pipe on a tie)."""
        if len(pending) == 1:
            return Pair(next(iter(pending)), effects.pipe)

        def remaining(signal: Pipe) -> tuple[int, int]:
            # A pair changes only what is synced (accesses are shared, not copied).
            trial = _State(state.writes, state.reads, state.synced.copy(), state.barrier.copy())
            trial.apply(Pair(signal, effects.pipe), 1 << 60)
            return len(trial.pending(effects)), signal

        return Pair(min(pending, key=remaining), effects.pipe)

    def loop(self, loop: _Loop, state: _State) -> _State:
        """``analyse_loop``, remembered: its outcome depends only on the order of the times in
        ``state`` (and the enclosing probe's start), never on their values, so a loop entered
        again in an equivalent state while the plan is unchanged replays its summary. Without
        this every enclosing fixpoint pass re-solves every inner loop: exponential in depth.
        A loop in no other loop is entered once: nothing to remember."""
        if not self.depth:
            return self.analyse_loop(loop, state)
        outer = self.hoist
        times = sorted(state.times() | ({outer.loop_start} if outer is not None else set()))
        rank = {t: i for i, t in enumerate(times)}
        key = (
            id(loop.stmt),
            self.recording,
            self.recorded,
            rank[outer.loop_start] if outer is not None else -1,
            state.relabel(rank.__getitem__),
        )
        summary = self.summaries.get(key)
        if summary is None:
            start, recorded = self.time, self.recorded
            if outer is not None:
                self.hoist = _Hoist(outer.loop_start)
            exit_state = self.analyse_loop(loop, state)
            found = self.hoist.found if self.hoist is not None else []
            self.hoist = outer
            # Old times become negative ranks, new ones offsets from the loop's start.
            summary = _LoopSummary(
                exit_state.relabel(lambda t: ~rank[t] if t <= start else t - start),
                self.time - start,
                tuple(found),
                self.ctx.focus,
            )
            if self.remember and self.recorded == recorded:
                self.summaries[key] = summary
        else:
            self.time += summary.ticks
            if summary.focus is not None:
                self.ctx.at(summary.focus)
        if outer is not None:
            outer.found.extend(p for p in summary.hoisted if p not in outer.found)
        end = self.time - summary.ticks
        return _State.thaw(summary.exit_state, lambda t: times[~t] if t < 0 else end + t)

    def analyse_loop(self, loop: _Loop, state: _State) -> _State:
        self.depth += 1
        try:
            return self.solve_loop(loop, state)
        finally:
            self.depth -= 1

    def solve_loop(self, loop: _Loop, state: _State) -> _State:
        self.apply_planned(loop.stmt, state)
        if not self.recording:
            # Probing an enclosing loop: one pass through the body is enough to see which
            # work before that loop this body depends on.
            return state.join(self.run(loop.body, state.copy()))

        hoist = _Hoist(self.tick())
        saved = self.hoist
        self.recording, self.hoist = False, hoist
        self.run(loop.body, state.copy())
        self.recording, self.hoist = True, saved
        for pair in hoist.found:
            self.record(loop.stmt, pair)
            state.apply(pair, self.tick())

        current, passes = state, 0
        while True:
            before = self.recorded
            exit_state = self.run(loop.body, current.copy())
            passes += 1
            if (passes >= 2 and self.recorded == before) or passes >= _MAX_LOOP_PASSES:
                break
            current = exit_state
        return state.join(exit_state)


@record(frozen=True)
class _LoopSummary:
    """What analysing a loop did, with times relative to its entry (see ``_Planner.loop``)."""

    exit_state: _FrozenState
    ticks: int
    hoisted: tuple[Pair, ...]
    focus: Span | None


# --- reading the IR ---------------------------------------------------------------------------


def _effects(stmt: Stmt, call: Call, op: OpDef, aliases: dict[Var, frozenset[int]]) -> Effects:
    writes: set[int] = set()
    if isinstance(stmt, AssignStmt):
        memref = memref_of(stmt.var)
        if memref is not None:
            writes.add(memref.id)
    args = call.args
    positions = written_positions(op)
    written = [args[i] for i in positions if i < len(args)] if positions else []
    for out in written:  # output tensors and scratch tiles
        if isinstance(out, Var):
            writes |= var_buffers(out, aliases)
    reads: set[int] = set()
    for arg in args:
        if written and any(arg is out for out in written):
            continue
        if type(arg) is Var:  # most arguments: skip the walk
            found = aliases.get(arg)
            reads |= found if found is not None else var_buffers(arg, aliases)
        elif layout(type(arg)).operands:  # not a constant
            for var in expr_vars(arg):
                reads |= var_buffers(var, aliases)
    return Effects(_PIPE_VALUES[op.pipe], frozenset(reads), frozenset(writes))


class _Outline:
    """One walk over a function body: the nodes the planner walks (each statement's effects
    computed once, though loops are walked several times), each statement's parent, the
    sequences directly inside a sequence, and whether a previous run's sync is there."""

    def __init__(self, body: Stmt, aliases: dict[Var, frozenset[int]]) -> None:
        self.aliases = aliases
        #: id(statement) -> the statement holding it; ``shared``: more holders of a node
        #: that is in several places
        self.parent: dict[int, Stmt] = {}
        self.shared: dict[int, list[Stmt]] = {}
        self.nested: list[Stmt] = []
        self.has_syncs = False
        self.nodes = self.walk(body, None)

    def walk(self, stmt: Stmt | None, parent: Stmt | None) -> tuple[_Node, ...]:
        nodes: list[_Node] = []
        if stmt is not None:
            self.add(stmt, parent, nodes)
        return tuple(nodes)

    def add(self, stmt: Stmt, parent: Stmt | None, nodes: list[_Node]) -> None:
        if parent is not None:
            if id(stmt) in self.parent:
                self.shared.setdefault(id(stmt), []).append(parent)
            else:
                self.parent[id(stmt)] = parent
        if isinstance(stmt, _LEAVES):
            self.step(stmt, nodes)
        elif isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                if isinstance(s, SeqStmts):
                    self.nested.append(s)
                self.add(s, stmt, nodes)
        elif isinstance(stmt, IfStmt):
            then, orelse = self.walk(stmt.then_body, stmt), self.walk(stmt.else_body, stmt)
            nodes.append(_Branch(stmt, then, orelse))
        elif isinstance(stmt, LoopStmt):
            nodes.append(_Loop(stmt, self.walk(stmt.body, stmt)))
        elif isinstance(stmt, ScopeStmt):
            self.add(stmt.body, stmt, nodes)
        else:
            self.step(stmt, nodes)

    def step(self, stmt: Stmt, nodes: list[_Node]) -> None:
        call = op_call_of(stmt)
        op = op_def(call) if call is not None else None
        if op is None or call is None:
            return
        if isinstance(stmt, EvalStmt) and is_inserted_sync(call):
            self.has_syncs = True
        elif _PIPE_VALUES[op.pipe] not in _UNTRACKED:
            nodes.append(_Step(stmt, _effects(stmt, call, op, self.aliases)))

    def changed(self, planned: list[int]) -> set[int]:
        """The statements the builder must rebuild: those with sync placed before them, the
        sequences it splices, and every statement holding one of those."""
        out: set[int] = set()
        todo = [*planned, *(id(s) for s in self.nested)]
        while todo:
            key = todo.pop()
            if key not in out:
                out.add(key)
                parent = self.parent.get(key)
                if parent is not None:
                    todo.append(id(parent))
                    todo.extend(id(other) for other in self.shared.get(key, ()))
        return out


# --- building the IR --------------------------------------------------------------------------


class _Builder:
    """Rebuilds the statements holding planned sync (the others are kept as they are)."""

    def __init__(self, plan: dict[int, list[SyncEntry]], changed: set[int]) -> None:
        self.plan = plan
        self.changed = changed
        self.flags = Op(set_flag_op().name), Op(wait_flag_op().name)
        #: The callee and attributes of each entry's statements, made once per function.
        self.calls: dict[SyncEntry, list[tuple[Op, tuple[tuple[str, AttrValue], ...]]]] = {}

    def sync_stmts(self, entry: SyncEntry, span: Span) -> list[Stmt]:
        calls = self.calls.get(entry)
        if calls is None:
            calls = self.calls[entry] = self.sync_calls(entry)
        return [
            EvalStmt(Call(UNKNOWN, callee=op, args=(), kwargs=kwargs, span=span), span=span)
            for op, kwargs in calls
        ]

    def sync_calls(self, entry: SyncEntry) -> list[tuple[Op, tuple[tuple[str, AttrValue], ...]]]:
        if isinstance(entry, Barrier):
            barrier = barrier_op(_PIPES[entry.pipe])
            assert barrier is not None  # the planner only plans barriers that exist
            return [(Op(barrier.name), ())]
        kwargs = cast(
            tuple[tuple[str, AttrValue], ...],
            (
                ("set_pipe", _PIPES[entry.signal]),
                ("wait_pipe", _PIPES[entry.wait]),
                ("event_id", 0),
            ),
        )
        return [(op, kwargs) for op in self.flags]

    def before(self, stmt: Stmt) -> list[Stmt]:
        entries = self.plan.get(id(stmt))
        if not entries:
            return []
        return [s for entry in entries for s in self.sync_stmts(entry, stmt.span)]

    def body(self, stmt: Stmt) -> Stmt:
        if id(stmt) not in self.changed:
            return stmt
        items = [*self.before(stmt), self.stmt(stmt)]
        return items[0] if len(items) == 1 else SeqStmts(tuple(items), span=stmt.span)

    def stmt(self, stmt: Stmt) -> Stmt:
        if id(stmt) not in self.changed:
            return stmt
        if isinstance(stmt, SeqStmts):
            # Nested sequences are all changed and come back flat: splice them in.
            items: list[Stmt] = []
            for s in stmt.stmts:
                if id(s) not in self.changed:
                    items.append(s)
                    continue
                items.extend(self.before(s))
                new = self.stmt(s)
                if isinstance(new, SeqStmts):
                    items.extend(new.stmts)
                else:
                    items.append(new)
            return SeqStmts(tuple(items), span=stmt.span)
        if isinstance(stmt, _HOLDS_BODIES):
            return map_bodies(stmt, self.body)
        return stmt  # sync goes before it, not in it


def _without_inserted_syncs(stmt: Stmt) -> Stmt:
    def keep(s: Stmt) -> bool:
        call = op_call_of(s)
        return not (isinstance(s, EvalStmt) and call is not None and is_inserted_sync(call))

    if isinstance(stmt, SeqStmts):
        kept = [_without_inserted_syncs(s) for s in stmt.stmts if keep(s)]
        return SeqStmts(tuple(kept), span=stmt.span)
    if not keep(stmt):
        return SeqStmts((), span=stmt.span)
    return map_bodies(stmt, _without_inserted_syncs)


class InsertSync(FunctionPass):
    name = "InsertSync"
    description = (
        "Insert sync_src/sync_dst pairs between pipes (MTE2, V, M, MTE1, MTE3, FIX) "
        "where an op reads or overwrites a buffer another pipe used, and bar_v/bar_m "
        "between dependent ops of one pipe."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        return plan_sync(fn, ctx)[0]


def plan_sync(fn: Function, ctx: PassContext, remember: bool = True) -> tuple[Function, int]:
    """The function with its sync planned afresh, and how many statements the planner walked
    (``remember=False``: without loop summaries, exponential in loop depth; for tests only)."""
    # Sync statements bind nothing, so the buffers are the same with or without them.
    aliases = buffer_aliases(fn)
    outline = _Outline(fn.body, aliases)
    if outline.has_syncs:
        fn = with_fields(fn, body=_without_inserted_syncs(fn.body))
        outline = _Outline(fn.body, aliases)
    planner = _Planner(ctx.target, ctx, remember)
    planner.run(outline.nodes, _State())
    planned = [key for key, entries in planner.plan.items() if entries]
    if not planned:
        return fn, planner.visits
    builder = _Builder(planner.plan, outline.changed(planned))
    return with_fields(fn, body=builder.body(fn.body)), planner.visits
