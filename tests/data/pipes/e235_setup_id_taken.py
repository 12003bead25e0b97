import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.InCore)
    def cube(self):
        buf = pl.reserve_buffer(name="v2c", size=4096)
        pl.aic_initialize_pipe(0, buf, dir_mask=2, slot_size=512, id=1)
        pl.aic_initialize_pipe(0, buf, dir_mask=2, slot_size=512, id=1)  # E235
