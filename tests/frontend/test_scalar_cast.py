"""``pl.cast`` of a scalar (spec §4, PyPTO 2026-08): a scalar conversion in the IR, printed back
as ``pl.cast``, computed by the interpreter and both generators; PyPTO 2026-03 has none."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from frontend_helpers import where

from ptoc import driver
from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.interp import run_function
from ptoc.ir.dtype import DataType
from ptoc.ir.equality import structural_equal
from ptoc.ir.expr import Unary, UnaryOp
from ptoc.ir.types import ScalarType
from ptoc.printer import print_program

NEW = (Edition.V2026_08, EditionSource.FLAG)
OLD = (Edition.V2026_03, EditionSource.FLAG)

SOURCE = textwrap.dedent("""\
    import pypto.language as pl


    @pl.function
    def f(x: pl.Scalar[pl.FP32], n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        i: pl.Scalar[pl.INT32] = pl.cast(x, pl.INT32)
        g = pl.cast(n, target_type=pl.FP32, mode="round")
        j: pl.Scalar[pl.INT32] = pl.cast(g * x, pl.INT32) + i
        return j
    """)


def test_a_scalar_cast_is_a_conversion_to_its_target_dtype():
    analysis = analyze_source(SOURCE, "k.py", edition=NEW)
    assert [d.format() for d in analysis.diagnostics] == []
    (function,) = analysis.all_programs()[0].functions
    first = function.body.stmts[0].value
    assert isinstance(first, Unary) and first.op is UnaryOp.Cast
    assert first.type == ScalarType(DataType.INT32)
    assert first.operand.type == ScalarType(DataType.FP32)
    g = [o for o in analysis.index.occurrences if o.name == "g" and o.is_definition][0]
    assert g.type == ScalarType(DataType.FP32)


def test_it_prints_as_pl_cast_and_parses_back_equal():
    program = analyze_source(SOURCE, "k.py", edition=NEW).all_programs()[0]
    printed = print_program(program, edition=Edition.V2026_08)
    assert "i: pl.Scalar[pl.INT32] = pl.cast(x, pl.INT32)" in printed
    assert "g: pl.Scalar[pl.FP32] = pl.cast(n, pl.FP32)" in printed
    assert "j: pl.Scalar[pl.INT32] = pl.cast(g * x, pl.INT32) + i" in printed
    again = analyze_source(printed, "p.py", edition=NEW)
    assert [d.format() for d in again.diagnostics] == []
    assert structural_equal(program, again.all_programs()[0])


@pytest.mark.parametrize(
    ("x", "n", "expected"),
    [(3.7, 2, 3 + 7), (-3.7, 2, -3 - 7), (0.5, -3, 0 - 1)],  # floats truncate toward zero
)
def test_the_interpreter_truncates_a_float_and_converts_an_integer(x, n, expected):
    program = analyze_source(SOURCE, "k.py", edition=NEW).all_programs()[0]
    (value,) = run_function(program, "f", {"x": x, "n": n}).returns
    assert value == expected and isinstance(value, np.int32)


def test_an_integer_cast_wraps_and_a_bool_cast_is_truthiness():
    source = textwrap.dedent("""\
        import pypto.language as pl


        @pl.function
        def f(n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT8]:
            b: pl.Scalar[pl.BOOL] = pl.cast(n, pl.BOOL)
            m: pl.Scalar[pl.INT8] = pl.cast(n, pl.INT8)
            if b:
                m = m + 1
            return m
        """)
    program = analyze_source(source, "k.py", edition=NEW).all_programs()[0]
    assert run_function(program, "f", {"n": 300}).returns[0] == 300 - 256 + 1
    assert run_function(program, "f", {"n": 0}).returns[0] == 0


def test_both_generators_convert_the_scalar():
    analysis = analyze_source(SOURCE, "k.py", edition=NEW)
    cce = driver.compile_source(analysis, "cce", path="k.py")
    assert cce.text is not None, [d.format() for d in cce.diagnostics]
    assert "int32_t i = static_cast<int32_t>(x);" in cce.text
    assert "float g = static_cast<float>(n);" in cce.text
    pto = driver.compile_source(analysis, "pto", path="k.py")
    assert pto.text is not None, [d.format() for d in pto.diagnostics]
    assert "arith.fptosi %arg0 : f32 to i32" in pto.text
    assert "arith.sitofp %arg1 : i32 to f32" in pto.text


def test_pypto_2026_03_has_no_scalar_cast():
    analysis = analyze_source(SOURCE, "k.py", edition=OLD)
    message = (
        "Operation 'cast' is not supported for scalar arguments in PyPTO 2026-03 "
        "(PyPTO 2026-08 accepts a scalar)"
    )
    found = [(d.code, d.message, d.span.line, d.span.column) for d in analysis.diagnostics]
    line, column, _, _ = where(SOURCE, "pl.cast(x, pl.INT32)")
    assert found[0] == ("E310", message, line, column)
    assert {d.code for d in analysis.diagnostics} == {"E310"}


@pytest.mark.parametrize(
    ("call", "code", "needle"),
    [
        ('pl.cast(n, pl.FP32, mode="nearest")', "E306", '"nearest"'),
        ("pl.cast(n, pl.FP32, mode=7)", "E306", "7"),
        ("pl.cast(n)", "E302", "pl.cast(n)"),
        ("pl.cast(n, pl.FP32, input=n)", "E302", "pl.cast(n, pl.FP32, input=n)"),
    ],
)
def test_a_malformed_scalar_cast_is_one_error_at_its_place(call, code, needle):
    source = SOURCE.replace('pl.cast(n, target_type=pl.FP32, mode="round")', call)
    analysis = analyze_source(source, "k.py", edition=NEW)
    line, column, end_line, end_column = where(source, needle)
    assert [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
        if d.code == code
    ] == [(code, line, column, end_line, end_column)]
