"""One kernel per synchronisation mistake; each line the checker must report ends with
``# expect: CODE`` (tests/sync_check/test_sync_check_mistakes.py). ``correct`` and
``ping_pong`` have none."""

import pypto.language as pl

MTE2 = pl.PipeType.MTE2
MTE3 = pl.PipeType.MTE3
V = pl.PipeType.V


@pl.program
class Mistakes:
    @pl.function(type=pl.FunctionType.InCore)
    def correct(
        self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Tensor[[32, 32], pl.FP32]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
        u = pl.exp(t)
        pl.system.bar_v()
        y = pl.add(u, u)
        pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=1)
        r = pl.store(y, [0, 0], [32, 32], out)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def missing_wait(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        _y = pl.exp(t)  # expect: E410

    @pl.function(type=pl.FunctionType.InCore)
    def missing_barrier(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
        u = pl.exp(t)
        _y = pl.add(u, u)  # expect: E411

    @pl.function(type=pl.FunctionType.InCore)
    def wrong_event(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E412
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=1)  # expect: E415
        _y = pl.exp(t)  # expect: E410

    @pl.function(type=pl.FunctionType.InCore)
    def wait_before_set(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E412
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E412
        _y = pl.exp(t)  # expect: E410

    @pl.function(type=pl.FunctionType.InCore)
    def set_in_flight(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=2)
        s = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=2)  # expect: E413
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=2)
        _y = pl.add(t, s)

    @pl.function(type=pl.FunctionType.InCore)
    def out_of_events(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=1)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=2)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=3)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=4)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=5)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=6)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=7)
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E414
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=1)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=2)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=3)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=4)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=5)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=6)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=7)
        _y = pl.exp(t)

    @pl.function(type=pl.FunctionType.InCore)
    def never_set(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E415
        _y = pl.exp(t)  # expect: E410

    @pl.function(type=pl.FunctionType.InCore)
    def set_on_one_path(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INT64]):
        t = pl.load(x, [0, 0], [32, 32])
        if n > 0:
            pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E415
        _y = pl.exp(t)

    @pl.function(type=pl.FunctionType.InCore)
    def wait_in_one_branch(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INT64]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)  # expect: E412
        if n > 0:
            pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
        _y = pl.exp(t)  # expect: E410

    @pl.function(type=pl.FunctionType.InCore)
    def back_edge(
        self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Tensor[[128, 32], pl.FP32]
    ) -> pl.Tensor[[128, 32], pl.FP32]:
        for i, (o,) in pl.range(4, init_values=(out,)):
            t = pl.load(x, [i * 32, 0], [32, 32])  # expect: E410
            pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
            pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
            y = pl.exp(t)  # expect: E410 E411
            pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=0)
            r = pl.store(y, [i * 32, 0], [32, 32], o)
            o_next = pl.yield_(r)
        return o_next

    @pl.function(type=pl.FunctionType.InCore)
    def ping_pong(
        self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Tensor[[128, 32], pl.FP32]
    ) -> pl.Tensor[[128, 32], pl.FP32]:
        pl.system.sync_src(set_pipe=V, wait_pipe=MTE2, event_id=0)
        pl.system.sync_src(set_pipe=MTE3, wait_pipe=V, event_id=0)
        for i, (o,) in pl.range(4, init_values=(out,)):
            pl.system.sync_dst(set_pipe=V, wait_pipe=MTE2, event_id=0)
            t = pl.load(x, [i * 32, 0], [32, 32])
            pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)
            pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=0)
            pl.system.sync_dst(set_pipe=MTE3, wait_pipe=V, event_id=0)
            y = pl.exp(t)
            pl.system.sync_src(set_pipe=V, wait_pipe=MTE2, event_id=0)
            pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=0)
            r = pl.store(y, [i * 32, 0], [32, 32], o)
            pl.system.sync_src(set_pipe=MTE3, wait_pipe=V, event_id=0)
            o_next = pl.yield_(r)
        pl.system.sync_dst(set_pipe=V, wait_pipe=MTE2, event_id=0)
        pl.system.sync_dst(set_pipe=MTE3, wait_pipe=V, event_id=0)
        return o_next
