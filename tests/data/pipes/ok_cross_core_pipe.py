import pypto.language as pl


@pl.program
class CrossCore:
    @pl.function(type=pl.FunctionType.AIV)
    def vector_producer(self, a: pl.Tensor[[16, 16], pl.FP16]):
        peer = pl.import_peer_buffer(name="v2c_buf", peer_func="cube_consumer")
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=2, slot_size=512)
        tile_a: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(tile_a, split=0)

    @pl.function(type=pl.FunctionType.AIC)
    def cube_consumer(self, out: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        buf = pl.reserve_buffer(name="v2c_buf", size=4096, base=0x1000)
        pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=512)
        received: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)
        result: pl.Tensor[[16, 16], pl.FP16] = pl.store(received, [0, 0], out)
        pl.tfree_to_aiv(received)
        return result
