"""The collector pause is shared by threads: one thread's end never resumes it under another."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator

import pytest

from ptoc.perf import gc_paused


@pytest.fixture(autouse=True)
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_overlapping_pauses_on_two_threads_resume_only_after_the_last():
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with gc_paused():
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread still holds the pause
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_nested_pauses_resume_once_at_the_outermost_end():
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_an_exception_still_ends_the_pause():
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()


class Node:
    """One link of a cycle: what a long session's dropped results look like to the collector."""

    def __init__(self) -> None:
        self.other: Node = self


def drop_cycles(count: int) -> None:
    with gc_paused():
        for _ in range(count):
            Node()


def live_nodes() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Node)


def test_cycles_dropped_during_pauses_are_freed_once_tracked_objects_grow(monkeypatch):
    # Each pause ends by moving its objects to the oldest generation, where CPython's own rule
    # never counts them: without collect_when_grown a long session kept every dropped cycle.
    from ptoc import perf

    monkeypatch.setattr(perf, "GROWTH", 0.0)
    monkeypatch.setattr(perf, "MIN_GROWTH", 1_000)
    monkeypatch.setattr(perf, "COUNT_INTERVAL", 0.0)
    monkeypatch.setattr(perf._PAUSE, "collect_at", None)
    gc.collect()
    perf.collect_when_grown()
    for _ in range(300):
        drop_cycles(200)
    # 60,000 cycles were dropped; at most MIN_GROWTH of tracked objects (and one step's) wait
    assert live_nodes() <= 1_000 + 200


def test_without_collect_when_grown_a_pause_never_collects(monkeypatch):
    from ptoc import perf

    monkeypatch.setattr(perf._PAUSE, "collect_at", None)  # the compiler's default
    gc.collect()
    before = gc.get_stats()[2]["collections"]
    drop_cycles(20_000)
    assert gc.get_stats()[2]["collections"] == before
    gc.collect()
    assert live_nodes() == 0


def has_malloc_trim() -> bool:
    import ctypes

    return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "malloc_trim")


def resident_anonymous_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no RssAnon")


class Holder:
    """A cycle holding a malloc'ed buffer (over pymalloc's 512 bytes, as texts are)."""

    def __init__(self) -> None:
        self.data = bytearray(4000)
        self.other = self


@pytest.mark.skipif(not has_malloc_trim(), reason="glibc's malloc_trim (Linux) only")
def test_a_full_collection_gives_the_c_heaps_free_pages_back(monkeypatch):
    # Buffers freed among survivors stay resident in the C heap unless it is trimmed: the
    # server's RSS rose in steps while its live objects stayed flat (issue #33).
    from ptoc import perf

    monkeypatch.setattr(perf, "COUNT_INTERVAL", 0.0)
    monkeypatch.setattr(perf._PAUSE, "collect_at", None)
    gc.collect()
    perf.collect_when_grown()
    survivors = []
    with gc_paused():
        dropped = [Holder() for _ in range(20_000)]  # ~80 MB, only the collector frees them
        survivors = [bytearray(4000) for _ in range(400)]  # keep the heap's top in use
    before = resident_anonymous_mb()
    del dropped
    monkeypatch.setattr(perf._PAUSE, "collect_at", 0)
    with gc_paused():
        pass  # the pause ends: objects grew, so a full collection runs
    assert before - resident_anonymous_mb() >= 50
    assert len(survivors) == 400


@pytest.mark.skipif(not has_malloc_trim(), reason="glibc's malloc_trim (Linux) only")
def test_the_c_heap_is_trimmed_at_the_end_of_a_step_without_a_full_collection(monkeypatch):
    # Each edit's texts and tables are freed by reference counting, but the free chunks stayed
    # resident until the next full collection: RSS rose 1-3 MB per 1,000 edits (issue #33).
    from ptoc import perf

    monkeypatch.setattr(perf, "COUNT_INTERVAL", 0.0)
    gc.collect()
    perf.collect_when_grown()
    monkeypatch.setattr(perf._PAUSE, "collect_at", 10**12)  # objects never grow that far
    with gc_paused():
        freed = [bytearray(4000) for _ in range(20_000)]  # ~80 MB from malloc, no cycles
        survivors = [bytearray(4000) for _ in range(400)]  # keep the heap's top in use
    before = resident_anonymous_mb()
    del freed
    with gc_paused():
        pass  # the step ends: no full collection, but the heap's free pages go back
    assert before - resident_anonymous_mb() >= 50
    assert len(survivors) == 400


@pytest.mark.skipif(not has_malloc_trim(), reason="glibc (Linux) only")
def test_the_c_heap_can_be_bounded_for_a_long_session():
    from ptoc import perf

    assert perf.bound_c_heap() is True  # every mallopt parameter was taken
