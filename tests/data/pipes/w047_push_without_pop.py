import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.InCore)
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16]):
        t = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(t, split=0, id=2)  # W047

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, out: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        t = pl.load(out, [0, 0], [16, 16])
        return out
