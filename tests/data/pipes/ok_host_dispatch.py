import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Ranks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def per_rank(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]):
        return x

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        for r in pl.range(pld.world_size()):
            data = pld.window(buf, [64], dtype=pl.FP32)
            self.per_rank(x, data, device=r)
        return x
