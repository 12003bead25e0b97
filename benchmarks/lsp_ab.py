"""A/B of the LSP latency benchmark: this tree against another checkout, runs interleaved.

    git archive main compiler server | tar -x -C /tmp/base
    .venv/bin/python benchmarks/lsp_ab.py /tmp/base [--runs 7] [--load both] [--rounds 60]

Each run is ``benchmarks/lsp_latency.py --json`` (this tree's script for both sides, so both
are measured the same way) with the server and compiler imported from one tree: this one, then
the other, then this one... so that the machine's load falls on both alike. Prints, per load
and measure, the median over the runs of each percentile, for A (the other tree) and B (this
one), and the load averages seen. Not a test: run it on demand.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = (
    "edit_to_diagnostics",
    "edit_server_cpu",
    "hover",
    "completion",
    "definition",
    "preview",
    "semantic_tokens",
)


def one_run(tree: Path, load: str, rounds: int, tokens: str) -> list[dict[str, object]]:
    env = dict(os.environ, PYTHONPATH=f"{tree / 'compiler'}{os.pathsep}{tree / 'server'}")
    command = [sys.executable, str(HERE / "lsp_latency.py"), "--json", "--load", load]
    command += ["--rounds", str(rounds), "--semantic-tokens", tokens]
    found = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    reports: list[dict[str, object]] = json.loads(found.stdout)
    return reports


def medians(runs: list[dict[str, Any]], measure: str) -> list[float] | None:
    """The median over ``runs`` of the measure's p50, p95 and p99 (None: not measured)."""
    rows = [run[measure] for run in runs if measure in run]
    if not rows:
        return None
    return [statistics.median(float(row[q]) for row in rows) for q in ("p50", "p95", "p99")]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("base", type=Path, help="the other tree (with compiler/ and server/)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--load", choices=["quiet", "busy", "both"], default="both")
    parser.add_argument("--semantic-tokens", choices=["on", "off"], default="on")
    parser.add_argument("--json", type=Path, help="also write every run's report here")
    args = parser.parse_args()
    trees = {"A": args.base.resolve(), "B": ROOT}
    results: dict[str, list[list[dict[str, object]]]] = {"A": [], "B": []}
    for number in range(args.runs):
        order = ("A", "B") if number % 2 == 0 else ("B", "A")
        for side in order:
            results[side].append(one_run(trees[side], args.load, args.rounds, args.semantic_tokens))
            print(f"run {number + 1}/{args.runs} {side} done", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    sessions = len(results["A"][0])
    for session in range(sessions):
        busy = results["A"][0][session]["competitor"]
        print(f"\n{'with a competing CPU-bound process' if busy else 'as the machine is'}")
        for side in ("A", "B"):
            loads = [run[session]["load_average"] for run in results[side]]
            print(f"  load averages {side}: {loads}")
        heads = "".join(f"{side + ' ' + q:>8}" for q in ("p50", "p95", "p99") for side in "AB")
        print(f"{'measure':<22}{heads}")
        for measure in MEASURES:
            a = medians([run[session] for run in results["A"]], measure)
            b = medians([run[session] for run in results["B"]], measure)
            if a is None or b is None:
                continue
            cells = "".join(f"{x:>8.1f}{y:>8.1f}" for x, y in zip(a, b, strict=True))
            print(f"{measure:<22}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
