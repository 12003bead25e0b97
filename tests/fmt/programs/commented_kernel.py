# A kernel with comments in every place a comment can go; already formatted.
"""Row-wise scaled addition, used by the formatter tests."""

import pypto.language as pl  # the DSL

ROWS = 64  # rows per block


# Before the program decorator.
@pl.program
class ScaledAdd:
    # Before a function decorator.
    @pl.function(type=pl.FunctionType.InCore)
    def scaled_add(
        self,
        x: pl.Tensor[[64, 128], pl.FP32],  # first operand
        y: pl.Tensor[[64, 128], pl.FP32],  # second operand
        out: pl.Tensor[[64, 128], pl.FP32],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        """Load both operands, add, scale, store."""
        tile_x: pl.Tile[[64, 128], pl.FP32] = pl.load(x, [0, 0], [ROWS, 128])
        # Between two statements.
        tile_y: pl.Tile[[64, 128], pl.FP32] = pl.load(
            y,
            [0, 0],  # offsets
            [ROWS, 128],  # shape
        )
        total: pl.Tile[[64, 128], pl.FP32] = pl.add(tile_x, tile_y)  # end of line
        scaled: pl.Tile[[64, 128], pl.FP32] = pl.mul(total, 0.5)
        # Before the store.
        result: pl.Tensor[[64, 128], pl.FP32] = pl.store(
            scaled, [0, 0], [ROWS, 128], out
        )
        return result  # done


# At the end of the file.
