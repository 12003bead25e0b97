"""Generate a large, valid PyPTO file for timing the compiler (about 2,000 lines by default).

    python benchmarks/gen_kernel.py [--lines 2000] [-o big_kernel.py]

One ``@pl.program`` holds groups of functions; each group uses every construct the language has:
loads and stores, element-wise tile ops (tile-tile, tile-scalar, unary), reductions, the matmul
family through Mat/Left/Right/Acc buffers, ``pl.range`` with ``init_values``, ``if`` with
``pl.yield_``, ``pl.while_`` with ``pl.cond``, a ``with pl.incore():`` scope, tensor-level ops and
``self.`` calls between functions.
"""

from __future__ import annotations

import argparse
import sys

HEADER = '''\
"""A generated benchmark kernel (benchmarks/gen_kernel.py). Do not edit."""

import pypto.language as pl


@pl.program
class Benchmark:
'''

# Each template is formatted with k (the group number), R (tile rows) and C (tile columns).
ELEMENTWISE = """\
    @pl.function(type=pl.FunctionType.InCore)
    def elementwise_{k}(
        self,
        a: pl.Tensor[[{R}, {C}], pl.FP32],
        b: pl.Tensor[[{R}, {C}], pl.FP32],
        out: pl.Tensor[[{R}, {C}], pl.FP32],
    ) -> pl.Tensor[[{R}, {C}], pl.FP32]:
        ta: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(a, [0, 0], [{R}, {C}])
        tb: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(b, [0, 0], [{R}, {C}])
        total: pl.Tile[[{R}, {C}], pl.FP32] = pl.add(ta, tb)
        diff: pl.Tile[[{R}, {C}], pl.FP32] = pl.sub(total, tb)
        prod: pl.Tile[[{R}, {C}], pl.FP32] = pl.mul(diff, ta)
        ratio: pl.Tile[[{R}, {C}], pl.FP32] = pl.div(prod, tb)
        upper: pl.Tile[[{R}, {C}], pl.FP32] = pl.maximum(ratio, ta)
        lower: pl.Tile[[{R}, {C}], pl.FP32] = pl.minimum(upper, tb)
        scaled: pl.Tile[[{R}, {C}], pl.FP32] = pl.mul(lower, 0.5)
        shifted: pl.Tile[[{R}, {C}], pl.FP32] = pl.add(scaled, 1.0)
        grown: pl.Tile[[{R}, {C}], pl.FP32] = pl.exp(shifted)
        root: pl.Tile[[{R}, {C}], pl.FP32] = pl.sqrt(grown)
        flipped: pl.Tile[[{R}, {C}], pl.FP32] = pl.neg(root)
        magnitude: pl.Tile[[{R}, {C}], pl.FP32] = pl.abs(flipped)
        result: pl.Tensor[[{R}, {C}], pl.FP32] = pl.store(magnitude, [0, 0], [{R}, {C}], out)
        return result

"""

REDUCTION = """\
    @pl.function(type=pl.FunctionType.InCore)
    def reduction_{k}(
        self,
        a: pl.Tensor[[{R}, {C}], pl.FP32],
        out: pl.Tensor[[{R}, 1], pl.FP32],
    ) -> pl.Tensor[[{R}, 1], pl.FP32]:
        t: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(a, [0, 0], [{R}, {C}])
        scratch: pl.Tile[[{R}, {C}], pl.FP32] = pl.create_tile([{R}, {C}], dtype=pl.FP32)
        row_total: pl.Tile[[{R}, 1], pl.FP32] = pl.row_sum(t, scratch)
        row_peak: pl.Tile[[{R}, 1], pl.FP32] = pl.row_max(t, scratch)
        kept: pl.Tile[[{R}, 1], pl.FP32] = pl.sum(t, axis=1, keepdim=True)
        both: pl.Tile[[{R}, 1], pl.FP32] = pl.add(row_total, row_peak)
        combined: pl.Tile[[{R}, 1], pl.FP32] = pl.add(both, kept)
        result: pl.Tensor[[{R}, 1], pl.FP32] = pl.store(combined, [0, 0], [{R}, 1], out)
        return result

"""

