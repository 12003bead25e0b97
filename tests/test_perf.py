"""The collector pause is shared by threads: one thread's end never resumes it under another."""

from __future__ import annotations

import gc
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
