import pypto.language as pl


@pl.program
class Events:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self):
        pl.system.sync_set(2, pipe=pl.PipeType.FIX)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self):
        pl.system.sync_wait(2, pipe=pl.PipeType.MTE2)
        pl.system.sync_wait(3, pipe=pl.PipeType.MTE2)  # I008
