import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(x: pl.Tensor[[1, 64], pl.FP32], data: pld.DistributedTensor[[1, 64], pl.FP32]):
    tile = pl.load(x, [0, 0], [1, 64])
    data = pl.store(tile, [0, 0], data)
    return data


@pl.jit
def per_rank(x: pl.Tensor[[1, 64], pl.FP32], data: pld.DistributedTensor[[1, 64], pl.FP32]):
    return kernel(x, data, device=0)  # E233