MATMUL = """\
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_{k}(
        self,
        a: pl.Tensor[[{R}, {C}], pl.FP16],
        b: pl.Tensor[[{C}, {C}], pl.FP16],
        out: pl.Tensor[[{R}, {C}], pl.FP32],
    ) -> pl.Tensor[[{R}, {C}], pl.FP32]:
        a_mat = pl.load(a, [0, 0], [{R}, {C}], target_memory=pl.MemorySpace.Mat)
        b_mat = pl.load(b, [0, 0], [{C}, {C}], target_memory=pl.MemorySpace.Mat)
        a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)
        b_right = pl.move(b_mat, target_memory=pl.MemorySpace.Right)
        product = pl.matmul(a_left, b_right)
        accumulated = pl.matmul_acc(product, a_left, b_right)
        result = pl.l0c_store(accumulated, [0, 0], [{R}, {C}], out)
        return result

"""

LOOP = """\
    @pl.function(type=pl.FunctionType.InCore)
    def loop_{k}(
        self,
        a: pl.Tensor[[{R4}, {C}], pl.FP32],
        out: pl.Tensor[[{R}, {C}], pl.FP32],
    ) -> pl.Tensor[[{R}, {C}], pl.FP32]:
        first: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(a, [0, 0], [{R}, {C}])
        for i, (acc,) in pl.range(1, 4, init_values=(first,)):
            rows: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(a, [i * {R}, 0], [{R}, {C}])
            summed: pl.Tile[[{R}, {C}], pl.FP32] = pl.add(acc, rows)
            acc_next = pl.yield_(summed)
        result: pl.Tensor[[{R}, {C}], pl.FP32] = pl.store(acc_next, [0, 0], [{R}, {C}], out)
        return result

"""

BRANCH = """\
    @pl.function(type=pl.FunctionType.InCore)
    def branch_{k}(
        self,
        a: pl.Tensor[[{R}, {C}], pl.FP32],
        out: pl.Tensor[[{R}, {C}], pl.FP32],
        n: pl.Scalar[pl.INT64],
    ) -> pl.Tensor[[{R}, {C}], pl.FP32]:
        t: pl.Tile[[{R}, {C}], pl.FP32] = pl.load(a, [0, 0], [{R}, {C}])
        if n > {k}:
            grown: pl.Tile[[{R}, {C}], pl.FP32] = pl.exp(t)
            picked: pl.Tile[[{R}, {C}], pl.FP32] = pl.yield_(grown)
        else:
            shrunk: pl.Tile[[{R}, {C}], pl.FP32] = pl.log(t)
            picked: pl.Tile[[{R}, {C}], pl.FP32] = pl.yield_(shrunk)
        result: pl.Tensor[[{R}, {C}], pl.FP32] = pl.store(picked, [0, 0], [{R}, {C}], out)
        return result

"""

WHILE = """\
    @pl.function
    def count_{k}(self, limit: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        start: pl.Scalar[pl.INT64] = {k}
        for (c,) in pl.while_(init_values=(start,)):
            pl.cond(c < limit)
            c_next = pl.yield_(c + 1)
        doubled: pl.Scalar[pl.INT64] = c_next * 2
        return doubled

"""

ORCHESTRATION = """\
    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrate_{k}(
        self,
        a: pl.Tensor[[{R}, {C}], pl.FP32],
        b: pl.Tensor[[{R}, {C}], pl.FP32],
        out: pl.Tensor[[{R}, {C}], pl.FP32],
    ) -> pl.Tensor[[{R}, {C}], pl.FP32]:
        summed: pl.Tensor[[{R}, {C}], pl.FP32] = pl.add(a, b)
        with pl.incore():
            first: pl.Tensor[[{R}, {C}], pl.FP32] = self.elementwise_{k}(summed, b, out)
        second: pl.Tensor[[{R}, {C}], pl.FP32] = self.elementwise_{k}(first, a, out)
        return second

"""

GROUP = (ELEMENTWISE, REDUCTION, MATMUL, LOOP, BRANCH, WHILE, ORCHESTRATION)
ROWS = (16, 32, 64)
COLUMNS = 64


def generate(lines: int = 2000) -> str:
    """A program of whole function groups, stopping once it has at least ``lines`` lines."""
    parts = [HEADER]
    total = HEADER.count("\n")
    k = 0
    while total < lines:
        rows = ROWS[k % len(ROWS)]
        for template in GROUP:
            text = template.format(k=k, R=rows, R4=4 * rows, C=COLUMNS)
            parts.append(text)
            total += text.count("\n")
        k += 1
    return "".join(parts).rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000, help="minimum number of lines")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args()
    text = generate(args.lines)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
