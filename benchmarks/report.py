"""Run the benchmarks and write their table into README.md between the markers. Not a test.

    .venv/bin/python benchmarks/report.py [--runs 20] [--rounds 60] [--readme README.md] [--dry-run]

The tables are regenerated from a run, never edited by hand: in-process figures against
``ast.parse`` of the same file (benchmarks/check_speed.py), whole-process figures against a no-op
``python -c pass`` (benchmarks/startup.py), with the machine's cores and load at the time; and
the language server's latencies over stdio (benchmarks/lsp_latency.py), as the machine is and
with a competing CPU-bound process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import check_speed  # noqa: E402  (the benchmarks folder is not a package)
import lsp_latency  # noqa: E402
import startup  # noqa: E402
from yardstick import table  # noqa: E402

BEGIN = "<!-- performance-table:begin (benchmarks/report.py writes this) -->"
END = "<!-- performance-table:end -->"
LSP_BEGIN = "<!-- lsp-table:begin (benchmarks/report.py writes this) -->"
LSP_END = "<!-- lsp-table:end -->"

#: lsp_latency's measures, as the README names them.
LSP_ROWS = {
    "edit_to_diagnostics": "one-character edit → diagnostics published",
    "edit_server_cpu": "server processor time per edit (all threads)",
    "hover": "hover",
    "completion": "completion",
    "definition": "definition",
    "preview": "preview (C++ of the edited function)",
}
#: Targets for the run beside a competitor, where an issue sets one.
LSP_BUSY_TARGETS = {"edit_to_diagnostics": "; with a competitor ≤ 40 ms (#15)"}


def load() -> str:
    try:
        return "load average {:.1f} / {:.1f} / {:.1f}".format(*os.getloadavg())
    except OSError:
        return "load average unknown"


def run(runs: int) -> str:
    before = load()
    figures = check_speed.figures(runs, 2000) + startup.figures(runs)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    header = (
        f"Run {when}: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{runs} runs each (turn about with the yardstick); {before} before, {load()} "
        "after."
    )
    return f"{header}\n\n{table(figures)}\n"


def lsp_run(rounds: int) -> str:
    """The language server's table: each measure as the machine is and beside a competitor."""
    before = load()
    quiet, busy = (asyncio.run(lsp_latency.run(2000, rounds, busy)) for busy in (False, True))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"Run {when}: {rounds} edits of a {quiet['file_lines']:,}-line kernel, once as the "
        f"machine is ({before}) and once beside a competing CPU-bound process.",
        "",
        "| Measure | p50 | p95 | p99 | with a competitor: p50 | p95 | p99 | target (p95) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, name in LSP_ROWS.items():
        a, b = quiet[key], busy[key]
        assert isinstance(a, dict) and isinstance(b, dict)
        cells = [f"{row[q]:.1f} ms" for row in (a, b) for q in ("p50", "p95", "p99")]
        target = f"≤ {a['target_p95']:g} ms" + LSP_BUSY_TARGETS.get(key, "")
        lines.append(f"| {name} | {' | '.join(cells)} | {target} |")
    lines += [
        "",
        f"Spawn to `initialized` {quiet['cold_start_ms']} ms; first full analysis after opening "
        f"{quiet['first_analysis_ms']} ms; server memory after the run {quiet['rss_mb']} MB RSS.",
    ]
    return "\n".join(lines) + "\n"


def replace_between(text: str, block: str, begin: str = BEGIN, end: str = END) -> str:
    start, stop = text.index(begin) + len(begin), text.index(end)
    return f"{text[:start]}\n{block}{text[stop:]}"


def main() -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's performance table.")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=60, help="edits of the LSP run (0: skip)")
    parser.add_argument("--readme", default=str(Path(__file__).resolve().parents[1] / "README.md"))
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = parser.parse_args()
    block = run(args.runs)
    print(block)
    lsp_block = lsp_run(args.rounds) if args.rounds else None
    if lsp_block is not None:
        print(lsp_block)
    if not args.dry_run:
        readme = Path(args.readme)
        text = replace_between(readme.read_text(encoding="utf-8"), block)
        if lsp_block is not None:
            text = replace_between(text, lsp_block, LSP_BEGIN, LSP_END)
        readme.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
