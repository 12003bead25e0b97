"""Time the compiler in-process on a generated ~2,000-line kernel file. Not a test.

    .venv/bin/python benchmarks/check_speed.py [--runs 20] [--lines 2000]

Reports p50 / p95 / min in milliseconds, each next to CPython's own ``ast.parse`` of the same
file timed in the same run (turn about), for
  * the front end (``analyze_source``: what ``ptoc check`` and every editor keystroke cost),
  * the back end of every program in the file: the ``default`` and ``ptoas`` pipelines (their
    shared passes run once) with CCE and PTO code generation,
  * both together: check, both pipelines and both generators.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_kernel import generate  # noqa: E402  (the benchmarks folder is not a package)
from yardstick import Figure, measure_interleaved, table  # noqa: E402

from ptoc.codegen.cce import generate_cce  # noqa: E402
from ptoc.codegen.pto import generate_pto  # noqa: E402
from ptoc.driver import run_pipelines  # noqa: E402
from ptoc.frontend import analyze_source  # noqa: E402
from ptoc.ir.function import Program  # noqa: E402

PATH = "benchmark_kernel.py"


def compile_all(programs: list[Program]) -> dict[str, int]:
    """Both back ends over every program; returns how many diagnostics each produced."""
    counts = {"cce": 0, "pto": 0}
    for program in programs:
        lowered = run_pipelines(program, ["default", "ptoas"])
        default, ptoas = lowered["default"], lowered["ptoas"]
        counts["cce"] += len(default.diagnostics) + len(generate_cce(default.program).diagnostics)
        counts["pto"] += len(ptoas.diagnostics) + len(generate_pto(ptoas.program).diagnostics)
    return counts


def check_and_compile(text: str) -> None:
    compile_all(analyze_source(text, PATH).all_programs())


def in_2026_08_spelling(text: str) -> str:
    """The same kernel in PyPTO 2026-08's spelling, line for line: the three-argument store
    (an Acc tile's too), ``pl.row_sum`` for the axis reduction ``pl.sum``, ``with
    pl.at(level=pl.Level.CORE_GROUP):`` for ``with pl.incore():``."""
    text = re.sub(
        r"pl\.(?:l0c_)?store\(([^,]+), (\[[^\]]*\]), \[[^\]]*\], (\w+)\)",
        r"pl.store(\1, \2, \3)",
        text,
    )
    text = text.replace("pl.sum(t, axis=1, keepdim=True)", "pl.row_sum(t, scratch)")
    return text.replace("with pl.incore():", "with pl.at(level=pl.Level.CORE_GROUP):")


def figures(runs: int, lines: int) -> list[Figure]:
    text = generate(lines)
    today = in_2026_08_spelling(text)
    programs = analyze_source(text, PATH).all_programs()
    timings = measure_interleaved(
        {
            "parse": lambda: ast.parse(text),
            "front": lambda: analyze_source(text, PATH),
            "today": lambda: analyze_source(today, PATH),
            "back": lambda: compile_all(programs),
            "both": lambda: check_and_compile(text),
        },
        runs,
    )
    size = f"{text.count(chr(10)):,}-line kernel"
    parse = ("`ast.parse`", timings["parse"])
    return [
        Figure(f"front end (`ptoc check`), {size}", timings["front"], *parse),
        Figure(
            "front end, the same kernel in 2026-08 spelling",
            timings["today"],
            *parse,
            target="≤ the 2026-03 kernel",
        ),
        Figure(
            f"both pipelines + CCE + PTO generation, {size}",
            timings["back"],
            *parse,
            target="≤ front end",
        ),
        Figure(
            f"check + both pipelines + both generators, {size}",
            timings["both"],
            *parse,
            target="≤ 300 ms",
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description="Time ptoc on a generated kernel file.")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines", type=int, default=2000)
    args = parser.parse_args()

    text = generate(args.lines)
    analysis = analyze_source(text, PATH)
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
    print()
    print(table(figures(args.runs, args.lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
