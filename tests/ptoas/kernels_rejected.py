"""Kernels ptoc compiles but PTOAS rejects (its verifier knows limits of the target that ptoc
does not model: here a column sum of INT8 elements): what ``--verify`` reports on the kernel's
own lines."""

INT8_COLUMN_SUM = '''import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def ints(
        self, a: pl.Tensor[[32, 64], pl.INT8], out: pl.Tensor[[1, 64], pl.INT8]
    ) -> pl.Tensor[[1, 64], pl.INT8]:
        x: pl.Tile[[32, 64], pl.INT8] = pl.load(a, [0, 0], [32, 64])
        y: pl.Tile[[1, 64], pl.INT8] = pl.block.sum(x, axis=0, keepdim=True)
        result: pl.Tensor[[1, 64], pl.INT8] = pl.store(y, [0, 0], [1, 64], out)
        return result
'''
# the statement PTOAS rejects: line 11 (1-based), column 9 (1-based, as ptoc prints it)
INT8_COLUMN_SUM_LINE = 11
INT8_COLUMN_SUM_MESSAGE = (
    "PTOAS: 'pto.tcolsum' op expects A2/A3 tcolsum element type to be f16/f32/i16/i32"
)
