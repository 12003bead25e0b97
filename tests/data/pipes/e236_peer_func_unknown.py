import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.InCore)
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16]):
        peer = pl.import_peer_buffer(name="v2c", peer_func="cube_side")  # E236
        pl.aiv_initialize_pipe(0, peer, dir_mask=2, slot_size=512)
        t = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(t, split=0)

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, out: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        buf = pl.reserve_buffer(name="v2c", size=4096)
        pl.aic_initialize_pipe(0, buf, dir_mask=2, slot_size=512)
        got: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)
        result = pl.store(got, [0, 0], out)
        pl.tfree_to_aiv(got)
        return result
