"""Integer, conversion, selection, layout, block-index and cube ops through PTOAS."""

import pypto.language as pl


@pl.program
class OtherOps:
    @pl.function(type=pl.FunctionType.InCore)
    def ints(
        self,
        a: pl.Tensor[[32, 64], pl.INT16],
        b: pl.Tensor[[32, 64], pl.INT16],
        out: pl.Tensor[[32, 64], pl.INT16],
    ) -> pl.Tensor[[32, 64], pl.INT16]:
        x: pl.Tile[[32, 64], pl.INT16] = pl.load(a, [0, 0], [32, 64])
        y: pl.Tile[[32, 64], pl.INT16] = pl.load(b, [0, 0], [32, 64])
        i1: pl.Tile[[32, 64], pl.INT16] = pl.block.and_(x, y)
        i2: pl.Tile[[32, 64], pl.INT16] = pl.block.or_(i1, y)
        i3: pl.Tile[[32, 64], pl.INT16] = pl.block.shl(i2, y)
        i4: pl.Tile[[32, 64], pl.INT16] = pl.block.shr(i3, y)
        i5: pl.Tile[[32, 64], pl.INT16] = pl.block.ands(i4, 7)
        i6: pl.Tile[[32, 64], pl.INT16] = pl.block.ors(i5, 8)
        i7: pl.Tile[[32, 64], pl.INT16] = pl.block.shls(i6, 1)
        i8: pl.Tile[[32, 64], pl.INT16] = pl.block.shrs(i7, 1)
        result: pl.Tensor[[32, 64], pl.INT16] = pl.store(i8, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def xors(
        self, a: pl.Tensor[[32, 64], pl.INT16], out: pl.Tensor[[32, 64], pl.INT16]
    ) -> pl.Tensor[[32, 64], pl.INT16]:
        x: pl.Tile[[32, 64], pl.INT16] = pl.load(a, [0, 0], [32, 64])
        t: pl.Tile[[32, 64], pl.INT16] = pl.load(a, [0, 0], [32, 64])
        i1: pl.Tile[[32, 64], pl.INT16] = pl.block.xor(x, x, t)
        i2: pl.Tile[[32, 64], pl.INT16] = pl.block.xors(i1, 3, t)
        i3: pl.Tile[[32, 64], pl.INT16] = pl.block.not_(i2)
        result: pl.Tensor[[32, 64], pl.INT16] = pl.store(i3, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def conv(
        self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP16]
    ) -> pl.Tensor[[32, 64], pl.FP16]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        h: pl.Tile[[32, 64], pl.FP16] = pl.block.cast(
            x, target_type=pl.FP16, mode="round"
        )
        result: pl.Tensor[[32, 64], pl.FP16] = pl.store(h, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def compare(
        self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])
        s: pl.Tile[[32, 64], pl.FP32] = pl.block.sel(x, x, x)
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(s, [0, 0], [32, 64], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def shapes(
        self,
        a: pl.Tensor[[32, 32], pl.FP32],
        out: pl.Tensor[[32, 32], pl.FP32],
        o2: pl.Tensor[[16, 64], pl.FP32],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        x: pl.Tile[[32, 32], pl.FP32] = pl.load(a, [0, 0], [32, 32])
        t: pl.Tile[[32, 32], pl.FP32] = pl.block.transpose(x, 0, 1)
        v: pl.Tile[[32, 32], pl.FP32] = pl.block.vec_move(t)
        r: pl.Tile[[16, 64], pl.FP32] = pl.block.reshape(v, [16, 64])
        result: pl.Tensor[[32, 32], pl.FP32] = pl.store(v, [0, 0], [32, 32], out)
        pl.store(r, [0, 0], [16, 64], o2)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def idx(
        self, a: pl.Tensor[[128, 32], pl.FP32], out: pl.Tensor[[128, 32], pl.FP32]
    ) -> pl.Tensor[[128, 32], pl.FP32]:
        b = pl.block.get_block_idx()
        x: pl.Tile[[32, 32], pl.FP32] = pl.load(a, [b * 32, 0], [32, 32])
        result: pl.Tensor[[128, 32], pl.FP32] = pl.store(x, [b * 32, 0], [32, 32], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def mm(
        self,
        a: pl.Tensor[[16, 32], pl.FP16],
        b: pl.Tensor[[32, 16], pl.FP16],
        out: pl.Tensor[[16, 16], pl.FP32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        xa: pl.Tile[[16, 32], pl.FP16] = pl.load(
            a, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat
        )
        xb: pl.Tile[[32, 16], pl.FP16] = pl.load(
            b, [0, 0], [32, 16], target_memory=pl.MemorySpace.Mat
        )
        left: pl.Tile[[16, 32], pl.FP16] = pl.move(
            xa, target_memory=pl.MemorySpace.Left
        )
        r: pl.Tile[[32, 16], pl.FP16] = pl.move(xb, target_memory=pl.MemorySpace.Right)
        c: pl.Tile[[16, 16], pl.FP32] = pl.block.matmul(left, r)
        c2: pl.Tile[[16, 16], pl.FP32] = pl.block.matmul_acc(c, left, r)
        result: pl.Tensor[[16, 16], pl.FP32] = pl.block.l0c_store(
            c2, [0, 0], [16, 16], out
        )
        return result
