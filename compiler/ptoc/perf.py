"""Keeping whole-file compilation fast."""

from __future__ import annotations

import _thread  # threading would cost ~1 ms to import; a lock is all this needs
import gc
from collections.abc import Iterator
from contextlib import contextmanager


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


_PAUSE = _GcPause()


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
