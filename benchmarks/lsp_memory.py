"""Where the server's memory goes during an edit storm: lsp_soak's session against a server that
reports its allocators' state every 1,000 edits.

    .venv/bin/python benchmarks/lsp_memory.py [--edits 6000] [--seed 14] [--json]

Per sample: RSS (anonymous and file-backed), objects the collector tracks, pymalloc's arenas
and the bytes in its allocated blocks, and glibc's heap (size, in use, free). A leak shows as
growth of live objects or of bytes in use; a bounded high-water mark as arenas or heap size that
grow while those stay flat, then level off. Linux with glibc only. Not a test: run it on demand.

Measured for issue #33 (6,000 edits, seed 14, after the first 1,000): RSS +4.3 MB while the
bytes in pymalloc's blocks and glibc's bytes in use stayed flat (+0.1 MB) and tracemalloc's
total fell by 0.2 MB: no leak. The growth was pymalloc's arenas (29 -> 32, +0.75 MB) and free
chunks in glibc's heap (2.3 -> 4.0 MB), both the high-water mark of the garbage cycles that wait
for a full collection, levelling off by 4,000-5,000 edits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lsp_soak  # noqa: E402

# Run inside the server: on SIGUSR1, append the allocators' state to the file in $PTOLS_MEMORY.
REPORTER = r"""
import ctypes, gc, json, os, signal, sys

FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in FIELDS.split()]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2

sys.path.insert(0, BENCHMARKS)
from ptols_allocators import pymalloc  # pymalloc's arenas and the bytes in its blocks

def report(*_):
    heap = libc.mallinfo2()
    arenas = pymalloc()
    state = {
        "tracked_objects": len(gc.get_objects()),
        "pymalloc_arenas": arenas.get("arenas allocated current"),
        "pymalloc_block_mb": round(arenas.get("bytes in allocated blocks", 0) / 2**20, 2),
        "heap_mb": round(heap.arena / 2**20, 2),
        "heap_in_use_mb": round(heap.uordblks / 2**20, 2),
        "heap_free_mb": round(heap.fordblks / 2**20, 2),
    }
    with open(os.environ["PTOLS_MEMORY"], "a") as out:
        out.write(json.dumps(state) + "\n")

signal.signal(signal.SIGUSR1, report)
sys.argv = ["ptols"]
from ptols.__main__ import main
sys.exit(main())
"""


def resident(pid: int) -> dict[str, float]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("RssAnon:", "RssFile:")):
            found[line.split(":")[0]] = int(line.split()[1]) / 1024
    return found


def measure(edits: int, seed: int) -> list[dict[str, Any]]:
    states = Path(tempfile.mkstemp(prefix="ptols-memory-", suffix=".jsonl")[1])
    os.environ["PTOLS_MEMORY"] = str(states)  # the server inherits it
    original_start = LanguageClient.start_io
    original_rss = lsp_soak.rss_mb
    resident_samples: list[dict[str, float]] = []

    async def start_io(self: LanguageClient, *_: Any, **__: Any) -> None:
        reporter = REPORTER.replace("BENCHMARKS", repr(str(Path(__file__).resolve().parent)))
        await original_start(self, sys.executable, "-c", reporter)

    def sample(pid: int) -> float:
        os.kill(pid, signal.SIGUSR1)
        time.sleep(0.3)  # the handler runs between the server's bytecodes
        resident_samples.append(resident(pid))
        return original_rss(pid)

    LanguageClient.start_io = start_io  # type: ignore[method-assign,assignment]
    lsp_soak.rss_mb = sample
    try:
        result = asyncio.run(lsp_soak.soak(edits, 300, seed))
    finally:
        LanguageClient.start_io = original_start  # type: ignore[method-assign]
        lsp_soak.rss_mb = original_rss
    reported = [json.loads(line) for line in states.read_text().splitlines()]
    states.unlink()
    steps = [step for step, _ in result["rss_mb"]]
    return [
        {"edits": step, **{k: round(v, 1) for k, v in rss.items()}, **state}
        for step, rss, state in zip(steps, resident_samples, reported, strict=False)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = measure(args.edits, args.seed)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print("  ".join(f"{key}={value}" for key, value in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
