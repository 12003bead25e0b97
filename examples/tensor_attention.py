"""Attention of one query block over one key block, written on tensors (cf. flash_attention.py).

Each ``with pl.incore():`` scope becomes a kernel (OutlineIncoreScopes) whose tensor ops
ConvertTensorToBlockOps lowers: the two matmuls run on the cube unit (operands loaded into Mat,
moved to Left / Right, the product stored from Acc), the softmax on the vector unit. A matmul
and the vector ops that read its product are separate kernels: on A2/A3 the cube's Acc buffer
does not feed vector instructions. ``attention`` becomes the orchestration function that
creates the intermediate tensors and launches the three kernels. The keys come transposed
(``kt`` is K^T, [128, 64]).
"""

import pypto.language as pl


@pl.program
class TensorAttention:
    @pl.function
    def attention(
        self,
        q: pl.Tensor[[64, 128], pl.FP16],
        kt: pl.Tensor[[128, 64], pl.FP16],
        v: pl.Tensor[[64, 128], pl.FP16],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.incore():
            scores: pl.Tensor[[64, 64], pl.FP32] = pl.matmul(q, kt, out_dtype=pl.FP32)
        with pl.incore():
            scaled: pl.Tensor[[64, 64], pl.FP32] = pl.mul(scores, 0.08838834764831845)
            row_max: pl.Tensor[[64, 1], pl.FP32] = pl.row_max(scaled)
            shifted: pl.Tensor[[64, 64], pl.FP32] = pl.sub(scaled, row_max)
            weights: pl.Tensor[[64, 64], pl.FP32] = pl.exp(shifted)
            total: pl.Tensor[[64, 1], pl.FP32] = pl.row_sum(weights)
            probs: pl.Tensor[[64, 64], pl.FP32] = pl.div(weights, total)
            probs_half: pl.Tensor[[64, 64], pl.FP16] = pl.cast(probs, target_type=pl.FP16)
        with pl.incore():
            out: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(probs_half, v, out_dtype=pl.FP32)
        return out
