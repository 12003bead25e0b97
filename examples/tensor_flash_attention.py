"""Flash attention over 4 key/value blocks, written on tensors (cf. flash_attention.py).

One query block ``q`` (64 x 128) attends to 256 keys, 64 at a time; the keys come transposed
(``kt`` is K^T, [128, 256]). Every ``with pl.incore():`` scope becomes a kernel: the two
matmuls run on the cube unit, the softmax updates on the vector unit, each in its own kernel
(A2/A3's cube results do not feed vector instructions). The first block is computed before
the loop, which then carries the running row maximum ``mi``, the softmax denominator ``li``
and the unnormalised output ``oi``, rescaling them to each new maximum.
"""

import pypto.language as pl


@pl.program
class TensorFlashAttention:
    @pl.function
    def flash_attention(
        self,
        q: pl.Tensor[[64, 128], pl.FP16],
        kt: pl.Tensor[[128, 256], pl.FP16],
        v: pl.Tensor[[256, 128], pl.FP16],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        kt0: pl.Tensor[[128, 64], pl.FP16] = pl.view(kt, [128, 64], [0, 0])
        v0: pl.Tensor[[64, 128], pl.FP16] = pl.view(v, [64, 128], [0, 0])
        with pl.incore():
            s0: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(q, kt0, out_dtype=pl.FP32)
        with pl.incore():
            scaled0: pl.Tensor[[64, 64], pl.FP32] = pl.mul(s0, 0.08838834764831845)
            m0: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(scaled0)
            p0: pl.Tensor[[64, 64], pl.FP32] = pl.exp(pl.sub(scaled0, m0))
            l0: pl.Tensor[[64, 1], pl.FP32] = pl.row_sum(p0)
            p0_half: pl.Tensor[[64, 64], pl.FP16] = pl.cast(p0, target_type=pl.FP16)
        with pl.incore():
            o0: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(p0_half, v0, out_dtype=pl.FP32)

        for j, (mi, li, oi) in pl.range(1, 4, init_values=(m0, l0, o0)):
            ktj: pl.Tensor[[128, 64], pl.FP16] = pl.view(kt, [128, 64], [0, j * 64])
            vj: pl.Tensor[[64, 128], pl.FP16] = pl.view(v, [64, 128], [j * 64, 0])
            with pl.incore():
                sij: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(q, ktj, out_dtype=pl.FP32)
            with pl.incore():
                scaled: pl.Tensor[[64, 64], pl.FP32] = pl.mul(sij, 0.08838834764831845)
                mij: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(scaled)
                mi_new: pl.Tensor[[64, 1], pl.FP32] = pl.maximum(mi, mij)
                pij: pl.Tensor[[64, 64], pl.FP32] = pl.exp(pl.sub(scaled, mi_new))
                lij: pl.Tensor[[64, 1], pl.FP32] = pl.row_sum(pij)
                alpha: pl.Tensor[[64, 1], pl.FP32] = pl.exp(pl.sub(mi, mi_new))
                li_new: pl.Tensor[[64, 1], pl.FP32] = pl.add(pl.mul(alpha, li), lij)
                pij_half: pl.Tensor[[64, 64], pl.FP16] = pl.cast(pij, target_type=pl.FP16)
            with pl.incore():
                pv: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(pij_half, vj, out_dtype=pl.FP32)
            with pl.incore():
                oi_new: pl.Tensor[[64, 128], pl.FP32] = pl.add(pl.mul(oi, alpha), pv)
            mi_out, li_out, oi_out = pl.yield_(mi_new, li_new, oi_new)

        with pl.incore():
            attention: pl.Tensor[[64, 128], pl.FP32] = pl.div(oi_out, li_out)
        return attention
