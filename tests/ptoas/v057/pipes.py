"""Cross-core pipes both ways between an AIV and an AIC kernel: pipe 0 carries a tile from the
vector core to the cube core, pipe 1 a product (an Acc tile) from the cube core to the vector
core."""

import pypto.language as pl


@pl.program
class CrossCore:
    @pl.function(type=pl.FunctionType.AIV)
    def vector_side(
        self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        to_cube = pl.import_peer_buffer(name="v2c", peer_func="cube_side")
        from_cube = pl.reserve_buffer(name="c2v", size=2048)
        pl.aiv_initialize_pipe(
            0, to_cube, dir_mask=2, slot_size=1024, slot_num=2, local_slot_num=2, id=0
        )
        pl.aiv_initialize_pipe(
            from_cube, 0, dir_mask=1, slot_size=1024, slot_num=2, local_slot_num=2, id=1
        )
        tile_a = pl.load(a, [0, 0], [16, 16])
        pl.tpush_to_aic(tile_a, split=0, id=0)
        back: pl.Tile[[16, 16], pl.FP32] = pl.tpop_from_aic(split=0, id=1)
        out = pl.store(back, [0, 0], out)
        pl.tfree_to_aic(back, id=1)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def cube_side(self, b: pl.Tensor[[16, 16], pl.FP32]):
        from_vector = pl.reserve_buffer(name="v2c", size=2048)
        to_vector = pl.import_peer_buffer(name="c2v", peer_func="vector_side")
        pl.aic_initialize_pipe(
            0, from_vector, dir_mask=2, slot_size=1024, slot_num=2, local_slot_num=2, id=0
        )
        pl.aic_initialize_pipe(
            to_vector, 0, dir_mask=1, slot_size=1024, slot_num=2, local_slot_num=2, id=1
        )
        received: pl.Tile[[16, 16], pl.FP32] = pl.tpop_from_aiv(split=0, id=0)
        pl.tfree_to_aiv(received, id=0)
        tile_b = pl.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        left = pl.move(tile_b, target_memory=pl.MemorySpace.Left)
        right = pl.move(tile_b, target_memory=pl.MemorySpace.Right)
        product = pl.matmul(left, right)
        pl.tpush_to_aiv(product, split=0, id=1)
