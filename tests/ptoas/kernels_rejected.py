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

# A loop that stores into a loop-carried output tensor: its scf.for carries a
# !pto.tensor_view in iter_args, which PTOAS v0.27 crashes on (exit code -11) and v0.57 accepts.
ROW_LOOP = '''import pypto.language as pl


@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def row_exp(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i, (o,) in pl.range(0, 4, init_values=(out,)):
            rows: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
            e: pl.Tile[[16, 64], pl.FP32] = pl.exp(rows)
            stored: pl.Tensor[[64, 64], pl.FP32] = pl.store(e, [i * 16, 0], [16, 64], o)
            o_next = pl.yield_(stored)
        return o_next
'''
ROW_LOOP_LINE = 12  # the `for` statement (1-based; column 9)
ROW_LOOP_MESSAGE = (
    "PTOAS: v0.27 crashes on an scf.for that carries a !pto.tensor_view in its iter_args"
    " (%o: a tensor stored into inside the loop), so it was not run; PTOAS v0.57 accepts it"
    " (set $PTOAS or --ptoas to it) (MLIR line 21)"
)
