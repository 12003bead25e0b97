"""An if/else whose branches yield the value it produces (seed 003, example 3)."""

import pypto.language as pl


@pl.program
class Conditional:
    @pl.function
    def conditional(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if x > 0:
            y1: pl.Scalar[pl.INT64] = pl.yield_(x * 2)
        else:
            y1: pl.Scalar[pl.INT64] = pl.yield_(x * 3)
        return y1
