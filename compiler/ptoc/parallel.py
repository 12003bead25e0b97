"""``ordered_map``: a function over independent items on several processes, results in order.

``ptoc check`` of a folder spreads its files over the cores. ``concurrent.futures`` with
``multiprocessing`` would do it, but importing the two costs ~16 ms before the first file, a
fifth of what a second core saves on 40 small kernels, and its pool adds a feeder thread and a
round trip per chunk. Where ``os.fork`` exists the work is shared more directly:

* the items stay where they are: forked workers inherit them (and every imported module), so
  only an item's index travels, 4 bytes through one pipe every process reads its next task from
  (the first free process takes the next item, so unequal items still even out);
* the calling process is one of the workers, so ``workers`` processes cost ``workers - 1``
  forks, and no process sits idle waiting for the others;
* a worker sends all its results at once, pickled, through a pipe of its own, then leaves with
  ``os._exit`` (nothing of the parent's to clean up or flush twice);
* an item a worker did not report (it crashed or was killed) is computed by the caller at the
  end, so the results are complete and in order, or the caller raises as a serial run would.

Elsewhere (no ``fork``) a ``ProcessPoolExecutor`` does the same job.
"""

from __future__ import annotations

import _thread
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

Result = TypeVar("Result")

#: A task is an item's index: fixed-size records, each read whole by one reader (see _next).
_TASK = struct.Struct("<I")
#: Bytes per write of tasks: a pipe write of up to PIPE_BUF bytes (512 at least, by POSIX) is
#: atomic, so no record is ever split between writes.
_TASK_WRITE = 512
#: What any pipe holds: Linux gives a pipe one page when its user has many pipes already.
_PIPE_HOLDS = 4096


def ordered_map(
    function: Callable[..., Result], items: Sequence[tuple[Any, ...]], workers: int
) -> list[Result]:
    """``[function(*item) for item in items]`` on up to ``workers`` processes."""
    workers = min(workers, len(items))
    if workers < 2:
        return [function(*item) for item in items]
    if not hasattr(os, "fork"):
        return _pool_map(function, items, workers)
    return _Forked(function, items).run(workers)


class _Forked:
    """One run of ``ordered_map`` on forked processes."""

    def __init__(self, function: Callable[..., Any], items: Sequence[tuple[Any, ...]]) -> None:
        self.function = function
        self.items = items

    def run(self, workers: int) -> list[Any]:
        tasks, task_writer = os.pipe()
        children: list[tuple[int, int]] = []  # (pid, the read end of its results)
        finished = False
        sys.stdout.flush()  # nothing buffered before the fork can be written twice
        sys.stderr.flush()
        try:
            for _ in range(workers - 1):
                reader, writer = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker never returns from here
                    os.close(task_writer)
                    os.close(reader)
                    self._work(tasks, writer)
                os.close(writer)
                children.append((pid, reader))
            _send_tasks(task_writer, len(self.items))
            task_writer = -1  # closed by _send_tasks once every task is written
            results = self._take_tasks(tasks)
            for _, reader in children:
                results.update(_received(reader))
            finished = True
        finally:
            for fd in (tasks, task_writer, *(reader for _, reader in children)):
                _close(fd)
            for pid, _ in children:
                _reap(pid, stop=not finished)
        # An item a worker did not report is computed here (as a serial run would, raising
        # what it raises).
        return [
            results[index] if index in results else self.function(*item)
            for index, item in enumerate(self.items)
        ]

    def _take_tasks(self, tasks: int) -> dict[int, Any]:
        """Items computed here, by index, until no task is left."""
        done: dict[int, Any] = {}
        while (index := _next(tasks)) is not None:
            done[index] = self.function(*self.items[index])
        return done

    def _work(self, tasks: int, results: int) -> None:
        """A forked worker's life: take tasks, send what they gave, leave without cleaning up."""
        status = 1
        try:
            data = pickle.dumps(self._take_tasks(tasks), pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(results, view) :]
            status = 0
        finally:  # an exception (even KeyboardInterrupt) ends the worker, never the caller's code
            os._exit(status)


def _send_tasks(writer: int, count: int) -> None:
    """Write every task, then close ``writer`` (the readers see the end). Tasks a pipe surely
    holds are written at once; more are written by a thread while this one takes tasks too,
    so that the writes never wait on readers that are gone (a dead worker, say)."""
    data = b"".join(_TASK.pack(index) for index in range(count))
    if len(data) <= _PIPE_HOLDS:
        _write_tasks(writer, data)
    else:
        _thread.start_new_thread(_write_tasks, (writer, data))


def _write_tasks(writer: int, data: bytes) -> None:
    try:
        for start in range(0, len(data), _TASK_WRITE):
            os.write(writer, data[start : start + _TASK_WRITE])
    except OSError:  # every reader is gone: the run is ending on an error
        pass
    finally:
        os.close(writer)


def _next(tasks: int) -> int | None:
    """The next task's index, None when there are no more. Every task was written whole by an
    atomic write, and a pipe read of a few bytes takes them from the buffer under the pipe's
    lock, so concurrent readers each get whole records; a short read is completed anyway."""
    record = os.read(tasks, _TASK.size)
    while record and len(record) < _TASK.size:
        more = os.read(tasks, _TASK.size - len(record))
        if not more:
            return None
        record += more
    return _TASK.unpack(record)[0] if record else None


def _received(reader: int) -> dict[int, Any]:
    """A worker's results; nothing if it ended before sending them all."""
    chunks = []
    while chunk := os.read(reader, 1 << 16):
        chunks.append(chunk)
    try:
        received = pickle.loads(b"".join(chunks))
    except Exception:  # cut short: the caller computes those items itself
        return {}
    return received if isinstance(received, dict) else {}


def _close(fd: int) -> None:
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:  # closed already
            pass


def _reap(pid: int, stop: bool) -> None:
    """Wait for a worker to end; ``stop``: end it first (the caller is leaving on an error, so
    what is left of the worker's share is not wanted)."""
    try:
        if stop:
            os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass


def _pool_map(
    function: Callable[..., Result], items: Sequence[tuple[Any, ...]], workers: int
) -> list[Result]:
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        # A few chunks a worker: each round trip costs a pickle and a wake-up, while chunks
        # small enough still even out items of unequal size.
        chunk = max(1, len(items) // (workers * 4))
        return list(pool.map(function, *zip(*items, strict=True), chunksize=chunk))
