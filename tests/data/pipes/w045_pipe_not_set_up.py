import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16]):
        peer = pl.import_peer_buffer(name="v2c", peer_func="cube")
        pl.aiv_initialize_pipe(0, peer, dir_mask=2, slot_size=512)
        t = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(t, split=0, id=1)  # W045

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self):
        buf = pl.reserve_buffer(name="v2c", size=4096)
        pl.aic_initialize_pipe(0, buf, dir_mask=2, slot_size=512, id=1)
        got: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0, id=1)
        pl.tfree_to_aiv(got, id=1)
