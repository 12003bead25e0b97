"""Speed of the pass explorer: ``ptoc compile --target ir --pass-diff`` (both styles) and the
server's ``ptols/passDiff`` payload, on every example, each in a fresh process (the CLI's case:
nothing cached from an earlier file).

    .venv/bin/python benchmarks/pass_diff_speed.py [--repeat 3] [--save DIR | --compare DIR]

``--save DIR`` writes every output (the CLI's text, the server's payload as JSON) to DIR;
``--compare DIR`` fails unless every output is byte-identical to the one saved there. To check
that a change to the printer or the explorer keeps the output: save with the tree before it
(``PYTHONPATH=OLD/compiler:OLD/server``), compare with the tree after it. Prints the median
processor time (imports included) per example and style: the load of a shared
machine changes it less than the wall time. Not a test: run it on demand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
STYLES = ("unified", "side-by-side", "server")

#: One run, in a fresh interpreter: the output on stdout, the seconds it took on stderr.
ONE_RUN = """
import json, sys, time, io, contextlib
style, path = sys.argv[1], sys.argv[2]
start = time.process_time()
if style == "server":
    from ptoc import driver
    from ptoc.frontend import analyze_source
    from ptols.convert import Positions
    from ptols.features.pass_diff import descriptions, program_payload
    from ptols.jobs import compile_pass_diff
    from ptols.text import LineIndex
    text = open(path, encoding="utf-8").read()
    programs, _, _ = compile_pass_diff(analyze_source(text, path), None, None, False)
    found = descriptions()
    positions = Positions(LineIndex(text), "utf-16")
    payload = [program_payload(p, found, positions) for p in programs]
    import cattrs
    out = json.dumps(cattrs.Converter().unstructure(payload), sort_keys=True)
else:
    from ptoc import cli
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            cli.main(["compile", "--target", "ir", "--pass-diff", style, path])
        except SystemExit:
            pass
    out = buffer.getvalue()
elapsed = time.process_time() - start
sys.stdout.write(out)
sys.stderr.write(f"{elapsed}\\n")
"""


def one_run(style: str, example: Path) -> tuple[str, float]:
    found = subprocess.run(
        [sys.executable, "-c", ONE_RUN, style, str(example)],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    return found.stdout, float(found.stderr.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    saving = parser.add_mutually_exclusive_group()
    saving.add_argument("--save", type=Path)
    saving.add_argument("--compare", type=Path)
    args = parser.parse_args()
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    different: list[str] = []
    totals = dict.fromkeys(STYLES, 0.0)
    print(f"{'example':<28}" + "".join(f"{style:>14}" for style in STYLES))
    for example in EXAMPLES:
        cells = []
        for style in STYLES:
            outputs, times = [], []
            for _ in range(args.repeat):
                out, seconds = one_run(style, example)
                outputs.append(out)
                times.append(seconds)
            if len(set(outputs)) != 1:
                different.append(f"{example.name} {style}: differs from run to run")
            name = f"{example.stem}.{style}.txt"
            if args.save is not None:
                (args.save / name).write_text(outputs[0])
            if args.compare is not None and (args.compare / name).read_text() != outputs[0]:
                different.append(f"{example.name} {style}: differs from {args.compare / name}")
            median = statistics.median(times)
            totals[style] += median
            cells.append(f"{median * 1000:>12.0f}ms")
        print(f"{example.name:<28}" + "".join(cells))
    print(f"{'total':<28}" + "".join(f"{totals[s] * 1000:>12.0f}ms" for s in STYLES))
    print(f"(load average: {' / '.join(f'{v:.1f}' for v in os.getloadavg())})")
    for line in different:
        print(f"DIFFERENT: {line}")
    if args.compare is not None and not different:
        print(f"every output is byte-identical to {args.compare}")
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
