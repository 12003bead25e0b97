"""InlineCalls: calls between functions become the callee's body in the CCE pipeline (a kernel
cannot call a kernel); Orchestration functions keep their calls (tasks); PTO keeps func.call."""

from __future__ import annotations

import textwrap

from ptoc import driver
from ptoc.codegen import generate_cce
from ptoc.frontend import analyze_source
from ptoc.passes import run_pipeline
from ptoc.printer import print_program

UP_TO_INLINE = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes", "InlineCalls"]

CALLS = textwrap.dedent("""\
    # pypto.program: calls
    import pypto.language as pl


    def add(x: pl.INT64, y: pl.INT64) -> pl.INT64:
        z: pl.INT64 = x + y
        return z


    def twice(x: pl.INT64) -> pl.INT64:
        for i, (acc,) in pl.range(2, init_values=(0,)):
            s: pl.INT64 = add(acc, x)
            r = pl.yield_(s)
        return r


    def compute(a: pl.INT64, b: pl.INT64) -> pl.INT64:
        z: pl.INT64 = add(a, b)
        t: pl.INT64 = twice(z)
        return t
    """)


def inlined(source: str, function: str) -> str:
    (program,) = analyze_source(source, "calls.py").all_programs()
    result = run_pipeline(program, UP_TO_INLINE)
    assert [d.format() for d in result.diagnostics] == []
    fn = result.program.function(function)
    assert fn is not None
    return print_program(result.program).split(f"def {function}(", 1)[1]


def test_a_call_becomes_the_callees_body_renamed_apart_recursively() -> None:
    # add is inlined into twice first (its x becomes x_1 there), then twice into compute.
    assert inlined(CALLS, "compute") == textwrap.indent(
        textwrap.dedent("""\

                self, a: pl.Scalar[pl.INT64], b: pl.Scalar[pl.INT64]
            ) -> pl.Scalar[pl.INT64]:
                x: pl.Scalar[pl.INT64] = a
                y: pl.Scalar[pl.INT64] = b
                z_1: pl.Scalar[pl.INT64] = x + y
                z: pl.Scalar[pl.INT64] = z_1
                x_1: pl.Scalar[pl.INT64] = z
                for i, (acc,) in pl.range(0, 2, 1, init_values=(0,)):
                    x_1_1: pl.Scalar[pl.INT64] = acc
                    y_1: pl.Scalar[pl.INT64] = x_1
                    z_2: pl.Scalar[pl.INT64] = x_1_1 + y_1
                    s: pl.Scalar[pl.INT64] = z_2
                    r: pl.Scalar[pl.INT64] = pl.yield_(s)
                t: pl.Scalar[pl.INT64] = r
                return t
        """),
        "    ",
    )


def test_the_cce_kernel_of_a_calling_function_computes_inline() -> None:
    (program,) = analyze_source(CALLS, "calls.py").all_programs()
    lowered = driver.run_pipeline(program, "default")
    result = generate_cce(lowered.program, "compute")
    assert result.diagnostics == []
    assert "int64_t z_1 = (x + y);" in result.text
    assert "runAdd(" not in result.text


def test_the_pto_pipeline_keeps_the_calls() -> None:
    (program,) = analyze_source(CALLS, "calls.py").all_programs()
    lowered = driver.run_pipeline(program, "ptoas")
    compute = lowered.program.function("compute")
    assert compute is not None
    assert "add(a, b)" in print_program(lowered.program).split("def compute(", 1)[1]


RECURSIVE = textwrap.dedent("""\
    # pypto.program: rec
    import pypto.language as pl


    def f(x: pl.INT64) -> pl.INT64:
        y: pl.INT64 = f(x)
        return y
    """)


def test_a_recursive_call_stays_and_code_generation_reports_it() -> None:
    assert "y: pl.Scalar[pl.INT64] = self.f(x)" in inlined(RECURSIVE, "f")
    (program,) = analyze_source(RECURSIVE, "rec.py").all_programs()
    result = generate_cce(driver.run_pipeline(program, "default").program)
    assert [d.code for d in result.diagnostics] == ["E400"]
