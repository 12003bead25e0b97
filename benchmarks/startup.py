"""Whole-process figures, each next to a no-op ``python -c pass`` started in the same run (turn
about). Not a test.

    .venv/bin/python benchmarks/startup.py [--runs 20]

  * ``ptoc check`` and ``ptoc compile --target cce`` of a small kernel (examples/simple_add.py),
  * ``ptoc check -j 2`` of a folder of 40 generated kernels against ``-j 1`` (the speed-up), in
    wall time and projected from CPU time (benchmarks/jobs_probe.py: the serial part + the
    longest share of files, what idle cores would give; wall time shows it only when no other
    load runs),
  * the language server: spawn to the answer of ``initialize`` over stdio, both for a request
    answered before (an editor restarting the server) and for a first start (an empty cache);
    ptols/early.py answers both before pygls loads (capabilities.py computes the answer);
    and spawn to the diagnostics of the small kernel, opened as an editor opens it (after
    ``initialize``, pygls and the compiler load, then the file is analysed).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ptols.framing import READ_SIZE, next_message

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_kernel import generate  # noqa: E402  (the benchmarks folder is not a package)
from yardstick import NO_OP, Figure, measure_interleaved, python_env, run_quietly, table  # noqa: E402

SMALL = str(Path(__file__).resolve().parents[1] / "examples" / "simple_add.py")
JOBS_PROBE = str(Path(__file__).resolve().parent / "jobs_probe.py")
PTOC = [sys.executable, "-m", "ptoc"]
KERNELS = 40


def kernel_folder(root: Path, count: int = KERNELS, lines: int = 150) -> str:
    """``count`` generated kernels of about ``lines`` lines each."""
    text = generate(lines)
    for k in range(count):
        (root / f"kernel_{k:02}.py").write_text(text, encoding="utf-8")
    return str(root)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}


def spawn_ptols(cache: str, sent: bytes) -> subprocess.Popen[bytes]:
    """A language server over stdio (``cache``: its folder of remembered answers), sent
    ``sent`` at once."""
    server = subprocess.Popen(
        [sys.executable, "-m", "ptols"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**python_env(), "PTOLS_CACHE_DIR": cache},
    )
    assert server.stdin is not None
    server.stdin.write(sent)
    server.stdin.flush()
    return server


def initialize_answer(cache: str | None) -> Callable[[], object]:
    """An action: spawn ptols, send ``initialize``, wait for its answer, then stop the server.
    ``cache``: the folder of remembered answers (None: a new empty one every time)."""

    def action() -> object:
        with tempfile.TemporaryDirectory() as empty:
            return answer(cache or empty)

    def answer(folder: str) -> object:
        server = spawn_ptols(folder, framed(INITIALIZE))
        assert server.stdout is not None
        header = server.stdout.readline()  # blocks until the answer starts
        server.kill()
        server.wait()
        if not header.startswith(b"Content-Length"):
            raise RuntimeError(f"ptols did not answer initialize: {header!r}")
        return header

    return action


def framed(message: dict[str, object]) -> bytes:
    body = json.dumps(message)
    return f"Content-Length: {len(body)}\r\n\r\n{body}".encode()


def messages(stream: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The messages the server sends, as ptols' own framing reads them."""
    buffer = bytearray()
    while True:
        body, _ = next_message(buffer, waited=False)
        if body is not None:
            yield json.loads(body)
            continue
        chunk = os.read(stream.fileno(), READ_SIZE)
        if not chunk:
            raise RuntimeError("ptols closed its output")
        buffer += chunk


def first_diagnostics(cache: str) -> Callable[[], object]:
    """An action: spawn ptols and do what an editor does when a kernel is opened (initialize,
    initialized, didOpen), wait for that file's diagnostics, then stop the server."""
    path = Path(SMALL)
    uri = path.as_uri()
    opening = b"".join(
        framed(message)
        for message in (
            INITIALIZE,
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": path.read_text(encoding="utf-8"),
                    }
                },
            },
        )
    )

    def action() -> object:
        server = spawn_ptols(cache, opening)
        assert server.stdout is not None
        try:
            published = next(
                message
                for message in messages(server.stdout)
                if message.get("method") == "textDocument/publishDiagnostics"
                and message["params"].get("uri") == uri
            )
            return published["params"]
        finally:
            server.kill()
            server.wait()

    return action


