import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self):
        buf = pl.reserve_buffer(name="c2v", size=4096)
        pl.aiv_initialize_pipe(buf, 0, dir_mask=1, slot_size=512)  # E234
