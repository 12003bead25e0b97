"""Kernels ptoc compiles but PTOAS rejects (its verifier knows the target's limits): what
``--verify`` reports on the kernel's own lines."""

INT32_AND = '''import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def ints(
        self, a: pl.Tensor[[32, 64], pl.INT32], out: pl.Tensor[[32, 64], pl.INT32]
    ) -> pl.Tensor[[32, 64], pl.INT32]:
        x: pl.Tile[[32, 64], pl.INT32] = pl.load(a, [0, 0], [32, 64])
        y: pl.Tile[[32, 64], pl.INT32] = pl.block.and_(x, x)
        result: pl.Tensor[[32, 64], pl.INT32] = pl.store(y, [0, 0], [32, 64], out)
        return result
'''
# the statement PTOAS rejects: line 11 (1-based), column 9 (1-based, as ptoc prints it)
INT32_AND_LINE = 11
INT32_AND_MESSAGE = (
    "PTOAS: 'pto.tand' op expects A2/A3 tand src0, src1, and dst element type to be i8/i16"
)
