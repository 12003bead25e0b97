"""A tensor-level program: kernels written on whole tensors, launched from the host.

``scaled_sum`` is an InCore kernel on tensors: ConvertTensorToBlockOps turns its tensor ops
into loads, block ops and a store, and as its 512 x 128 tiles would not all fit the unified
buffer at once it runs over windows of 64 rows. ``main``'s ``with pl.incore():`` scope becomes
the kernel ``main_incore_0`` (OutlineIncoreScopes), and ``main`` the orchestration function
that creates the intermediate tensor and launches both kernels.
"""

import pypto.language as pl


@pl.program
class TensorAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def scaled_sum(
        self, a: pl.Tensor[[512, 128], pl.FP32], b: pl.Tensor[[512, 128], pl.FP32]
    ) -> pl.Tensor[[512, 128], pl.FP32]:
        total: pl.Tensor[[512, 128], pl.FP32] = pl.add(a, b)
        scaled: pl.Tensor[[512, 128], pl.FP32] = pl.mul(total, 0.5)
        return scaled

    @pl.function
    def main(
        self, a: pl.Tensor[[512, 128], pl.FP32], b: pl.Tensor[[512, 128], pl.FP32]
    ) -> pl.Tensor[[512, 128], pl.FP32]:
        mean: pl.Tensor[[512, 128], pl.FP32] = self.scaled_sum(a, b)
        with pl.incore():
            result: pl.Tensor[[512, 128], pl.FP32] = pl.sub(a, mean)
        return result
