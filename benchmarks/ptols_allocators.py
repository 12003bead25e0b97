"""ptols with a report of its allocators, for ``lsp_storm.py --allocators`` (issue #33).

Run as the server command (``python benchmarks/ptols_allocators.py``): it serves like ``ptols``
and, on SIGUSR1, appends one JSON line to the file named by $PTOLS_ALLOCATORS: pymalloc's arenas
(each 1 MiB; an arena goes back to the system only once every block in it is free) and the bytes
in its allocated blocks, then every job the server's worker threads ran since the last report,
with the most pymalloc blocks alive while it ran above those alive when it started (its
transient peak; a 1 ms sampler thread, so short peaks are missed) and what it left alive.
Linux, CPython with pymalloc. Not a test.
"""

from __future__ import annotations

import concurrent.futures.thread as pool_thread
import json
import os
import signal
import sys
import threading
import time
from typing import Any

RUNNING: dict[str, list[int]] = {}  # thread -> [blocks at start, most blocks since]
FINISHED: list[tuple[str, str, int, int, float]] = []  # thread, job, peak, kept, seconds
_run = pool_thread._WorkItem.run


def job_name(item: Any) -> str:
    """The function a pool ran; for the server's shared-pipeline wrapper, the job it wraps."""
    fn = item.fn
    name = str(getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", "?"))
    inner = fn.args[0] if hasattr(fn, "args") and fn.args else (item.args or [None])[0]
    if name in ("run", "partial", "?") and callable(inner):
        name = f"{name}:{getattr(inner, '__name__', '?')}"
    return name


def run(item: Any) -> None:
    thread = threading.current_thread().name.rsplit("_", 1)[0]
    start = sys.getallocatedblocks()
    RUNNING[thread] = [start, start]
    began = time.perf_counter()
    try:
        _run(item)
    finally:
        _, most = RUNNING.pop(thread, [start, start])
        kept = sys.getallocatedblocks() - start
        FINISHED.append((thread, job_name(item), most - start, kept, time.perf_counter() - began))


def sample() -> None:
    while True:
        time.sleep(0.001)
        blocks = sys.getallocatedblocks()
        for state in list(RUNNING.values()):
            state[1] = max(state[1], blocks)


def pymalloc() -> dict[str, int]:
    """Two lines of ``sys._debugmallocstats()`` (it writes to the C stderr: read via a pipe)."""
    read, write = os.pipe()
    saved = os.dup(2)
    os.dup2(write, 2)
    os.close(write)
    try:
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    os.set_blocking(read, False)
    data = b""
    try:
        while chunk := os.read(read, 65536):
            data += chunk
    except BlockingIOError:
        pass
    os.close(read)
    found = {}
    for line in data.decode().splitlines():
        for key in ("# arenas allocated current", "# bytes in allocated blocks"):
            if line.startswith(key):
                found[key.strip("# ")] = int(line.split("=")[-1].replace(",", ""))
    return found


def report(*_: Any) -> None:
    stats = pymalloc()
    jobs = list(FINISHED)
    FINISHED.clear()
    state = {
        "arenas": stats.get("arenas allocated current"),
        "block_mb": round(stats.get("bytes in allocated blocks", 0) / 2**20, 2),
        "jobs": jobs,
    }
    with open(os.environ["PTOLS_ALLOCATORS"], "a") as out:
        out.write(json.dumps(state) + "\n")


def main() -> int:
    pool_thread._WorkItem.run = run  # type: ignore[method-assign,assignment]
    threading.Thread(target=sample, name="allocator-sampler", daemon=True).start()
    signal.signal(signal.SIGUSR1, report)
    from ptols.__main__ import main as serve

    return serve([])


if __name__ == "__main__":
    raise SystemExit(main())
