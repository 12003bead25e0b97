"""Where each ``pto.alloc_tile`` goes: a buffer's lifetime in PTOAS starts at its allocation.

PTOAS's memory planner (``PTOPlanMemory``, the default "legacy" implementation of v0.57)
gives a tile buffer its space from its ``pto.alloc_tile`` to its last use: two buffers share
memory only when one is dead before the other is allocated. Seed 002's generation order puts
every allocation at the top of the function, so every buffer is live from there and none can
reuse another's space: a kernel whose buffers of one memory space only fit one after the
other (a K-looped matmul's 64 KB Right slice, then a second matmul's Right tile, issue #29)
is rejected with "right overflow".

So an allocation moves down to the top-level statement that first uses its buffer when
another buffer of the same memory space is dead by then (its last use is in an earlier
top-level statement): only where PTOAS could reuse memory does the output leave the seed's
order. The allocation stays in the function's own block, before the statement (a loop, a
branch) whose region first uses it, so it dominates every use and a loop's iterations share
one buffer, as before. A buffer's last use is PTOAS's to find (it follows a buffer through its
views, ``pto.treshape``): the placement only decides where a lifetime may start. Allocations in
nested regions (a loop body) stay hoisted: a buffer may carry data from one iteration to the
next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...records import record
from .emitter import Region

_NAME = re.compile(r"%[A-Za-z0-9_$.\-]+")


@record(frozen=True, slots=True)
class Allocation:
    """One buffer's ``pto.alloc_tile`` lines (``first``..``end`` of the allocations region),
    its SSA name and its memory space (``loc``)."""

    name: str
    space: str
    first: int
    end: int


def statement_names(body: Region, starts: Sequence[int]) -> list[set[str]]:
    """The SSA names each top-level statement's lines mention (statement ``i`` is
    ``body.lines[starts[i]:starts[i + 1]]``, nested regions included)."""
    bounds = [*starts, len(body.lines)]
    return [
        {name for line in body.lines[bounds[i] : bounds[i + 1]] for name in _NAME.findall(line)}
        for i in range(len(starts))
    ]


def deferred(allocations: Sequence[Allocation], mentions: Sequence[set[str]]) -> dict[str, int]:
    """The buffers whose allocation moves down, each to the top-level statement that first
    uses it: those a buffer of their memory space is dead before."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for index, names in enumerate(mentions):
        for alloc in allocations:
            if alloc.name in names:
                first.setdefault(alloc.name, index)
                last[alloc.name] = index
    moved: dict[str, int] = {}
    for alloc in allocations:
        start = first.get(alloc.name)
        if start is None:
            continue
        if any(
            other.space == alloc.space and other.name in last and last[other.name] < start
            for other in allocations
            if other.name != alloc.name
        ):
            moved[alloc.name] = start
    return moved


def place(
    allocations_region: Region,
    allocations: Sequence[Allocation],
    body: Region,
    starts: Sequence[int],
) -> None:
    """Move the deferred allocations' lines (with their spans) from ``allocations_region`` into
    ``body``, each just before the first line of the statement that first uses its buffer."""
    moved = deferred(allocations, statement_names(body, starts))
    if not moved:
        return
    owner = {line: a.name for a in allocations if a.name in moved for line in range(a.first, a.end)}
    inserts: dict[int, list[int]] = {}  # body line -> the allocation lines that go before it
    for line, name in owner.items():
        inserts.setdefault(_first_line(body, starts[moved[name]]), []).append(line)
    region = allocations_region
    for at in sorted(inserts, reverse=True):
        body.lines[at:at] = [region.lines[i] for i in inserts[at]]
        body.spans[at:at] = [region.spans[i] for i in inserts[at]]
    kept = [i for i in range(len(region.lines)) if i not in owner]
    region.lines[:] = [region.lines[i] for i in kept]
    region.spans[:] = [region.spans[i] for i in kept]


def _first_line(body: Region, start: int) -> int:
    """The statement's first line after the blank line that separates it from the last."""
    while start < len(body.lines) and not body.lines[start].strip():
        start += 1
    return start
