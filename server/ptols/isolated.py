"""Heavy, stateless jobs in a child process: formatting (with the IR printer's black) and the
pass explorer.

Their transient memory is many times what the server keeps alive: black's syntax tree of a large
file (10 MB for 37,000 characters), every stage of a pipeline printed with its spans. In the
server's own process such a peak takes new pymalloc arenas, and the few objects other work
allocates meanwhile keep those arenas from ever going back: RSS ratcheted up 2-3 MB per 1,000
edits of the seeded storm (issue #33). A child gives all of it back when it is replaced.

One child per kind of job, started by its first job; it is replaced after
``jobs_per_child`` jobs or once its RSS passes ``max_rss_kb`` (it starts near 35 MB; a large
file's formatting leaves it near 50 MB), and leaves after ``idle_exit`` seconds without a job
or a ``touch``. A job that outlives ``timeout`` kills it.

The child runs only the functions named in ``JOBS`` (in ``jobs.py``, and the compiler's black
for the IR printer), on data the server sends pickled over the child's pipes (both ends are
this module). Its stdout is sent to stderr:
nothing it prints can reach the answers, which go out on a private copy of the descriptor.
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import IO, Any

log = logging.getLogger("ptols")

#: The functions a child may run: name -> "module:function".
JOBS: dict[str, str] = {
    "format": "ptols.jobs:formatted",
    "black": "ptoc.printer:black_texts",  # the IR printer's long lines (set_black_runner)
    "pass_diff": "ptols.jobs:text_pass_diff",
}
HEADER = struct.Struct("<Q")  # the byte length of the pickle that follows


class JobFailed(Exception):
    """The job raised in the child (the message is its traceback), or the child ended."""


def send(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next value on ``stream``; EOFError when it ended (even mid-message)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        raise EOFError
    (size,) = HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def rss_kb() -> int:
    """This process's resident set in KB now (where /proc says), else its peak (0 where the
    platform says neither)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


class Child:
    """One child process for the jobs of one kind; ``call`` blocks (run it on a worker thread).
    Calls from several threads take turns."""

    def __init__(
        self,
        kind: str,
        *,
        jobs_per_child: int = 100,
        max_rss_kb: int = 60_000,
        idle_exit: float = 120.0,
        timeout: float = 120.0,
    ) -> None:
        self.kind = kind
        self.jobs_per_child = jobs_per_child
        self.max_rss_kb = max_rss_kb
        self.idle_exit = idle_exit
        self.timeout = timeout
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.jobs = 0  # done by the current child
        self.started = 0  # children started so far
        self.active = time.monotonic()  # the last job or touch
        self.idle_timer: threading.Timer | None = None

    def touch(self) -> None:
        """Activity for ``idle_exit``: a running child stays; none is started."""
        self.active = time.monotonic()

    def call(self, job: str, *args: Any) -> Any:
        """``JOBS[job](*args)`` in the child, its result returned or its exception raised as
        JobFailed."""
        with self.lock:
            self.active = time.monotonic()
            if self.proc is not None and self.proc.poll() is not None:
                self.stop()  # it ended while idle: no job of this call was lost
            proc = self.proc or self.start()
            assert proc.stdin is not None and proc.stdout is not None
            watchdog = threading.Timer(self.timeout, proc.kill)
            watchdog.daemon = True
            watchdog.start()
            try:
                send(proc.stdin, (job, args))
                status, value, rss = receive(proc.stdout)
            except (OSError, EOFError, pickle.UnpicklingError) as error:
                self.stop(kill=True)
                timed_out = not watchdog.is_alive()
                if timed_out:
                    raise JobFailed(
                        f"the {self.kind} process took over {self.timeout:g} s"
                    ) from None
                log.warning("the %s process stopped: %r", self.kind, error)
                raise JobFailed(f"the {self.kind} process stopped before answering") from None
            finally:
                watchdog.cancel()
            self.jobs += 1
            if self.jobs >= self.jobs_per_child or rss > self.max_rss_kb:
                self.stop()
                self.start()  # the next job finds a child ready
            self.active = time.monotonic()
        if status != "ok":
            raise JobFailed(value)
        return value

    def close(self) -> None:
        with self.lock:
            if self.idle_timer is not None:
                self.idle_timer.cancel()
            self.stop()

    # --- under the lock ---------------------------------------------------------------------
    def start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        # the server's own import path (a bundled copy of the packages included)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ptols.isolated"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.jobs = 0
        self.started += 1
        if self.idle_timer is None:
            self.arm_idle_exit(self.idle_exit)
        return self.proc

    def stop(self, kill: bool = False) -> None:
        """End the child: closing its input ends it once it has finished what it was doing."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        # reaped off the caller's thread: a child may take a moment to finish
        threading.Thread(target=proc.wait, name=f"ptols-{self.kind}-reaper", daemon=True).start()

    def arm_idle_exit(self, delay: float) -> None:
        self.idle_timer = threading.Timer(delay, self.leave_if_idle)
        self.idle_timer.daemon = True
        self.idle_timer.start()

    def leave_if_idle(self) -> None:
        """The idle timer: ends the child after ``idle_exit`` seconds without activity, else
        looks again when that time would be up."""
        with self.lock:
            if self.proc is None:
                self.idle_timer = None
                return
            idle = time.monotonic() - self.active
            if idle >= self.idle_exit:
                self.idle_timer = None
                self.stop()
            else:
                self.arm_idle_exit(self.idle_exit - idle)


def resolve(job: str) -> Callable[..., Any]:
    module, _, name = JOBS[job].partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def serve() -> None:
    """The child's loop: a job in, its answer out, until the server closes the input."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to the server's log stream, never into the answers
    requests = sys.stdin.buffer
    while True:
        try:
            job, args = receive(requests)
        except EOFError:
            return
        try:
            answer: tuple[str, Any] = ("ok", resolve(job)(*args))
        except Exception:
            answer = ("error", traceback.format_exc())
        try:
            send(answers, (*answer, rss_kb()))
        except BrokenPipeError:  # the server is gone
            return
        except Exception:  # the result would not pickle (nothing was written)
            send(answers, ("error", traceback.format_exc(), rss_kb()))


if __name__ == "__main__":
    serve()
