import pypto.language as pl


@pl.program
class Pipes:
    @pl.function(type=pl.FunctionType.InCore)
    def cube(self):
        a = pl.reserve_buffer(name="slots", size=4096)
        b = pl.reserve_buffer(name="slots", size=512)  # E237
