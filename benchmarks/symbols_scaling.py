"""Document symbols and tree-sitter re-parses against file size: both should grow linearly.

    .venv/bin/python benchmarks/symbols_scaling.py

For programs of 500 to 8,000 functions: the time of a first parse and of document symbols; for
files ending in 500 to 8,000 comment lines: the time of a re-parse after one keystroke. Prints
milliseconds and the time per function / per line (flat when linear). Not a test.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ptols.convert import Positions
from ptols.features.symbols import document_symbols
from ptols.syntax import SyntaxTree
from ptols.text import LineIndex

HEAD = "import pypto.language as pl\n\n\n@pl.program\nclass Many:\n"
FUNCTION = (
    "    @pl.function\n    def f{i}(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], "
    "pl.FP32]:\n"
    "        for k in pl.range(4):\n            b = pl.add(a, a)\n        return b\n\n"
)


def best_of(runs: int, action: Callable[..., object], *args: object) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action(*args)
        times.append(time.perf_counter() - started)
    return min(times) * 1000


def main() -> int:
    print("functions  parse ms  symbols ms  symbols us/function")
    for count in (500, 1000, 2000, 4000, 8000):
        text = HEAD + "".join(FUNCTION.format(i=i) for i in range(count))
        parse = best_of(3, SyntaxTree.parse, text)
        tree = SyntaxTree.parse(text)
        positions = Positions(LineIndex(text), "utf-16")
        symbols = best_of(3, document_symbols, tree, positions)
        print(f"{count:9}  {parse:8.1f}  {symbols:10.1f}  {symbols * 1000 / count:19.1f}")
    print("comment lines  keystroke re-parse ms  us/line")
    for count in (500, 1000, 2000, 4000, 8000):
        text = HEAD + FUNCTION.format(i=0) + "".join(f"# comment {i}\n" for i in range(count))
        tree = SyntaxTree.parse(text)
        edited = text[:40] + "x" + text[40:]
        reparse = best_of(3, tree.update, edited)
        print(f"{count:13}  {reparse:20.2f}  {reparse * 1000 / count:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
