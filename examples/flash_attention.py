"""Flash attention over 16 key/value blocks (seed 003, example 6, in valid syntax).

One query block ``q`` (64 x 128) attends to 1024 keys, 64 at a time. The loop carries the
running row maximum ``mi``, the running softmax denominator ``li``, the unnormalised output
``oi`` and the normalised ``attention``; every step rescales what was accumulated so far to
the new maximum. All ops are tensor-level (orchestration side).
"""

import pypto.language as pl


@pl.program
class FlashAttention:
    @pl.function(type=pl.FunctionType.Orchestration)
    def flash_attention(
        self,
        q: pl.Tensor[[64, 128], pl.FP16],
        k: pl.Tensor[[1024, 128], pl.FP16],
        v: pl.Tensor[[1024, 128], pl.FP16],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        attention_init: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.create_tensor(
            [64, 128], dtype=pl.FP32
        )
        oi_init: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.create_tensor(
            [64, 128], dtype=pl.FP32
        )
        li_init: pl.Tensor[[64, 1], pl.FP32] = pl.tensor.create_tensor(
            [64, 1], dtype=pl.FP32
        )
        mi_init: pl.Tensor[[64, 1], pl.FP32] = pl.tensor.create_tensor(
            [64, 1], dtype=pl.FP32
        )

        for j, (mi, li, attention, oi) in pl.range(
            16, init_values=(mi_init, li_init, attention_init, oi_init)
        ):
            kj: pl.Tensor[[64, 128], pl.FP16] = pl.tensor.view(
                k, [64, 128], [j * 64, 0]
            )
            vj: pl.Tensor[[64, 128], pl.FP16] = pl.tensor.view(
                v, [64, 128], [j * 64, 0]
            )

            # Scores of this key block, q @ kj^T, scaled by 1 / sqrt(128).
            sij: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(
                q, kj, out_dtype=pl.FP32, b_trans=True
            )
            sij_scaled: pl.Tensor[[64, 64], pl.FP32] = pl.mul(sij, 0.08838834764831845)

            # The running row maximum, and this block's probabilities relative to it.
            mij: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(sij_scaled)
            mi_new: pl.Tensor[[64, 1], pl.FP32] = pl.maximum(mi, mij)
            shifted: pl.Tensor[[64, 64], pl.FP32] = pl.sub(sij_scaled, mi_new)
            pij: pl.Tensor[[64, 64], pl.FP32] = pl.exp(shifted)
            lij: pl.Tensor[[64, 1], pl.FP32] = pl.row_sum(pij)

            # Rescale the denominator and the output accumulated so far to the new maximum.
            mi_delta: pl.Tensor[[64, 1], pl.FP32] = pl.sub(mi, mi_new)
            alpha: pl.Tensor[[64, 1], pl.FP32] = pl.exp(mi_delta)
            li_scaled: pl.Tensor[[64, 1], pl.FP32] = pl.mul(alpha, li)
            li_new: pl.Tensor[[64, 1], pl.FP32] = pl.add(li_scaled, lij)
            pv: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(pij, vj, out_dtype=pl.FP32)
            oi_scaled: pl.Tensor[[64, 128], pl.FP32] = pl.mul(oi, alpha)
            oi_new: pl.Tensor[[64, 128], pl.FP32] = pl.add(oi_scaled, pv)
            attention_new: pl.Tensor[[64, 128], pl.FP32] = pl.div(oi_new, li_new)

            mi_out, li_out, attention_out, oi_out = pl.yield_(
                mi_new, li_new, attention_new, oi_new
            )

        return attention_out
