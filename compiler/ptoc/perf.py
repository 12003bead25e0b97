"""Keeping whole-file compilation fast."""

from __future__ import annotations

import _thread  # threading would cost ~1 ms to import; a lock is all this needs
import gc
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class _GcPause:
    """One process-wide pause of the cyclic collector, shared by every thread that asks.

    The collector is global, so the server's analysis and compile threads must not flip it
    under each other: the first holder disables it, the last one resumes it (counted under a
    lock), and a collector disabled before the first holder stays disabled.
    """

    def __init__(self) -> None:
        self.lock = _thread.allocate_lock()
        self.holders = 0
        self.resume = False
        # Tracked objects above which resuming runs a full collection (collect_when_grown), or
        # None: never (a one-shot compile ends before its garbage matters).
        self.collect_at: int | None = None
        self.next_count = 0.0  # monotonic time of the next count (counting walks every object)

    def enter(self) -> None:
        with self.lock:
            if self.holders == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.holders += 1

    def leave(self) -> None:
        with self.lock:
            self.holders -= 1
            if self.holders == 0 and self.resume:
                # Move what the holders allocated to the oldest generation unscanned: resuming
                # would otherwise scan all of it (tens of ms after a whole-file pipeline).
                gc.freeze()
                gc.unfreeze()
                gc.enable()
                self.collect_if_grown()

    def collect_if_grown(self) -> None:
        """Objects moved to the oldest generation as above are not counted by the collector's
        own trigger for a full collection: without this, the cycles a long session drops (in
        the server's messages and hovers) stayed there for good, ~1 per edit."""
        if self.collect_at is None or time.monotonic() < self.next_count:
            return
        self.next_count = time.monotonic() + COUNT_INTERVAL
        if tracked_objects() > self.collect_at:
            gc.collect()
            self.collect_at = full_collection_threshold()
        # Every interval, not only after a full collection: the free chunks each edit's texts
        # and tables leave in the C heap stayed resident between collections, and RSS rose
        # by 1-3 MB per 1,000 edits of a storm (issue #33). The call releases the GIL.
        release_free_memory()


#: A full collection runs once tracked objects grew by this share since the last one (CPython's
#: own rule for its oldest generation says 25 %: the server's dropped cycles are few but large,
#: and at 25 % RSS rose 8 % before levelling), and by at least MIN_GROWTH objects.
GROWTH = 0.1
MIN_GROWTH = 10_000
COUNT_INTERVAL = 1.0  # seconds between counts of tracked objects (about 1 ms per 100,000)


def tracked_objects() -> int:
    """How many objects the cyclic collector tracks (without building a list of them)."""
    gc.freeze()
    count = gc.get_freeze_count()
    gc.unfreeze()
    return count


def full_collection_threshold() -> int:
    tracked = tracked_objects()
    return tracked + max(int(tracked * GROWTH), MIN_GROWTH)


def release_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``) after a full
    collection. Objects over 512 bytes (texts, line tables, big lists) come from malloc, and
    the free chunks their turnover left stayed resident: in a 6,000-edit storm the server's
    RSS rose ~0.9 MB per 1,000 edits after the first 1,000 while its live objects did not
    (benchmarks/lsp_memory.py). Nothing where malloc has no trim (musl, macOS)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


# glibc's mallopt parameters, and the values a long-lived process sets (bound_c_heap).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_C_HEAP_BOUNDS = (
    (_M_ARENA_MAX, 2),
    (_M_MMAP_THRESHOLD, 32 * 1024),
    (_M_TRIM_THRESHOLD, 128 * 1024),
)


def bound_c_heap() -> bool:
    """For long-lived processes (the language server): keep glibc's heap near what is in use.
    Two malloc arenas instead of one per thread that ever allocated (each kept its own free
    chunks), blocks from 32 KB up (texts, line tables) mapped and unmapped on their own instead
    of the threshold glibc raises to 32 MB after the first such free, and the heap's top given
    back above 128 KB. In a 3,500-edit storm RSS then rose 0.6 instead of ~2 MB per 1,000
    edits after the first 1,000 (issue #33). False where there is no glibc mallopt."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return all(mallopt(param, value) == 1 for param, value in _C_HEAP_BOUNDS)


_TRIM: list[Any] = []  # [] not looked up yet; [None] none; [function]


def _malloc_trim() -> Any:
    if not _TRIM:
        found = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes  # only once a long-lived process collects

                found = ctypes.CDLL(None).malloc_trim
            except (OSError, AttributeError):
                found = None
        _TRIM.append(found)
    return _TRIM[0]


_PAUSE = _GcPause()


def collect_when_grown() -> None:
    """For long-lived processes (the language server): when a paused step ends and tracked
    objects have grown by GROWTH since the last full collection, run one, so that the cycles
    left by earlier steps are freed (see _GcPause.leave)."""
    with _PAUSE.lock:
        _PAUSE.collect_at = full_collection_threshold()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for one compilation step.

    Analysing a large file allocates hundreds of thousands of short-lived objects and almost
    none form cycles, so the collector's generation-0 passes are pure overhead (about 10-25%).
    Reference counting still frees everything; the collector resumes when the last step that
    paused it (on any thread) ends, and a cycle among the step's objects is still freed by the
    next full collection.
    """
    _PAUSE.enter()
    try:
        yield
    finally:
        _PAUSE.leave()
