"""A shape given as arithmetic on constants (module constants' product, qwen3_jit's
``pl.create_tensor([BATCH * TOTAL_Q_GROUPS * Q_HEAD_PAD, HEAD_DIM], ...)``) is a static size:
its type holds the folded value, so kernels reading it have constant dimensions (no false
E401, issue #27). A dimension of a run-time value stays symbolic."""

from __future__ import annotations

import textwrap

from ptoc.frontend import analyze_source
from ptoc.ir.shape import constant_value
from ptoc.ir.types import TensorType
from ptoc.printer import print_program

SOURCE = textwrap.dedent("""\
    import pypto.language as pl

    BATCH, GROUPS, PAD, DIM = 2, 4, 4, 64


    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
            t = pl.create_tensor([BATCH * GROUPS * PAD, DIM // 2 + 32], dtype=pl.FP32)
            y = pl.add(t, x)
            return y

        @pl.function
        def main(
            self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX]
        ) -> pl.Tensor[[32, 64], pl.FP32]:
            d = pl.create_tensor([n * 2, DIM], dtype=pl.FP32)
            return self.fill(x)
    """)


def test_a_product_of_constants_is_a_static_dimension() -> None:
    """The call keeps the arithmetic as written; the type holds its value."""
    analysis = analyze_source(SOURCE, "k.py")
    assert [d.format() for d in analysis.diagnostics] == []
    text = print_program(analysis.programs[0])
    assert (
        "        t: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.create_tensor(\n"
        "            [2 * 4 * 4, 64 // 2 + 32], dtype=pl.FP32\n"
        "        )\n"
    ) in text
    assert "        d: pl.Tensor[[n * 2, 64], pl.FP32] = pl.tensor.create_tensor(\n" in text


def test_constant_value_folds_integer_arithmetic_only() -> None:
    (program,) = analyze_source(SOURCE, "k.py").all_programs()
    fill = program.function("fill")
    assert fill is not None
    t = fill.body.stmts[0].var  # type: ignore[attr-defined]
    assert isinstance(t.type, TensorType)
    assert [constant_value(d) for d in t.type.shape] == [32, 64]
    call = fill.body.stmts[0].value  # type: ignore[attr-defined]
    rows, cols = call.args[0].elements
    assert (constant_value(rows), constant_value(cols)) == (32, 64)  # the written arithmetic
