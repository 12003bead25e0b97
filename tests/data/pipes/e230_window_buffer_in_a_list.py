import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.host
def host(x: pl.Tensor[[2, 1, 64], pl.FP32]):
    bufs = [pld.alloc_window_buffer([1, 64], dtype=pl.FP32)]  # E230
    return bufs
