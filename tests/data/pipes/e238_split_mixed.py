import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.InCore)
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16]):
        t = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(t, split=0)
        pl.tpush_to_aic(t, split=pl.SplitMode.UP_DOWN)  # E238

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, out: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        got: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)
        result = pl.store(got, [0, 0], out)
        pl.tfree_to_aiv(got)
        return result
