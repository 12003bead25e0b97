"""Where each ``pto.alloc_tile`` goes: a buffer's lifetime in PTOAS starts at its allocation.

PTOAS's memory planner (``PTOPlanMemory``, the default "legacy" implementation of v0.57, and
v0.27's) gives a tile buffer its space from its ``pto.alloc_tile`` to its last use: two
buffers share memory only when one is dead before the other is allocated. Seed 002's
generation order puts every allocation at the top of the function, so every buffer is live
from there and none can reuse another's space: a kernel whose buffers of one memory space
only fit one after the other (a K-looped matmul's 64 KB Right slice, then a second matmul's
Right tile, issue #29) is rejected with "right overflow".

So in a memory space whose buffers together exceed its capacity, an allocation moves down to
the top-level statement that first uses its buffer when another buffer of that space is dead
by then (its last use is in an earlier top-level statement). Everywhere else the seed's
order stays: PTOAS reuses memory eagerly once it may, and a reused buffer makes its first
writer wait for the last reader of the old one, where separate buffers let the pipes overlap.
The allocation stays in the function's own block, before the statement (a loop, a branch)
whose region first uses it, so it dominates every use and a loop's iterations share one
buffer, as before. A buffer's last use is PTOAS's to find (it follows a buffer through its
views, ``pto.treshape``): the placement only decides where a lifetime may start. Allocations
in nested regions (a loop body) stay hoisted: a buffer may carry data from one iteration to
the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ...records import record
from . import mlir_types as mt
from .emitter import Region

_NAME = re.compile(r"%[A-Za-z0-9_$.\-]+")


@record(frozen=True, slots=True)
class Allocation:
    """One buffer's ``pto.alloc_tile`` lines (``first``..``end`` of the allocations region),
    its SSA name, its memory space (``loc``) and its size in bytes."""

    name: str
    space: str
    size: int
    first: int
    end: int


def tile_buf_bytes(tile_buf: str) -> int:
    """The bytes a ``!pto.tile_buf<...>`` occupies: rows x cols elements of its dtype."""
    fields = mt.tile_buf_fields(tile_buf)
    width = re.search(r"\d+", fields["dtype"])  # f32, bf16, ui8, f8E4M3: its first number
    bits = int(width.group()) if width else 8
    return int(fields["rows"]) * int(fields["cols"]) * max(bits, 8) // 8


def crowded(
    allocations: Iterable[Allocation], capacities: Mapping[str, int], scratch: Iterable[str] = ()
) -> set[str]:
    """The memory spaces whose buffers (and ``scratch`` tile_bufs) do not all fit at once."""
    used: dict[str, int] = {}
    for alloc in allocations:
        used[alloc.space] = used.get(alloc.space, 0) + alloc.size
    for tile_buf in scratch:
        space = mt.tile_buf_fields(tile_buf)["loc"]
        used[space] = used.get(space, 0) + tile_buf_bytes(tile_buf)
    return {space for space, size in used.items() if size > capacities.get(space, size)}


def statement_names(body: Region, starts: Sequence[int]) -> list[set[str]]:
    """The SSA names each top-level statement's lines mention (statement ``i`` is
    ``body.lines[starts[i]:starts[i + 1]]``, nested regions included)."""
    bounds = [*starts, len(body.lines)]
    return [
        {name for line in body.lines[bounds[i] : bounds[i + 1]] for name in _NAME.findall(line)}
        for i in range(len(starts))
    ]


def deferred(
    allocations: Sequence[Allocation], mentions: Sequence[set[str]], spaces: set[str]
) -> dict[str, int]:
    """The buffers of ``spaces`` whose allocation moves down, each to the top-level statement
    that first uses it: those a buffer of their memory space is dead before."""
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
        if start is None or alloc.space not in spaces:
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
    spaces: set[str],
) -> None:
    """Move the deferred allocations' lines (with their spans) from ``allocations_region`` into
    ``body``, each just before the first line of the statement that first uses its buffer
    (``spaces``: the crowded memory spaces, whose allocations may move)."""
    if not spaces:
        return
    moved = deferred(allocations, statement_names(body, starts), spaces)
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
