"""The pass registry, named pipelines, snapshots, and failure handling."""

from __future__ import annotations

from typing import ClassVar

import passes_ir as P
import pytest

from ptoc import driver
from ptoc.driver import PIPELINES
from ptoc.frontend import analyze_source
from ptoc.ir import Call, EvalStmt, Program
from ptoc.passes import (
    PASSES,
    FunctionPass,
    Pass,
    PassContext,
    PassManager,
    run_pipeline,
)
from ptoc.passes.irutil import walk_stmts
from ptoc.printer import print_program

DEFAULT = [
    "ConvertToSSA",
    "FlattenCalls",
    "OutlineIncoreScopes",
    "InlineCalls",
    "ConvertTensorToBlockOps",
    "Verifier",
    "AddReductionScratch",
    "InitMemRef",
    "MemoryReuse",
    "InsertSync",
    "AllocateMemoryAddr",
]


def test_pipelines() -> None:
    assert PIPELINES == {
        "default": tuple(DEFAULT),
        "ptoas": tuple(name for name in DEFAULT if name not in ("InsertSync", "InlineCalls")),
    }


def test_every_pass_is_registered_with_a_description() -> None:
    assert list(PASSES) == DEFAULT
    for name, cls in PASSES.items():
        assert cls.name == name
        assert issubclass(cls, Pass)
        assert len(cls.description) > 40


def test_snapshots_and_callback_follow_the_pipeline() -> None:
    seen: list[tuple[str, Program]] = []
    result = run_pipeline(P.program(P.simple_add()), after_pass=lambda n, p: seen.append((n, p)))
    assert result.diagnostics == [] and not result.has_errors
    assert [name for name, _ in result.snapshots] == DEFAULT
    assert seen == result.snapshots
    assert result.program is result.snapshots[-1][1]
    assert result.after("InitMemRef") is result.snapshots[DEFAULT.index("InitMemRef")][1]
    assert result.after("Nope") is None
    # Each snapshot is the IR right after its pass: no addresses before the last one.
    before = result.after("InsertSync")
    assert before is not None
    assert (
        P.lines(before.functions[0], memrefs=True)[0]
        == "tile_x[Vec#3] = block.load(x, [0, 0], [128, 64])"
    )
    assert (
        P.lines(result.program.functions[0], memrefs=True)[0]
        == "tile_x[Vec#3@0x0] = block.load(x, [0, 0], [128, 64])"
    )


def test_ptoas_pipeline_inserts_no_sync() -> None:
    result = driver.run_pipeline(P.program(P.loop_kernel()), "ptoas")
    assert result.diagnostics == []
    calls = [
        s.expr
        for s in walk_stmts(result.program.functions[0].body)
        if isinstance(s, EvalStmt) and isinstance(s.expr, Call)
    ]
    assert [c.op_name for c in calls] == []
    assert (
        P.lines(result.program.functions[0], memrefs=True)[1]
        == "  tx[Vec#3@0x0] = block.load(x, [i * 128, 0], [128, 64])"
    )


def test_explicit_pass_list_and_manager() -> None:
    program = P.program(P.simple_add())
    by_list = run_pipeline(program, ["InitMemRef"])
    by_manager = PassManager(["InitMemRef"]).run(program)
    assert (
        [n for n, _ in by_list.snapshots] == [n for n, _ in by_manager.snapshots] == ["InitMemRef"]
    )
    assert P.lines(by_list.program.functions[0], True) == P.lines(
        by_manager.program.functions[0], True
    )
    with pytest.raises(TypeError):  # names are the driver's: never read as a list of letters
        run_pipeline(program, "ptoas")


def test_unknown_pipeline_or_pass_is_a_diagnostic() -> None:
    program = P.program(P.simple_add())
    result = driver.run_pipeline(program, "fast")
    assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
        ("E404", "unknown pipeline 'fast' (known: default, ptoas)", program.span)
    ]
    assert result.program is program and result.snapshots == []
    result = run_pipeline(program, ["InitMemRef", "Inline"])
    assert [d.code for d in result.diagnostics] == ["E404"]
    assert "unknown pass 'Inline'" in result.diagnostics[0].message
    assert [n for n, _ in result.snapshots] == ["InitMemRef"]


class _Exploding(FunctionPass):
    name: ClassVar[str] = "Exploding"
    description: ClassVar[str] = "fails on the third statement of every function"

    def run_function(self, fn: P.Function, ctx: PassContext) -> P.Function:
        for k, stmt in enumerate(fn.body.stmts):  # type: ignore[attr-defined]
            ctx.at(stmt.span)
            if k == 2:
                raise ValueError("boom")
        return fn


def test_an_internal_failure_is_one_e404_at_the_closest_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PASSES, "Exploding", _Exploding)
    fn = P.simple_add()
    third = fn.body.stmts[2]  # type: ignore[attr-defined]
    result = run_pipeline(P.program(fn), ["ConvertToSSA", "Exploding", "InitMemRef"])
    assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
        ("E404", "pass Exploding failed: ValueError: boom", third.span)
    ]
    # The pipeline stops with what it has: the program after ConvertToSSA.
    assert [n for n, _ in result.snapshots] == ["ConvertToSSA"]
    assert result.program is result.snapshots[0][1]


