"""``ptoc.parallel.ordered_map``: results in order, computed on several processes (the caller
among them), complete even when a worker dies, and an error of the function is the caller's."""

from __future__ import annotations

import os
import signal
import time

import pytest

from ptoc import parallel

PARENT = os.getpid()


def pid_of(item: int, pause: float) -> tuple[int, int]:
    time.sleep(pause)
    return item * item, os.getpid()


def no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_results_are_in_order_and_every_process_takes_a_share() -> None:
    items = [(k, 0.01) for k in range(40)]
    results = parallel.ordered_map(pid_of, items, 3)
    assert [square for square, _ in results] == [k * k for k in range(40)]
    pids = {pid for _, pid in results}
    assert PARENT in pids and len(pids) == 3
    assert no_children_left()


def test_more_tasks_than_one_pipe_write_holds() -> None:
    items = [(k, 0.0) for k in range(5000)]  # 20,000 bytes of tasks: 40 writes
    results = parallel.ordered_map(pid_of, items, 2)
    assert [square for square, _ in results] == [k * k for k in range(5000)]


def test_one_worker_or_one_item_stays_in_this_process() -> None:
    assert parallel.ordered_map(pid_of, [(3, 0.0)], 4) == [(9, PARENT)]
    items = [(k, 0.0) for k in range(5)]
    assert parallel.ordered_map(pid_of, items, 1) == [(k * k, PARENT) for k in range(5)]


def dies_in_a_worker(item: int) -> tuple[int, int]:
    if os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-way sends nothing
    return item + 1, os.getpid()


def test_what_a_dead_worker_did_not_send_is_computed_by_the_caller() -> None:
    results = parallel.ordered_map(dies_in_a_worker, [(k,) for k in range(30)], 2)
    assert results == [(k + 1, PARENT) for k in range(30)]
    assert no_children_left()


def fails(item: int) -> int:
    time.sleep(0.005)
    if item == 7:
        raise ValueError(f"item {item}")
    return item


def test_an_error_of_the_function_is_raised_by_the_caller_and_no_worker_is_left() -> None:
    with pytest.raises(ValueError, match="item 7"):
        # raised here at once, or by a worker (which then sends nothing), and again when this
        # process computes what the worker did not send
        parallel.ordered_map(fails, [(k,) for k in range(30)], 2)
    assert no_children_left()


def test_the_pool_used_where_there_is_no_fork_gives_the_same_results() -> None:
    items = [(k, 0.0) for k in range(9)]
    assert [r[0] for r in parallel._pool_map(pid_of, items, 2)] == [k * k for k in range(9)]


def test_more_tasks_than_a_pipe_holds_when_every_worker_dies() -> None:
    def give_up(signum: int, frame: object) -> None:
        raise AssertionError("the caller waits on a pipe nobody reads")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(60)
    try:  # the workers die at their first task and leave 80,000 bytes of tasks unread
        results = parallel.ordered_map(dies_in_a_worker, [(k,) for k in range(20_000)], 3)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert results == [(k + 1, PARENT) for k in range(20_000)]
    assert no_children_left()
