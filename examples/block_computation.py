"""Seed 004's block computation in today's spelling.

The seed writes ``pl.op.block.load(input_a, 0, 0, 32, 128)`` (positional offsets and sizes) and
``pl.op.block.row_sum(tile_sqrt)``; ptoc still accepts the first with a W003 note. Here the loads
take ``[row, col]`` / ``[height, width]`` lists, and the row reduction is ``pl.sum(..., axis=1,
keepdim=True)``: ``row_sum`` on a tile needs a scratch tile as its second argument.
"""

import pypto.language as pl


@pl.program
class MyProgram:
    @pl.function(type=pl.FunctionType.InCore)
    def block_computation(
        self,
        input_a: pl.Tensor[[128, 128], pl.FP32],
        input_b: pl.Tensor[[128, 128], pl.FP32],
        output: pl.Tensor[[128, 1], pl.FP32],
    ) -> pl.Tensor[[128, 1], pl.FP32]:
        tile_a: pl.Tile[[32, 128], pl.FP32] = pl.load(input_a, [0, 0], [32, 128])
        tile_b: pl.Tile[[32, 128], pl.FP32] = pl.load(input_b, [0, 0], [32, 128])
        tile_mul: pl.Tile[[32, 128], pl.FP32] = pl.mul(tile_a, tile_b)
        tile_sqrt: pl.Tile[[32, 128], pl.FP32] = pl.sqrt(tile_mul)
        tile_sum: pl.Tile[[32, 1], pl.FP32] = pl.sum(tile_sqrt, axis=1, keepdim=True)
        result: pl.Tensor[[128, 1], pl.FP32] = pl.store(
            tile_sum, [0, 0], [32, 1], output
        )
        return result
