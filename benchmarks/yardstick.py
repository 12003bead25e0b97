"""Timing helpers shared by the benchmarks: every figure is reported next to a yardstick
measured in the same run (CPython's own ``ast.parse`` of the same file for in-process work, a
no-op ``python -c pass`` for whole processes), so figures compare across machines and loads."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class Figure:
    """One measured row: timings (ms), and the yardstick's timings from the same run."""

    name: str
    timings: list[float]
    yardstick: str
    yardstick_timings: list[float]
    target: str = ""

    @property
    def median(self) -> float:
        return percentile(self.timings, 0.5)

    @property
    def ratio(self) -> float:
        """Median over the yardstick's median: what stays comparable across machines."""
        return self.median / percentile(self.yardstick_timings, 0.5)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def measure(action: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds per in-process run, after one untimed warm-up run."""
    action()
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        timings.append((time.perf_counter() - start) * 1000.0)
    return timings


def measure_interleaved(
    actions: dict[str, Callable[[], object]], runs: int
) -> dict[str, list[float]]:
    """Like ``measure``, but the actions take turns, so a change of load hits them alike."""
    for action in actions.values():
        action()
    timings: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            timings[name].append((time.perf_counter() - start) * 1000.0)
    return timings


def python_env() -> dict[str, str]:
    """The environment for timed subprocesses: bytecode caches allowed (as for any installed
    tool; PYTHONDONTWRITEBYTECODE would make every start compile every module)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_quietly(command: Sequence[str], cwd: str | None = None) -> Callable[[], object]:
    """An action that runs ``command`` to completion, output discarded."""
    env = python_env()

    def action() -> object:
        return subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            check=False,
        )

    return action


NO_OP = [sys.executable, "-c", "pass"]


def table(figures: Sequence[Figure]) -> str:
    """The figures as a Markdown table (what report.py writes into the README)."""
    lines = [
        "| Measure | p50 | p95 | min | yardstick (p50) | × yardstick | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        lines.append(
            f"| {f.name} | {ms(f.median)} | {ms(percentile(f.timings, 0.95))} "
            f"| {ms(min(f.timings))} | {f.yardstick}: {ms(percentile(f.yardstick_timings, 0.5))} "
            f"| {f.ratio:.2f} | {f.target} |"
        )
    return "\n".join(lines)


def ms(value: float) -> str:
    return f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"
