"""The task-graph rules of spec §7: each mistake of task_mistakes.py gets exactly its
diagnostic at its range; the clean program gets none and prints back to an equal IR."""

from __future__ import annotations

import pytest
from task_mistakes import BODY_LINE, CLEAN, MISTAKES, program

from ptoc.editions import Edition
from ptoc.frontend import analyze_source
from ptoc.ir import TASK_ID_TYPE, ArrayType, Submit
from ptoc.ir.dtype import DataType
from ptoc.ir.equality import structural_equal
from ptoc.ir.walk import direct_exprs, walk_stmts
from ptoc.printer import print_program


def diagnostics(source: str) -> list[tuple[str, int, int, int, int]]:
    analysis = analyze_source(source, "tasks.py")
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
    ]


def test_the_clean_program_checks_and_prints_back() -> None:
    source = program(CLEAN)
    assert diagnostics(source) == []
    original = analyze_source(source, "tasks.py").all_programs()[0]
    again = analyze_source(print_program(original, edition=Edition.V2026_08), "printed.py")
    assert [d.format() for d in again.diagnostics] == []
    assert structural_equal(original, again.all_programs()[0])


def test_a_submit_is_typed_result_and_task_id() -> None:
    functions = analyze_source(program(CLEAN), "tasks.py").all_programs()[0].functions
    main = next(f for f in functions if f.name == "main")
    submits = [e for s in walk_stmts(main.body) for e in direct_exprs(s) if isinstance(e, Submit)]
    assert [s.kernel.name for s in submits] == ["gate", "scale", "scale"]
    assert [len(s.deps) for s in submits] == [0, 1, 2]
    assert submits[2].spmd and submits[2].predicate is not None
    assert all(s.type.types[-1] == TASK_ID_TYPE for s in submits)  # type: ignore[attr-defined]


def test_task_id_arrays_are_typed() -> None:
    body = """
with pl.manual_scope():
    tids = pl.array.create(4, pl.TASK_ID)
    for i in pl.range(4):
        out, tid = pl.submit(self.scale, x, out)
        tids[i] = tid
    out, last = pl.submit(self.scale, x, out, deps=[tids])
return out
"""
    analysis = analyze_source(program(body), "tasks.py")
    assert [d.format() for d in analysis.diagnostics] == []
    tids = [o for o in analysis.index.occurrences if o.name == "tids"]
    assert tids[0].type == ArrayType(4, DataType.TASK_ID)


@pytest.mark.parametrize(("code", "body", "where"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_gets_its_diagnostic(
    code: str, body: str, where: tuple[int, int, int, int]
) -> None:
    line, column, end_line, end_column = where
    expected = (code, BODY_LINE + line - 1, column + 7, BODY_LINE + end_line - 1, end_column + 7)
    assert diagnostics(program(body)) == [expected]
