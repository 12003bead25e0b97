import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.host
def host(x: pl.Tensor[[2, 1, 64], pl.FP32]):
    data = pld.alloc_window_buffer([1, 64], dtype=pl.FP32, name="sig")
    signal = pld.alloc_window_buffer([2, 1], dtype=pl.INT32, name="sig")  # E231
    return x
