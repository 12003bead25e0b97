"""The happens-before walk over a function's instruction stream and what it reports.

Each pipe runs its instructions in program order; V and M may overlap their own instructions
(the target's ``barrier_pipes``) until a barrier. ``set_flag(Q, P, e)`` fires once Q's
earlier work (and all Q waited for) is done; ``wait_flag(Q, P, e)`` holds P's later work
until then. Sets and waits pair in program order per event. Two accesses to overlapping
bytes, one a write, on different pipes must be ordered by such a chain (E410); on one
overlapping pipe, by a barrier (E411). Events are checked too: a wait with nothing in flight
(E412 when a set follows it, else E415: it never returns), a set that no wait takes (E412),
a set of an event still in flight (E413), a ninth event in flight between two pipes (E414),
and a wait that only some paths reaching it signalled (E415).

Loops are walked twice (once when they run once; joined with the state before them when
they may run zero times), so what one iteration leaves to the next is checked like straight
code; an if's two paths are walked from the same state and joined.
"""

from __future__ import annotations

from typing import NamedTuple

from ...diagnostics import Diagnostic, Related, Severity
from ...ir.span import Span
from ...ops.registry import PipeType
from ..target import Target
from .state import Pending, SyncState, Use
from .stream import (
    BarrierInstr,
    Branch,
    Loop,
    Node,
    OpInstr,
    Region,
    SetInstr,
    WaitInstr,
)


class Words(NamedTuple):
    """How the checked code spells its sync, for the messages."""

    set: str = "sync_src"
    wait: str = "sync_dst"
    barrier_form: str = "pl.system.bar_{pipe}()"  # {pipe}: v or m; {PIPE}: V or M

    def barrier(self, pipe: PipeType) -> str:
        return self.barrier_form.format(pipe=pipe.name.lower(), PIPE=pipe.name)


#: The IR route (the DSL's sync ops) and the PTO route's C++ (PTOAS's sync).
IR_WORDS = Words()
CPP_WORDS = Words("set_flag", "wait_flag", "pipe_barrier(PIPE_{PIPE})")

#: Event ids per pair of pipes (CCE's EVENT_ID0 .. EVENT_ID7; the registry checks 0..7).
EVENTS_PER_PAIR = 8
#: How many times a loop body is walked (enough for what an iteration leaves to the next).
LOOP_WALKS = 2


def _positions(nodes: tuple[Node, ...], into: dict[int, int]) -> None:
    """Each instruction's statement -> its position in program order (first occurrence)."""
    for node in nodes:
        if isinstance(node, Branch):
            _positions(node.then, into)
            _positions(node.orelse, into)
        elif isinstance(node, Loop):
            _positions(node.body, into)
        else:
            into.setdefault(id(node), len(into))


