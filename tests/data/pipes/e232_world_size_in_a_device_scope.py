import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Ranks:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pld.world_size()  # E232
        return x
