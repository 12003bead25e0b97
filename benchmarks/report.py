"""Run the benchmarks and write their table into README.md between the markers. Not a test.

    .venv/bin/python benchmarks/report.py [--runs 20] [--readme README.md] [--dry-run]

The table is regenerated from a run, never edited by hand: in-process figures against
``ast.parse`` of the same file (benchmarks/check_speed.py), whole-process figures against a no-op
``python -c pass`` (benchmarks/startup.py), with the machine's cores and load at the time.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import check_speed  # noqa: E402  (the benchmarks folder is not a package)
import startup  # noqa: E402
from yardstick import table  # noqa: E402

BEGIN = "<!-- performance-table:begin (benchmarks/report.py writes this) -->"
END = "<!-- performance-table:end -->"


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


def replace_between(text: str, block: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return f"{text[:start]}\n{block}{text[end:]}"


def main() -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's performance table.")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--readme", default=str(Path(__file__).resolve().parents[1] / "README.md"))
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = parser.parse_args()
    block = run(args.runs)
    print(block)
    if not args.dry_run:
        readme = Path(args.readme)
        readme.write_text(
            replace_between(readme.read_text(encoding="utf-8"), block), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