def test_an_op_the_statement_lowers_to_that_its_rule_rejects_is_the_programs_e400() -> None:
    # An FP16 tensor assembled into an FP32 one (a mutant of upstream's split-K example): the
    # block.store it lowers to is rejected by the op's own rule. It was "E404 pass ... failed:
    # OpError: ...", as if the compiler had broken.
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) "
        "-> pl.Tensor[[64, 64], pl.FP32]:\n"
        "        c = pl.assemble(c, pl.full([64, 64], dtype=pl.FP16, value=0.5), [0, 0])\n"
        "        return c\n"
    )
    (program,) = analyze_source(source, "k.py").all_programs()
    result = driver.run_pipeline(program, "default")
    assert [(d.code, d.message, d.span.line) for d in result.diagnostics] == [
        (
            "E400",
            "block.store: a FP16 tile cannot be stored into a FP32 tensor: the copy does not "
            "convert elements; convert first: pl.cast(..., target_type=pl.FP32) (as "
            "ConvertTensorToBlockOps lowers this statement)",
            8,
        )
    ]


def test_a_pass_that_reports_an_error_stops_the_pipeline() -> None:
    a = P.var("a", P.tile_t(8, 8))
    later = P.assign("later", P.op("block.exp", a))
    early = P.assign("early", P.op("block.exp", later.var))
    result = driver.run_pipeline(P.program(P.function("k", [a], [early, later])), "default")
    assert [d.code for d in result.diagnostics] == ["E200"]
    assert [n for n, _ in result.snapshots] == ["ConvertToSSA"]


def _outcome(result: driver.PipelineResult) -> list[object]:
    """Diagnostics and every snapshot's IR as text, MemRefs included (new IR nodes compare by
    identity, so two runs are compared by what they print)."""
    return [result.diagnostics, P.lines(result.program.functions[0], memrefs=True)] + [
        (name, P.lines(program.functions[0], memrefs=True)) for name, program in result.snapshots
    ]


def test_shared_pipelines_give_what_each_pipeline_gives_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = P.var("a", P.tile_t(8, 8))
    later = P.assign("later", P.op("block.exp", a))
    early = P.assign("early", P.op("block.exp", later.var))
    broken = P.program(P.function("k", [a], [early, later]))
    for program in (P.program(P.simple_add()), P.program(P.loop_kernel()), broken):
        shared = driver.run_pipelines(program, ["default", "ptoas", "fast"])
        assert list(shared) == ["default", "ptoas", "fast"]
        for name, result in shared.items():
            assert _outcome(result) == _outcome(driver.run_pipeline(program, name))
    # The passes both start with run once (up to OutlineIncoreScopes: only CCE inlines calls).
    calls: list[str] = []

    class Counting(_Exploding):
        def run_function(self, fn: P.Function, ctx: PassContext) -> P.Function:
            calls.append(fn.name)
            return fn

    monkeypatch.setitem(PASSES, "FlattenCalls", Counting)
    shared = driver.run_pipelines(P.program(P.simple_add()), ["default", "ptoas"])
    assert len(calls) == 1
    assert [n for n, _ in shared["default"].snapshots] == DEFAULT
    assert [n for n, _ in shared["ptoas"].snapshots] == list(PIPELINES["ptoas"])


CALLS = """\
# pypto.program: calls
import pypto.language as pl


def add(x: pl.INT64, y: pl.INT64) -> pl.INT64:
    z: pl.INT64 = x + y
    return z


def twice(x: pl.INT64) -> pl.INT64:
    s: pl.INT64 = add(x, x)
    return s


def compute(a: pl.INT64, b: pl.INT64) -> pl.INT64:
    z: pl.INT64 = add(a, b)
    return z
"""


def test_a_function_both_pipelines_reach_unchanged_is_handled_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past InlineCalls (CCE only), a function pass still runs once for a function InlineCalls
    left alone, and each pipeline gets all it reports."""
    (program,) = analyze_source(CALLS, "calls.py").all_programs()
    shared = driver.run_pipelines(program, ["default", "ptoas"])
    for name, result in shared.items():
        alone = driver.run_pipeline(program, name)
        assert result.diagnostics == alone.diagnostics == []
        assert [n for n, _ in result.snapshots] == [n for n, _ in alone.snapshots]
        assert print_program(result.program) == print_program(alone.program)
    calls: list[str] = []

    class Reporting(FunctionPass):
        def run_function(self, fn: P.Function, ctx: PassContext) -> P.Function:
            calls.append(fn.name)
            ctx.error("E404", f"seen {fn.name}", fn.span)
            ctx.error("E404", "seen a function", program.span)  # the same from each
            return fn

    monkeypatch.setitem(PASSES, "Verifier", Reporting)
    shared = driver.run_pipelines(program, ["default", "ptoas"])
    # add calls nothing: the same function in both pipelines; the callers differ.
    assert sorted(calls) == ["add", "compute", "compute", "twice", "twice"]
    for name, result in shared.items():
        alone = driver.run_pipeline(program, name)
        assert [d.message for d in result.diagnostics] == [d.message for d in alone.diagnostics]
        assert [d.message for d in alone.diagnostics] == [
            "seen a function",
            "seen add",
            "seen twice",
            "seen compute",
        ]


def test_an_internal_failure_in_pipelines_run_together_keeps_its_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PASSES, "InitMemRef", _Exploding)
    fn = P.simple_add()
    third = fn.body.stmts[2]  # type: ignore[attr-defined]
    for result in driver.run_pipelines(P.program(fn), ["default", "ptoas"]).values():
        assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
            ("E404", "pass InitMemRef failed: ValueError: boom", third.span)
        ]