class SyncChecker:
    """``chained``: regions where a V instruction reading exactly what the V instruction
    before it wrote needs no barrier (PTOAS's rule for long vector accesses: see
    ``cpp_stream.chain_ordered``); none on the IR route."""

    def __init__(
        self,
        nodes: tuple[Node, ...],
        target: Target,
        chained: frozenset[Region] = frozenset(),
        words: Words = IR_WORDS,
    ) -> None:
        self.nodes = nodes
        self.words = words
        self.overlapping = target.barrier_pipes
        self.chained = chained
        self.time = 0
        self.found: dict[tuple[str, Span, Span | None], Diagnostic] = {}
        self.position: dict[int, int] = {}
        _positions(nodes, self.position)

    def run(self) -> list[Diagnostic]:
        put, take = self.words.set, self.words.wait
        state = self.walk(self.nodes, SyncState())
        for pending in state.events.values():
            setter = pending.setter
            self.report(
                "E412",
                f"{put} of {setter.key.describe()} is never waited for: no {take} of "
                "it follows on every path",
                setter.stmt.span,
            )
        return sorted(self.found.values(), key=lambda d: (d.span.line, d.span.column, d.code))

    def report(
        self, code: str, message: str, span: Span, other: Span | None = None, note: str = ""
    ) -> None:
        key = (code, span, other)
        if key in self.found:
            return
        related = (Related(other, note),) if other is not None else ()
        self.found[key] = Diagnostic(code, Severity.ERROR, message, span, related)

    def tick(self) -> int:
        self.time += 1
        return self.time

    # --- walking ----------------------------------------------------------------------------

    def walk(self, nodes: tuple[Node, ...], state: SyncState) -> SyncState:
        for node in nodes:
            if isinstance(node, OpInstr):
                self.op(node, state)
            elif isinstance(node, SetInstr):
                self.set(node, state)
            elif isinstance(node, WaitInstr):
                self.wait(node, state)
            elif isinstance(node, BarrierInstr):
                state.barrier(node.pipe)
            elif isinstance(node, Branch):
                then = self.walk(node.then, state.copy())
                state = then.join(self.walk(node.orelse, state.copy()))
            else:
                state = self.loop(node, state)
        return state

    def loop(self, loop: Loop, state: SyncState) -> SyncState:
        if loop.trips == 0:
            return state
        walks = LOOP_WALKS if loop.trips is None else min(loop.trips, LOOP_WALKS)
        current = state.copy()
        for _ in range(walks):
            current = self.walk(loop.body, current)
        return state.join(current) if loop.trips is None else current

    # --- instructions -----------------------------------------------------------------------

    def op(self, instr: OpInstr, state: SyncState) -> None:
        time = self.tick()
        pipe = instr.pipe
        reads, writes = instr.access
        for use in list(state.uses):
            if not use.write and not writes:
                continue
            for region in writes:
                if use.region.overlaps(region):
                    self.check(instr, state, use, region, True)
            if use.write:
                for region in reads:
                    if use.region.overlaps(region):
                        self.check(instr, state, use, region, False)
        state.uses.extend(Use(time, pipe, False, r, instr) for r in reads)
        for region in writes:
            state.record_write(Use(time, pipe, True, region, instr))
        state.issue(pipe, time, pipe not in self.overlapping)

    def check(
        self, instr: OpInstr, state: SyncState, use: Use, region: Region, write: bool
    ) -> None:
        if state.done_before(instr.pipe, use.pipe) >= use.time:
            return
        if (
            use.pipe is instr.pipe is PipeType.V
            and use.write
            and use.region == region
            and region in self.chained
            and region in instr.access.reads
        ):
            return  # the same long access, written then read in order on V
        kind = (
            "write after write"
            if write and use.write
            else ("write after read" if write else "read after write")
        )
        other = use.instr.stmt.span  # type: ignore[attr-defined]
        verb = "overwrites" if write else "reads"
        earlier = "wrote" if use.write else "read"
        where = region.describe()
        if use.pipe is instr.pipe:
            barrier = self.words.barrier(instr.pipe)
            self.report(
                "E411",
                f"{instr.pipe.name} {verb} {where}, which {instr.pipe.name} {earlier} at line "
                f"{other.line}, with no {barrier} between them ({kind})",
                instr.stmt.span,
                other,
                f"the earlier {instr.pipe.name} access",
            )
            return
        self.report(
            "E410",
            f"{instr.pipe.name} {verb} {where}, which {use.pipe.name} {earlier} at line "
            f"{other.line}, and no sync orders them ({kind}): a {use.pipe.name}→"
            f"{instr.pipe.name} set/wait pair is missing",
            instr.stmt.span,
            other,
            f"the {use.pipe.name} access",
        )

    def set(self, instr: SetInstr, state: SyncState) -> None:
        put = self.words.set
        key = instr.key
        previous = state.events.get(key)
        if previous is not None:
            in_flight = sum(1 for k in state.events if k[:2] == key[:2])
            if in_flight >= EVENTS_PER_PAIR:
                self.report(
                    "E414",
                    f"{put} of {key.describe()} needs a {in_flight + 1}th event between "
                    f"{key.signal.name} and {key.wait.name}: the hardware has "
                    f"{EVENTS_PER_PAIR} (EVENT_ID0..{EVENTS_PER_PAIR - 1})",
                    instr.stmt.span,
                )
            else:
                self.report(
                    "E413",
                    f"{put} sets {key.describe()} again while it is in flight (set at line "
                    f"{previous.setter.stmt.span.line}, not yet waited for)",
                    instr.stmt.span,
                    previous.setter.stmt.span,
                    "the earlier set",
                )
        state.events[key] = Pending(state.signal_clock(key.signal), instr, False)
        self.tick()

    def wait(self, instr: WaitInstr, state: SyncState) -> None:
        put, take = self.words.set, self.words.wait
        key = instr.key
        pending = state.events.pop(key, None)
        if pending is None:
            if self.set_follows(instr):
                self.report(
                    "E412",
                    f"{take} of {key.describe()} comes before its {put}: no set of this "
                    "event is in flight here",
                    instr.stmt.span,
                )
            else:
                self.report(
                    "E415",
                    f"{take} of {key.describe()} can never be satisfied: no {put} of it is "
                    f"in flight and none follows, so {key.wait.name} waits forever (deadlock)",
                    instr.stmt.span,
                )
            return
        if pending.partial:
            self.report(
                "E415",
                f"{take} of {key.describe()} waits for an event only some paths set: on the "
                f"others {key.wait.name} waits forever (deadlock)",
                instr.stmt.span,
                pending.setter.stmt.span,
                "the set, on some paths only",
            )
        state.receive(key.wait, pending.clock)
        self.tick()

    def set_follows(self, instr: WaitInstr) -> bool:
        here = self.position.get(id(instr), -1)
        return any(
            isinstance(node, SetInstr) and node.key == instr.key and where > here
            for node, where in self.instructions()
        )

    def instructions(self) -> list[tuple[Node, int]]:
        found: list[tuple[Node, int]] = []
        self._instructions_into(self.nodes, found)
        return found

    def _instructions_into(self, nodes: tuple[Node, ...], found: list[tuple[Node, int]]) -> None:
        # (a method: a nested function calling itself is a reference cycle, issue #33)
        for node in nodes:
            if isinstance(node, Branch):
                self._instructions_into(node.then, found)
                self._instructions_into(node.orelse, found)
            elif isinstance(node, Loop):
                self._instructions_into(node.body, found)
            else:
                found.append((node, self.position[id(node)]))
