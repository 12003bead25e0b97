"""Loop-carried values (seed 003, example 4): ``pl.range`` with ``init_values`` and ``pl.yield_``.

``loop_sum`` is the seed's scalar loop; ``sum_row_blocks`` carries a tile through the same kind
of loop, adding the four 32-row blocks of ``x`` together.
"""

import pypto.language as pl


@pl.program
class LoopSum:
    @pl.function
    def loop_sum(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        sum_init: pl.Scalar[pl.INT64] = 0
        for i, (running,) in pl.range(0, n, 1, init_values=(sum_init,)):
            running_next = pl.yield_(running + i)
        sum_final: pl.Scalar[pl.INT64] = running_next
        return sum_final

    @pl.function(type=pl.FunctionType.InCore)
    def sum_row_blocks(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        first: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        for i, (acc,) in pl.range(1, 4, init_values=(first,)):
            rows: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [i * 32, 0], [32, 64])
            total: pl.Tile[[32, 64], pl.FP32] = pl.add(acc, rows)
            acc_next = pl.yield_(total)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(acc_next, [0, 0], [32, 64], out)
        return result
