"""One mistake, one diagnostic: what follows from an earlier error is not reported again."""

from __future__ import annotations

import textwrap

from ptoc.frontend import analyze_source

T = "pl.Tensor[[32, 32], pl.FP32]"
HEAD = f"""import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {T}, out: {T}, n: pl.Scalar[pl.INT64]) -> {T}:
        t = pl.load(a, [0, 0], [32, 32])
"""


def run(body: str) -> tuple[str, list[tuple[str, int, int, int, int]]]:
    text = HEAD + textwrap.indent(textwrap.dedent(body), " " * 8)
    found = analyze_source(text, "k.py").diagnostics
    return text, [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column) for d in found
    ]


def at(text: str, needle: str) -> tuple[int, int, int, int]:
    index = text.index(needle, len(HEAD))
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1)
    return (line, column, line, column + len(needle))


def test_loop_yield_count_is_one_error_not_an_undefined_result() -> None:
    text, found = run("""
        for i, (acc,) in pl.range(4, init_values=(t,)):
            u = pl.add(acc, t)
            acc_out = pl.yield_(u, u)
        out = pl.store(acc_out, [0, 0], [32, 32], out)
        return out
    """)
    assert found == [("E009", *at(text, "pl.yield_(u, u)"))]


def test_if_branch_yield_error_is_not_followed_by_undefined_names() -> None:
    text, found = run("""
        if n > 0:
            u = pl.add(t, t)
            r = pl.yield_(u, u)
        else:
            r = pl.yield_(t)
        out = pl.store(r, [0, 0], [32, 32], out)
        return out
    """)
    line, column, _, _ = at(text, "r = pl.yield_(u, u)")
    assert found == [("E006", line, column, line, column + 1)]


def test_missing_yield_points_at_the_else_branch() -> None:
    text, found = run("""
        if n > 0:
            u = pl.add(t, t)
            r = pl.yield_(u)
        else:
            u = pl.add(t, t)
        out = pl.store(r, [0, 0], [32, 32], out)
        return out
    """)
    assert found == [("E010", *at(text, "else"))]


def test_missing_yield_in_the_then_branch_points_at_the_if() -> None:
    text, found = run("""
        if n > 0:
            u = pl.add(t, t)
        else:
            r = pl.yield_(t)
        out = pl.store(r, [0, 0], [32, 32], out)
        return out
    """)
    assert found == [("E010", *at(text, "if n > 0:"))]


def test_if_yield_without_else_is_a_warning_on_the_if() -> None:
    text, found = run("""
        if n > 0:
            u = pl.add(t, t)
            r = pl.yield_(u)
        out = pl.store(r, [0, 0], [32, 32], out)
        return out
    """)
    assert found == [("W023", *at(text, "if n > 0:"))]


def test_if_elif_else_yields_get_nothing() -> None:
    _, found = run("""
        if n > 0:
            r = pl.yield_(t)
        elif n > 1:
            r = pl.yield_(t)
        else:
            r = pl.yield_(t)
        out = pl.store(r, [0, 0], [32, 32], out)
        return out
    """)
    assert found == []
