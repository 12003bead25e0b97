"""Control flow and calls between functions, used by the formatter tests."""

import pypto.language as pl


@pl.program
class LoopsAndCalls:
    @pl.function
    def pick(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if x > 10:
            y: pl.Scalar[pl.INT64] = pl.yield_(x - 10)
        else:
            y: pl.Scalar[pl.INT64] = pl.yield_(x + 1)
        return y

    @pl.function
    def accumulate(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        start: pl.Scalar[pl.INT64] = 0
        for i, (acc,) in pl.range(0, n, 1, init_values=(start,)):
            picked: pl.Scalar[pl.INT64] = self.pick(i)
            acc_next = pl.yield_(acc + picked)
        return acc_next
