"""Time the compiler in-process on a generated ~2,000-line kernel file. Not a test.

    .venv/bin/python benchmarks/check_speed.py [--runs 20] [--lines 2000]

Reports p50 / p95 / min in milliseconds for
  * the front end (``analyze_source``: what ``ptoc check`` and every editor keystroke cost),
  * the whole back end of every program in the file: ``run_pipeline`` default + CCE code
    generation, and ``run_pipeline`` ptoas + PTO code generation.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_kernel import generate  # noqa: E402  (the benchmarks folder is not a package)

from ptoc.codegen.cce import generate_cce  # noqa: E402
from ptoc.codegen.pto import generate_pto  # noqa: E402
from ptoc.driver import run_pipelines  # noqa: E402
from ptoc.frontend import analyze_source  # noqa: E402
from ptoc.ir.function import Program  # noqa: E402


def measure(action: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds per run, after one untimed warm-up run."""
    action()
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        timings.append((time.perf_counter() - start) * 1000.0)
    return timings


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def compile_all(programs: list[Program]) -> dict[str, int]:
    """Both back ends over every program; returns how many diagnostics each produced."""
    counts = {"cce": 0, "pto": 0}
    for program in programs:
        lowered = run_pipelines(program, ["default", "ptoas"])
        default, ptoas = lowered["default"], lowered["ptoas"]
        counts["cce"] += len(default.diagnostics) + len(generate_cce(default.program).diagnostics)
        counts["pto"] += len(ptoas.diagnostics) + len(generate_pto(ptoas.program).diagnostics)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description="Time ptoc on a generated kernel file.")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines", type=int, default=2000)
    args = parser.parse_args()

    text = generate(args.lines)
    path = "benchmark_kernel.py"
    analysis = analyze_source(text, path)
    programs = analysis.all_programs()
    functions = sum(len(p.functions) for p in programs)
    print(
        f"input: {text.count(chr(10))} lines, {functions} functions, "
        f"{len(analysis.diagnostics)} front-end diagnostics"
    )
    counts = compile_all(programs)
    print(f"back-end diagnostics: cce {counts['cce']}, pto {counts['pto']}")
    for diagnostic in analysis.diagnostics[:5]:
        print("  " + diagnostic.format())

    rows = [
        ("front end (analyze_source)", measure(lambda: analyze_source(text, path), args.runs)),
        (
            "pipeline + CCE + PTO codegen",
            measure(lambda: compile_all(programs), args.runs),
        ),
    ]
    print()
    print(f"| {'measurement':<30} | runs | p50 ms  | p95 ms  | min ms  |")
    print(f"|{'-' * 32}|------|---------|---------|---------|")
    for name, timings in rows:
        print(
            f"| {name:<30} | {len(timings):>4} | {percentile(timings, 0.5):>7.1f} "
            f"| {percentile(timings, 0.95):>7.1f} | {min(timings):>7.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
