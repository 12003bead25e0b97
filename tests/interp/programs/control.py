"""Programs for the interpreter's control-flow tests and its pass-equivalence test: loops
with and without loop-carried values, names assigned again, if/else yields, calls, scopes."""

import pypto.language as pl


@pl.program
class P:
    @pl.function
    def total(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        start: pl.Scalar[pl.INT64] = 100
        for i, (acc,) in pl.range(0, n, 1, init_values=(start,)):
            acc_next = pl.yield_(acc + i)
        return acc_next

    @pl.function
    def countdown(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        for (k, steps) in pl.while_(init_values=(n, 0)):
            pl.cond(k > 0)
            k2, steps2 = pl.yield_(k // 2, steps + 1)
        return steps2

    @pl.function
    def natural(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        k = 1
        while k < n:
            k = k * 3
        return k

    @pl.function
    def reassigned(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        x = 1
        for i in pl.range(n):
            x = x * 2
            if i > 1:
                x = x + 1
        return x

    @pl.function
    def pick(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if x > 0:
            y: pl.Scalar[pl.INT64] = pl.yield_(x * 2)
        else:
            y: pl.Scalar[pl.INT64] = pl.yield_(x // 4)
        return y



@pl.program
class T:
    @pl.function(type=pl.FunctionType.InCore)
    def blocks(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Tensor[[2, 4], pl.FP32],
               flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[2, 4], pl.FP32]:
        first = pl.load(x, [0, 0], [2, 4])
        for i, (acc,) in pl.range(0, 2, init_values=(first,)):
            for j, (inner,) in pl.range(0, 2, init_values=(acc,)):
                part = pl.load(x, [i * 2, j * 4], [2, 4])
                grown = pl.add(inner, part)
                inner_next = pl.yield_(grown)
            acc_next = pl.yield_(inner_next)
        if flag > 1:
            final = pl.mul(acc_next, 2.0)
        else:
            final = acc_next
        result = pl.store(final, [0, 0], [2, 4], out)
        return result

    @pl.function
    def twice(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Tensor[[2, 4], pl.FP32],
              flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[2, 4], pl.FP32]:
        with pl.incore():
            once = self.blocks(x, out, flag)
        again = self.blocks(x, once, 0)
        return again
