"""Kernels for the interpreter's pass-equivalence test: every construct the passes rewrite."""

import pypto.language as pl


@pl.program
class Kernels:
    @pl.function(type=pl.FunctionType.InCore)
    def windows_in_loops(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(2):
            for j in pl.range(2):
                part = pl.load(x, [i * 32, j * 32], [32, 32])
                doubled = pl.add(part, part)
                out = pl.store(doubled, [i * 32, j * 32], [32, 32], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def fibonacci(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        y: pl.Tensor[[16, 16], pl.FP32],
        out_a: pl.Tensor[[16, 16], pl.FP32],
        out_b: pl.Tensor[[16, 16], pl.FP32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        a0 = pl.load(x, [0, 0], [16, 16])
        b0 = pl.load(y, [0, 0], [16, 16])
        for _i, (a, b) in pl.range(3, init_values=(a0, b0)):
            c = pl.add(a, b)
            a_next, b_next = pl.yield_(b, c)
        out_a = pl.store(a_next, [0, 0], [16, 16], out_a)
        out_b = pl.store(b_next, [0, 0], [16, 16], out_b)
        return out_b

    @pl.function(type=pl.FunctionType.InCore)
    def online_softmax(
        self,
        x: pl.Tensor[[64, 32], pl.FP32],
        out_max: pl.Tensor[[16, 1], pl.FP32],
        out_sum: pl.Tensor[[16, 1], pl.FP32],
    ) -> pl.Tensor[[16, 1], pl.FP32]:
        first = pl.load(x, [0, 0], [16, 32])
        m0 = pl.max(first, axis=1, keepdim=True)
        l0 = pl.sum(pl.exp(pl.row_expand_sub(first, m0)), axis=1, keepdim=True)
        for i, (m, total) in pl.range(1, 4, init_values=(m0, l0)):
            block = pl.load(x, [i * 16, 0], [16, 32])
            m_block = pl.max(block, axis=1, keepdim=True)
            m_new = pl.maximum(m, m_block)
            scale = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(block, m_new))
            l_new = pl.add(pl.mul(total, scale), pl.sum(p, axis=1, keepdim=True))
            m_out, l_out = pl.yield_(m_new, l_new)
        out_max = pl.store(m_out, [0, 0], [16, 1], out_max)
        out_sum = pl.store(l_out, [0, 0], [16, 1], out_sum)
        return out_sum

    @pl.function(type=pl.FunctionType.InCore)
    def gemm_k_tiled(
        self,
        a: pl.Tensor[[32, 128], pl.FP16],
        b: pl.Tensor[[128, 32], pl.FP16],
        c: pl.Tensor[[32, 32], pl.FP32],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        a0 = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        b0 = pl.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        first = pl.matmul(
            pl.move(a0, target_memory=pl.MemorySpace.Left),
            pl.move(b0, target_memory=pl.MemorySpace.Right),
        )
        for k, (acc,) in pl.range(1, 4, init_values=(first,)):
            ak = pl.load(a, [0, k * 32], [32, 32], target_memory=pl.MemorySpace.Mat)
            bk = pl.load(b, [k * 32, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
            left = pl.move(ak, target_memory=pl.MemorySpace.Left)
            right = pl.move(bk, target_memory=pl.MemorySpace.Right)
            acc_next = pl.yield_(pl.matmul_acc(acc, left, right))
        c = pl.l0c_store(acc_next, [0, 0], [32, 32], c)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def reductions(
        self,
        x: pl.Tensor[[16, 32], pl.FP16],
        rows: pl.Tensor[[16, 1], pl.FP16],
        cols: pl.Tensor[[1, 32], pl.FP16],
        centred: pl.Tensor[[16, 32], pl.FP16],
    ) -> pl.Tensor[[1, 32], pl.FP16]:
        t = pl.load(x, [0, 0], [16, 32])
        row_total = pl.sum(t, axis=1, keepdim=True)
        col_total = pl.sum(t, axis=0, keepdim=True)
        row_peak = pl.max(t, axis=-1, keepdim=True)
        col_low = pl.min(t, axis=0, keepdim=True)
        rows = pl.store(pl.sub(row_total, row_peak), [0, 0], [16, 1], rows)
        shifted = pl.col_expand_sub(pl.row_expand_sub(t, row_peak), col_low)
        centred = pl.store(shifted, [0, 0], [16, 32], centred)
        cols = pl.store(col_total, [0, 0], [1, 32], cols)
        return cols

    @pl.function(type=pl.FunctionType.InCore)
    def casts_and_scalars(
        self,
        x: pl.Tensor[[16, 16], pl.FP32],
        scale: pl.Scalar[pl.FP32],
        n: pl.Scalar[pl.INT64],
        out: pl.Tensor[[16, 16], pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.INT32]:
        t = pl.load(x, [0, 0], [16, 16])
        for i in pl.range(n):
            t = pl.mul(t, scale)
            if i % 2 == 0:
                t = pl.add(t, 1.5)
            else:
                t = pl.block.subs(t, 0.25)
        half = pl.cast(t, target_type=pl.FP16)
        floored = pl.cast(half, target_type=pl.INT32, mode="floor")
        wide = pl.cast(floored, target_type=pl.FP32)
        back = pl.cast(pl.sqrt(pl.abs(wide)), target_type=pl.INT32, mode="round")
        out = pl.store(back, [0, 0], [16, 16], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def select_and_while(
        self,
        x: pl.Tensor[[8, 16], pl.FP32],
        y: pl.Tensor[[8, 16], pl.FP32],
        limit: pl.Scalar[pl.INT64],
        out: pl.Tensor[[8, 16], pl.FP32],
    ) -> pl.Tensor[[8, 16], pl.FP32]:
        a = pl.load(x, [0, 0], [8, 16])
        b = pl.load(y, [0, 0], [8, 16])
        for (k, acc) in pl.while_(init_values=(0, a)):
            pl.cond(k < limit)
            larger = pl.sel(pl.cmp(acc, b, cmp_type=4), acc, b)
            k2, acc2 = pl.yield_(k + 1, pl.add(larger, a))
        out = pl.store(acc2, [0, 0], [8, 16], out)
        return out
