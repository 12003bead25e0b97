"""The ops PyPTO 2026-08 added that ptoc lowers for PTOAS v0.57 only: ``pl.tile.assemble``
of Vec tiles (``pto.tinsert`` Vec -> Vec, which v0.27's verifier refuses on A2/A3: it takes
Acc -> Mat only; ptoc says so with E400 when v0.27 is chosen)."""

import pypto.language as pl


@pl.program
class Ops2608V057:
    @pl.function(type=pl.FunctionType.InCore)
    def assembled(
        self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        x: pl.Tile[[32, 32], pl.FP32] = pl.load(a, [0, 0], [32, 32])
        k: pl.Tile[[32, 64], pl.FP32] = pl.tile.fillpad_expand(x, [32, 64])
        w: pl.Tile[[32, 64], pl.FP32] = pl.tile.assemble(k, x, [0, 32])
        result: pl.Tensor[[32, 64], pl.FP32] = pl.store(w, [0, 0], out)
        return result
