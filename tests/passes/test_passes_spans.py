"""Every pass keeps a span on every statement, variable and call, including the ones it
creates (temporaries, yields, loop-carried values, sync statements)."""

from __future__ import annotations

from collections.abc import Iterator

import passes_ir as P
import pytest

from ptoc.frontend import analyze_source
from ptoc.ir import Call, Expr, ForStmt, Function, IfStmt, Program, ReturnStmt
from ptoc.passes import PASSES, run_pipeline
from ptoc.passes.irutil import defined_vars, direct_exprs, walk_stmts


def _calls(expr: Expr) -> Iterator[Call]:
    if isinstance(expr, Call):
        yield expr
        for arg in expr.args:
            yield from _calls(arg)


def _nested_calls() -> Function:
    a, b = P.var("a", P.tile_t(16, 16)), P.var("b", P.tile_t(16, 16))
    n = P.var("n", P.INDEX)
    top = P.assign("r", P.op("block.add", P.op("block.exp", a), P.op("block.sqrt", b)))
    branch = IfStmt(P.gt(n, 0), P.seq(P.assign("r", P.op("block.exp", top.var))), span=P.span())
    return P.function(
        "k", [a, b, n], [top, branch, ReturnStmt((top.var,), span=P.span())], returns=[a.type]
    )


def _programs() -> list[tuple[str, Program]]:
    leaky = analyze_source(P.LEAKY, "leaky.py").programs[0]
    return [
        ("simple_add", P.program(P.simple_add())),
        ("loop", P.program(P.loop_kernel())),
        ("if", P.program(P.if_kernel())),
        ("leaky", leaky),
        ("accumulate", P.program(P.accumulating_loop()[0])),
        ("nested", P.program(_nested_calls())),
    ]


def _unknown_spans(fn: Function) -> list[str]:
    missing: list[str] = []
    for stmt in walk_stmts(fn.body):
        if not stmt.span.is_known:
            missing.append(f"statement {type(stmt).__name__}")
        for expr in direct_exprs(stmt):
            missing += [f"call {c.op_name}" for c in _calls(expr) if not c.span.is_known]
        if isinstance(stmt, ForStmt):
            missing += [f"loop-carried {a.name}" for a in stmt.iter_args if not a.span.is_known]
    missing += [f"variable {v.name}" for v, _ in defined_vars(fn) if not v.span.is_known]
    return missing


@pytest.mark.parametrize("label, program", _programs(), ids=[p[0] for p in _programs()])
def test_every_snapshot_keeps_spans(label: str, program: Program) -> None:
    result = run_pipeline(program)
    assert result.diagnostics == [], label
    assert len(result.snapshots) == len(PASSES)
    for name, snapshot in result.snapshots:
        for fn in snapshot.functions:
            assert _unknown_spans(fn) == [], (label, name)


def test_created_nodes_take_spans_from_the_input() -> None:
    for label, program in _programs():
        source_spans = set()
        for fn in program.functions:
            for stmt in walk_stmts(fn.body):
                source_spans.add(stmt.span)
                source_spans |= {c.span for e in direct_exprs(stmt) for c in _calls(e)}
        result = run_pipeline(program)
        for fn in result.program.functions:
            created = {s.span for s in walk_stmts(fn.body)} - source_spans
            assert created == set(), label
