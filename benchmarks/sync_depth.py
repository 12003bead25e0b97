"""Compile time against loop nesting depth (InsertSync used to double per level). Not a test.

    .venv/bin/python benchmarks/sync_depth.py [--max-depth 64] [--runs 5]

For depths 1, 2, 4, ... up to ``--max-depth`` it builds a kernel with a load, an add and a store
inside that many nested ``pl.range`` loops and reports the best of ``--runs`` timings of the
whole CCE compile (front end, default pipeline, code generation) and of InsertSync alone, with
the number of statements InsertSync walked. Linear means the last two columns grow in
proportion to the depth.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial

from ptoc.codegen.cce import generate_cce
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source
from ptoc.ir.function import Program
from ptoc.passes import PassContext
from ptoc.passes.insert_sync import plan_sync

TILE = "pl.Tile[[32, 64], pl.FP32]"
BEFORE_SYNC = ["ConvertToSSA", "FlattenCalls", "Verifier", "InitMemRef", "MemoryReuse"]


def nested_kernel(depth: int) -> str:
    lines = [
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Deep:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def deep(",
        "        self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]",
        "    ) -> pl.Tensor[[32, 64], pl.FP32]:",
    ]
    indent = " " * 8
    for level in range(depth):
        lines.append(f"{indent}for i{level} in pl.range(2):")
        indent += "    "
    lines += [
        f"{indent}tx: {TILE} = pl.load(x, [0, 0], [32, 64])",
        f"{indent}tz: {TILE} = pl.add(tx, tx)",
        f"{indent}r: pl.Tensor[[32, 64], pl.FP32] = pl.store(tz, [0, 0], [32, 64], out)",
        "        return out",
    ]
    return "\n".join(lines) + "\n"


def best_ms(action: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best * 1000.0


def compile_cce(text: str) -> object:
    (program,) = analyze_source(text, "deep.py").all_programs()
    result = run_pipeline(program, "default")
    assert result.diagnostics == [], result.diagnostics
    return generate_cce(result.program)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-depth", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"{'depth':>5}  {'compile ms':>10}  {'InsertSync ms':>13}  {'walked':>6}")
    depth = 1
    while depth <= args.max_depth:
        text = nested_kernel(depth)
        (program,) = analyze_source(text, "deep.py").all_programs()
        before: Program = run_pipeline(program, BEFORE_SYNC).program
        fn = before.functions[0]
        walked = plan_sync(fn, PassContext())[1]
        sync_ms = best_ms(partial(plan_sync, fn, PassContext()), args.runs)
        compile_ms = best_ms(partial(compile_cce, text), args.runs)
        print(f"{depth:>5}  {compile_ms:>10.1f}  {sync_ms:>13.2f}  {walked:>6}")
        depth *= 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
