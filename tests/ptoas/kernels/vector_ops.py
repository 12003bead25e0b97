"""Vector ops through PTOAS: binary, scalar, unary, reductions, row / column broadcasts
(tests/ptoas runs ptoc --target pto and PTOAS on every kernel here)."""

import pypto.language as pl


@pl.program
class VectorOps:
    @pl.function(type=pl.FunctionType.InCore)
    def binary(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        b: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        y: pl.Tile[[32, 64], pl.FP32] = pl.load(b, [0, 0], [32, 64])
        s1: pl.Tile[[32, 64], pl.FP32] = pl.block.sub(x, y)
        s2: pl.Tile[[32, 64], pl.FP32] = pl.block.div(s1, y)
        s3: pl.Tile[[32, 64], pl.FP32] = pl.block.maximum(s2, x)
        s4: pl.Tile[[32, 64], pl.FP32] = pl.block.minimum(s3, x)
        s5: pl.Tile[[32, 64], pl.FP32] = pl.block.addc(s4, x, y)
        s6: pl.Tile[[32, 64], pl.FP32] = pl.block.subc(s5, x, y)
        s7: pl.Tile[[32, 64], pl.FP32] = pl.block.adds(s6, 1.0)
        s8: pl.Tile[[32, 64], pl.FP32] = pl.block.subs(s7, 1.0)
        s9: pl.Tile[[32, 64], pl.FP32] = pl.block.muls(s8, 2.0)
        s10: pl.Tile[[32, 64], pl.FP32] = pl.block.divs(s9, 2.0)
        s11: pl.Tile[[32, 64], pl.FP32] = pl.block.maxs(s10, 0.0)
        s12: pl.Tile[[32, 64], pl.FP32] = pl.block.mins(s11, 5.0)
        s13: pl.Tile[[32, 64], pl.FP32] = pl.block.addsc(s12, 1.0, y)
        s14: pl.Tile[[32, 64], pl.FP32] = pl.block.subsc(s13, 1.0, y)
        s15: pl.Tile[[32, 64], pl.FP32] = pl.block.lrelu(s14, 0.1)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(s15, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def unary(
        self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        u1: pl.Tile[[32, 64], pl.FP32] = pl.block.neg(x)
        u2: pl.Tile[[32, 64], pl.FP32] = pl.block.abs(u1)
        u3: pl.Tile[[32, 64], pl.FP32] = pl.block.exp(u2)
        u4: pl.Tile[[32, 64], pl.FP32] = pl.block.log(u3)
        u5: pl.Tile[[32, 64], pl.FP32] = pl.block.sqrt(u4)
        u6: pl.Tile[[32, 64], pl.FP32] = pl.block.rsqrt(u5)
        u7: pl.Tile[[32, 64], pl.FP32] = pl.block.recip(u6)
        u8: pl.Tile[[32, 64], pl.FP32] = pl.block.relu(u7)
        u9: pl.Tile[[32, 64], pl.FP32] = pl.block.rem(u8, x)
        u10: pl.Tile[[32, 64], pl.FP32] = pl.block.rems(u9, 3.0)
        u11: pl.Tile[[32, 64], pl.FP32] = pl.block.expands(u10, 2.0)
        u12: pl.Tile[[32, 64], pl.FP32] = pl.block.full(
            [32, 64], dtype=pl.FP32, value=1.0
        )
        u13: pl.Tile[[32, 64], pl.FP32] = pl.block.add(u11, u12)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(u13, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def reduce(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
        o2: pl.Tensor[[1, 64], pl.FP32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        r1: pl.Tile[[32, 1], pl.FP32] = pl.block.max(x, axis=1, keepdim=True)
        r2: pl.Tile[[32, 1], pl.FP32] = pl.block.min(x, axis=1, keepdim=True)
        r3: pl.Tile[[32, 1], pl.FP32] = pl.block.add(r1, r2)
        c1: pl.Tile[[1, 64], pl.FP32] = pl.block.sum(x, axis=0, keepdim=True)
        c2: pl.Tile[[1, 64], pl.FP32] = pl.block.max(x, axis=0, keepdim=True)
        c3: pl.Tile[[1, 64], pl.FP32] = pl.block.min(x, axis=0, keepdim=True)
        c4: pl.Tile[[1, 64], pl.FP32] = pl.block.add(c1, c2)
        c5: pl.Tile[[1, 64], pl.FP32] = pl.block.add(c4, c3)
        e1: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_sub(x, r3)
        e2: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_mul(e1, r3)
        e3: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_div(e2, r3)
        e4: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_add(e3, r3)
        e5: pl.Tile[[32, 64], pl.FP32] = pl.block.sub(e4, r3)
        e6: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_mul(e5, c5)
        e7: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_div(e6, c5)
        e8: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_sub(e7, c5)
        e9: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand(e8, c5)
        e10: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand(e9)
        e11: pl.Tile[[32, 64], pl.FP32] = pl.block.mul(e10, c5)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(e11, [0, 0], [32, 64], out)
        pl.store(c5, [0, 0], [1, 64], o2)
        return result
