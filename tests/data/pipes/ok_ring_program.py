import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.InCore)
    def shift(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        data: pld.DistributedTensor[[1, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        got = pld.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, 64])
        y = pl.store(got, [0, 0], y)
        data = pld.tensor.barrier(data)
        pld.tensor.put(data, peer=peer, src=x)
        pld.system.notify(data, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(data, [0, 0], 1, cmp=pld.WaitCmp.Ge)
        pld.tile.remote_store(got, data, peer=peer, offsets=[0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        data: pld.DistributedTensor[[1, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        y = self.shift(x, data, y)
        return y
