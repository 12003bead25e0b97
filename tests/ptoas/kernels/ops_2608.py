"""The ops PyPTO 2026-08 added that ptoc lowers, through PTOAS (spelled pl.block.X: the tile
namespace of 2026-08 is the block namespace inside ptoc)."""

import pypto.language as pl


@pl.program
class Ops2608:
    @pl.function(type=pl.FunctionType.InCore)
    def elementwise(
        self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        y: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        m1: pl.Tile[[32, 64], pl.FP32] = pl.block.fmod(x, y)
        m2: pl.Tile[[32, 64], pl.FP32] = pl.block.fmods(m1, 3.0)
        p1: pl.Tile[[32, 64], pl.FP32] = pl.block.part_add(m2, y)
        p2: pl.Tile[[32, 64], pl.FP32] = pl.block.part_max(p1, y)
        p3: pl.Tile[[32, 64], pl.FP32] = pl.block.part_min(p2, y)
        p4: pl.Tile[[32, 64], pl.FP32] = pl.block.part_mul(p3, y)
        p5: pl.Tile[[32, 64], pl.FP32] = pl.block.fillpad_inplace(p4)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(p5, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def columns(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
        o2: pl.Tensor[[1, 64], pl.FP32],
        o3: pl.Tensor[[1, 64], pl.INT32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        c1: pl.Tile[[1, 64], pl.FP32] = pl.block.col_max(x)
        c2: pl.Tile[[1, 64], pl.FP32] = pl.block.col_min(x)
        c3: pl.Tile[[1, 64], pl.FP32] = pl.block.col_prod(x)
        c4: pl.Tile[[1, 64], pl.FP32] = pl.block.col_sum(x)
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        a1: pl.Tile[[1, 64], pl.INT32] = pl.block.col_argmax(x, t)
        a2: pl.Tile[[1, 64], pl.INT32] = pl.block.col_argmin(x, t)
        a3: pl.Tile[[1, 64], pl.INT32] = pl.block.add(a1, a2)
        c5: pl.Tile[[1, 64], pl.FP32] = pl.block.add(c1, c2)
        c6: pl.Tile[[1, 64], pl.FP32] = pl.block.add(c3, c4)
        c7: pl.Tile[[1, 64], pl.FP32] = pl.block.add(c5, c6)
        e1: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_add(x, c7)
        e2: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_max(e1, c7)
        e3: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_min(e2, c7)
        e4: pl.Tile[[32, 64], pl.FP32] = pl.block.col_expand_expdif(e3, c7)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(e4, [0, 0], [32, 64], out)
        pl.store(c7, [0, 0], [1, 64], o2)
        pl.store(a3, [0, 0], [1, 64], o3)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def rows(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Tensor[[32, 1], pl.FP32],
        idx: pl.Tensor[[32, 1], pl.INT32],
    ) -> pl.Tensor[[32, 1], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        t: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        r1: pl.Tile[[32, 1], pl.FP32] = pl.block.row_prod(x, t)
        i1: pl.Tile[[32, 1], pl.INT32] = pl.block.row_argmax(x, t)
        i2: pl.Tile[[32, 1], pl.INT32] = pl.block.row_argmin(x, t)
        i3: pl.Tile[[32, 1], pl.INT32] = pl.block.add(i1, i2)
        e1: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_max(x, r1)
        e2: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_min(e1, r1)
        e3: pl.Tile[[32, 64], pl.FP32] = pl.block.row_expand_expdif(e2, r1)
        r2: pl.Tile[[32, 1], pl.FP32] = pl.block.row_sum(e3, t)
        r3: pl.Tile[[32, 1], pl.FP32] = pl.block.add(r1, r2)
        result: pl.Tensor[[32, 1], pl.FP32] = pl.store(r3, [0, 0], [32, 1], out)
        pl.store(i3, [0, 0], [32, 1], idx)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def joined(
        self,
        a: pl.Tensor[[32, 32], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
        padded: pl.Tensor[[32, 64], pl.FP32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 32], pl.FP32] = pl.load(a, [0, 0], [32, 32])
        y: pl.Tile[[32, 32], pl.FP32] = pl.load(a, [0, 0], [32, 32])
        j: pl.Tile[[32, 64], pl.FP32] = pl.block.concat(x, y)
        k: pl.Tile[[32, 64], pl.FP32] = pl.block.fillpad_expand(x, [32, 64])
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(j, [0, 0], [32, 64], out)
        pl.store(k, [0, 0], [32, 64], padded)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def gathered(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        ix: pl.Tensor[[32, 64], pl.INT32],
        out: pl.Tensor[[32, 64], pl.FP32],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        i: pl.Tile[[32, 64], pl.INT32] = pl.load(ix, [0, 0], [32, 64])
        t: pl.Tile[[32, 64], pl.INT32] = pl.load(ix, [0, 0], [32, 64])
        g: pl.Tile[[32, 64], pl.FP32] = pl.block.gather(x, i, t)
        d: pl.Tile[[32, 64], pl.FP32] = pl.block.scatter(x, g, i)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(d, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def sorted32(
        self,
        a: pl.Tensor[[1, 32], pl.FP32],
        ix: pl.Tensor[[1, 32], pl.UINT32],
        out: pl.Tensor[[1, 64], pl.FP32],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        x: pl.Tile[[1, 32], pl.FP32] = pl.load(a, [0, 0], [1, 32])
        i: pl.Tile[[1, 32], pl.UINT32] = pl.load(ix, [0, 0], [1, 32])
        s: pl.Tile[[1, 64], pl.FP32] = pl.block.sort32(x, i)
        result: pl.Tensor[[1, 64], pl.FP32] = pl.store(s, [0, 0], [1, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def blocks(self, out: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        n: pl.Scalar[pl.INT64] = pl.block.get_block_num()
        k: pl.Scalar[pl.INT64] = pl.block.get_subblock_idx()
        s: pl.Tile[[1, 64], pl.FP32] = pl.block.full([1, 64], dtype=pl.FP32, value=0.0)
        offset: pl.Scalar[pl.INT64] = n * 0 + k * 0
        result: pl.Tensor[[1, 64], pl.FP32] = pl.store(s, [offset, 0], [1, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def blocks_of(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        offsets: pl.Tensor[[1, 8], pl.UINT32],
        out: pl.Tensor[[1, 64], pl.FP32],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        o: pl.Tile[[1, 8], pl.UINT32] = pl.load(offsets, [0, 0], [1, 8])
        g: pl.Tile[[1, 64], pl.FP32] = pl.block.gatherb(x, o)
        result: pl.Tensor[[1, 64], pl.FP32] = pl.store(g, [0, 0], [1, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def extracted(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],
        out: pl.Tensor[[32, 32], pl.FP32],
        row: pl.Scalar[pl.INT64],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        m: pl.Tile[[64, 64], pl.FP16] = pl.load(
            a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat
        )
        lhs: pl.Tile[[32, 64], pl.FP16] = pl.block.extract(
            m, row, 0, [32, 64], target_memory=pl.MemorySpace.Left
        )
        rhs: pl.Tile[[64, 32], pl.FP16] = pl.block.extract(
            m, 0, 32, [64, 32], target_memory=pl.MemorySpace.Right
        )
        c: pl.Tile[[32, 32], pl.FP32] = pl.block.matmul(lhs, rhs)
        result: pl.Tensor[[32, 32], pl.FP32] = pl.block.l0c_store(c, [0, 0], [32, 32], out)
        return result