BUSY = [sys.executable, "-c", "sum(i * i for i in range(2_000_000))"]


def busy_pair(together: bool) -> Callable[[], object]:
    """Two CPU-bound processes, at once or one after the other: what two cores give right now
    (on a shared machine another load may take the second core, and then no -j can help)."""
    env = python_env()

    def action() -> object:
        if not together:
            return [subprocess.run(BUSY, env=env, check=True) for _ in range(2)]
        pair = [subprocess.Popen(BUSY, env=env) for _ in range(2)]
        return [process.wait() for process in pair]

    return action


def cpu_projection(kernels: str, jobs: int, runs: int) -> list[float]:
    """Per run, the CPU time (ms) ``ptoc check -j jobs`` would take on idle cores: the main
    process's time before its first file and after its last, plus the longest share of files
    (the main process's own or a forked worker's; benchmarks/jobs_probe.py)."""
    projected = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as notes:
            done = subprocess.run(
                [sys.executable, JOBS_PROBE, str(jobs), kernels, notes],
                capture_output=True,
                text=True,
                env=python_env(),
                check=True,
            )
        split = ast.literal_eval(done.stdout)
        if split["code"] != 0 or len(split["workers_ms"]) != jobs - 1:
            raise RuntimeError(f"unexpected jobs probe result: {split}")
        first, last = split["main_files_ms"]
        longest = max([last - first, *split["workers_ms"]])
        projected.append(first + longest + split["main_ms"] - last)
    return projected


def figures(runs: int) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as cache:
        kernels = kernel_folder(Path(folder))
        processes = measure_interleaved(
            {
                "noop": run_quietly(NO_OP),
                "check": run_quietly([*PTOC, "check", SMALL]),
                "compile": run_quietly([*PTOC, "compile", "--target", "cce", SMALL]),
                "initialize": initialize_answer(cache),
                "first initialize": initialize_answer(None),
                "first diagnostics": first_diagnostics(cache),
            },
            runs,
        )
        walks = measure_interleaved(
            {
                "j1": run_quietly([*PTOC, "check", "-j", "1", kernels]),
                "j2": run_quietly([*PTOC, "check", "-j", "2", kernels]),
                "apart": busy_pair(together=False),
                "together": busy_pair(together=True),
            },
            runs,
        )
        cpu = {jobs: cpu_projection(kernels, jobs, runs) for jobs in (1, 2)}
    noop = ("`python -c pass`", processes["noop"])
    return [
        Figure("process: `ptoc check` small kernel", processes["check"], *noop, target="≤ 80 ms"),
        Figure(
            "process: `ptoc compile --target cce` small kernel",
            processes["compile"],
            *noop,
            target="≤ 120 ms",
        ),
        Figure(
            "process: ptols spawn → `initialize` answered (as before: an editor's restart)",
            processes["initialize"],
            *noop,
            target="≤ 300 ms",
        ),
        Figure(
            "process: ptols spawn → first `initialize` answered (nothing remembered)",
            processes["first initialize"],
            *noop,
        ),
        Figure(
            "process: ptols spawn → diagnostics of an opened small kernel published",
            processes["first diagnostics"],
            *noop,
        ),
        Figure(
            f"`ptoc check -j 2` of {KERNELS} kernels",
            walks["j2"],
            "`-j 1`",
            walks["j1"],
            target="≤ 0.59 × `-j 1` (1.7× faster)",
        ),
        Figure(
            f"`ptoc check -j 2` of {KERNELS} kernels, CPU time: serial part + longest share",
            cpu[2],
            "`-j 1` CPU time",
            cpu[1],
            target="≤ 0.59 (1.7× faster on idle cores)",
        ),
        Figure(
            "two CPU-bound processes at once (what 2 cores give now)",
            walks["together"],
            "one after the other",
            walks["apart"],
            target="0.5 on 2 idle cores",
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description="Time ptoc and ptols as processes.")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    print(table(figures(args.runs)))
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
