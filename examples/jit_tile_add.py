"""A @pl.jit kernel: its tensor parameters carry no shape; each call gives them one.

`ptoc check` checks the kernel for every shape and again for each call below whose tensors it
can read; `ptoc print` and `ptoc compile` show the first call's program (`--specialise 2` the
second's)."""

import pypto.language as pl
import torch


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [64, 64])
        tile_b = pl.load(b, [0, 0], [64, 64])
        pl.store(pl.add(tile_a, tile_b), [0, 0], c)
    return c


if __name__ == "__main__":
    for n in (64, 128):
        a = torch.full((n, n), 2.0, dtype=torch.float32)
        b = torch.full((n, n), 3.0, dtype=torch.float32)
        c = torch.zeros((n, n), dtype=torch.float32)
        tile_add(a, b, c)
