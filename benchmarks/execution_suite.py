"""Wall time of the execution suite (``tests/execution``). Not a test.

    .venv/bin/python benchmarks/execution_suite.py

Runs the suite twice in a fresh kernel cache: cold (every translation unit built, as on a
fresh CI machine) and warm (everything from the cache, as on a re-run), and prints one line
per run with the wall time and pytest's summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_suite(cache: str) -> tuple[float, str]:
    env = dict(os.environ, PTOC_CACHE_DIR=cache)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/execution"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    lines = result.stdout.strip().splitlines()
    return elapsed, lines[-1] if lines else result.stderr.strip()


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ptoc-exec-bench-") as cache:
        for label in ("cold cache", "warm cache"):
            elapsed, summary = run_suite(cache)
            print(f"execution suite, {label}: {elapsed:.1f} s wall ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
