"""Element-wise addition of two 128x64 FP32 tensors: the seeds' simple_add kernel (seed 000).

Compile it with ``ptoc compile examples/simple_add.py --target cce`` (C++ on pto-isa) or
``--target pto`` (MLIR in the PTO dialect).
"""

import pypto.language as pl


@pl.program
class SimpleAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def simple_add(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        y: pl.Tensor[[128, 64], pl.FP32],
        output: pl.Tensor[[128, 64], pl.FP32],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        tile_x: pl.Tile[[128, 64], pl.FP32] = pl.load(x, [0, 0], [128, 64])
        tile_y: pl.Tile[[128, 64], pl.FP32] = pl.load(y, [0, 0], [128, 64])
        tile_z: pl.Tile[[128, 64], pl.FP32] = pl.add(tile_x, tile_y)
        result: pl.Tensor[[128, 64], pl.FP32] = pl.store(
            tile_z, [0, 0], [128, 64], output
        )
        return result
