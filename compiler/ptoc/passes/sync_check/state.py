"""What the checker knows at one program point: vector clocks per pipe, the events in flight
and the memory accesses not yet known to be complete.

Times are positions in the order the checker walks the program (each instruction a new
one). ``clock[P][Q] = T``: every instruction of pipe Q issued at or before T has finished
before P's next instruction starts. After an if the two paths' states are joined: the clocks
keep what holds on both (the minimum; a time of the other path's instructions claims nothing
on this one), the accesses and events of either path remain.
"""

from __future__ import annotations

from typing import NamedTuple

from ...ops.registry import PipeType
from ...records import field, record
from .stream import EventKey, Region, SetInstr

Clock = dict[PipeType, int]


class Pending(NamedTuple):
    """An event set and not yet waited for: the work it completes, where it was set, and
    whether some path reaching here did not set it."""

    clock: tuple[tuple[PipeType, int], ...]
    setter: SetInstr
    partial: bool


class Use(NamedTuple):
    """One access to a region by an op instruction issued at ``time``."""

    time: int
    pipe: PipeType
    write: bool
    region: Region
    instr: object  # the OpInstr (kept opaque: only its statement is reported)


def _meet(a: Clock, b: Clock, last_a: Clock, last_b: Clock) -> Clock:
    """What holds on both paths: for each pipe Q, the work of Q finished on both. A path on
    which all of its own Q work is finished (its clock reaches its latest Q instruction)
    claims nothing about the other path's Q work, so the other's clock stands (the zero-trip
    path of a loop, or an if without else, does not undo what the other path ordered)."""
    out: Clock = {}
    for pipe in a.keys() | b.keys():
        mine, theirs = a.get(pipe, -1), b.get(pipe, -1)
        all_mine = mine >= last_a.get(pipe, -1)
        all_theirs = theirs >= last_b.get(pipe, -1)
        if all_mine and all_theirs:
            value = max(mine, theirs)
        elif all_theirs:
            value = mine
        elif all_mine:
            value = theirs
        else:
            value = min(mine, theirs)
        if value >= 0:
            out[pipe] = value
    return out


@record
class SyncState:
    clock: dict[PipeType, Clock] = field(default_factory=dict)
    last: Clock = field(default_factory=dict)  # pipe -> time of its latest instruction
    events: dict[EventKey, Pending] = field(default_factory=dict)
    uses: list[Use] = field(default_factory=list)

    def copy(self) -> SyncState:
        return SyncState(
            {p: c.copy() for p, c in self.clock.items()},
            self.last.copy(),
            self.events.copy(),
            self.uses.copy(),
        )

    def join(self, other: SyncState) -> SyncState:
        clock = {
            p: _meet(self.clock.get(p, {}), other.clock.get(p, {}), self.last, other.last)
            for p in self.clock.keys() | other.clock.keys()
        }
        last = {**self.last}
        for p, t in other.last.items():
            last[p] = max(last.get(p, -1), t)
        events: dict[EventKey, Pending] = {}
        for key in self.events.keys() | other.events.keys():
            mine, theirs = self.events.get(key), other.events.get(key)
            if mine is None or theirs is None:
                found = mine if mine is not None else theirs
                assert found is not None
                events[key] = found._replace(partial=True)
            else:
                merged = _meet(dict(mine.clock), dict(theirs.clock), self.last, other.last)
                events[key] = Pending(
                    tuple(sorted(merged.items(), key=lambda kv: kv[0].value)),
                    mine.setter,
                    mine.partial or theirs.partial,
                )
        seen = {id(u) for u in self.uses}
        uses = self.uses + [u for u in other.uses if id(u) not in seen]
        return SyncState(clock, last, events, uses)

    # --- happens-before ---------------------------------------------------------------------

    def done_before(self, pipe: PipeType, other: PipeType) -> int:
        """The time up to which ``other``'s work is finished before ``pipe``'s next starts."""
        return self.clock.get(pipe, {}).get(other, -1)

    def issue(self, pipe: PipeType, time: int, in_order: bool) -> None:
        """An instruction of ``pipe`` at ``time``; a pipe that does not overlap its own
        instructions finishes it before its next one."""
        self.last[pipe] = time
        if in_order:
            self.clock.setdefault(pipe, {})[pipe] = time

    def barrier(self, pipe: PipeType) -> None:
        """``pipe``'s earlier work finishes before its later work starts."""
        if pipe is PipeType.ALL:
            for waiter in PipeType:
                clock = self.clock.setdefault(waiter, {})
                for done, t in self.last.items():
                    clock[done] = max(clock.get(done, -1), t)
            return
        if pipe in self.last:
            clock = self.clock.setdefault(pipe, {})
            clock[pipe] = max(clock.get(pipe, -1), self.last[pipe])

    def signal_clock(self, pipe: PipeType) -> tuple[tuple[PipeType, int], ...]:
        """What a set on ``pipe`` guarantees: all of ``pipe``'s work so far, and everything
        ``pipe`` already waited for."""
        clock = dict(self.clock.get(pipe, {}))
        if pipe in self.last:
            clock[pipe] = self.last[pipe]
        return tuple(sorted(clock.items(), key=lambda kv: kv[0].value))

    def receive(self, pipe: PipeType, clock: tuple[tuple[PipeType, int], ...]) -> None:
        mine = self.clock.setdefault(pipe, {})
        for other, t in clock:
            mine[other] = max(mine.get(other, -1), t)

    # --- accesses ---------------------------------------------------------------------------

    def record_write(self, use: Use) -> None:
        """A write: accesses it covers and that finished before it need no further check
        (anything ordered after this write is ordered after them)."""
        before = self.done_before
        self.uses = [
            u
            for u in self.uses
            if not (use.region.covers(u.region) and before(use.pipe, u.pipe) >= u.time)
        ]
        self.uses.append(use)
