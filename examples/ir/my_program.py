# pypto.program: my_program
import pypto.language as pl


def add(x: pl.INT64, y: pl.INT64) -> pl.INT64:
    z: pl.INT64 = x + y
    return z


def multiply(x: pl.Scalar[pl.INT64], y: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
    z: pl.Scalar[pl.INT64] = x * y
    return z


def compute(a: pl.INT64, b: pl.INT64) -> pl.INT64:
    temp1: pl.INT64 = add(a, b)
    temp2: pl.INT64 = multiply(temp1, 2)
    return temp2
