"""InsertSync's output, verified: the checker finds nothing in any kernel of the execution
suite, and dropping any one wait InsertSync placed is reported."""

from __future__ import annotations

import pytest
from sync_suite import suite_sources

from ptoc import driver
from ptoc.cli import analyze
from ptoc.ir.function import Function
from ptoc.ir.stmt import SeqStmts, Stmt
from ptoc.ir.visitor import with_fields
from ptoc.passes.rewriter import map_bodies
from ptoc.passes.sync_check import verify_function
from ptoc.passes.sync_check.stream import (
    Branch,
    Loop,
    Node,
    SetInstr,
    StreamReader,
    WaitInstr,
)

SOURCES = suite_sources()

# Pairs the checker proves redundant, so dropping their wait leaves only the unmatched set
# (E412): InsertSync joins a loop's exit with the zero-trip path and keeps pairs it hoisted
# before a loop that its body repeats; with the static trip count and the in-loop pairs the
# dependency is already ordered. (kernel, line of the guarded statement, signal, wait)
REDUNDANT = {
    ("loop_carried_sum_of_row_windows", 17, "MTE2", "MTE3"),
    ("examples/loop_sum.py", 31, "MTE2", "MTE3"),
    ("matmul_acc_FP16_k_tiled_loop", 18, "MTE1", "MTE2"),
    ("matmul_acc_FP16_k_tiled_loop", 18, "M", "MTE1"),
    ("language_constructs", 24, "MTE3", "MTE2"),
}


def lowered(name: str) -> list[Function]:
    analysis = analyze(SOURCES[name], name)
    assert not analysis.has_errors, [d.format() for d in analysis.diagnostics]
    functions: list[Function] = []
    for program in analysis.all_programs():
        result = driver.run_pipeline(program, "default")
        assert not result.has_errors
        functions.extend(result.program.functions)
    return functions


def instructions(nodes: tuple[Node, ...]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Branch):
            out += instructions(node.then) + instructions(node.orelse)
        elif isinstance(node, Loop):
            out += instructions(node.body)
        else:
            out.append(node)
    return out


def without(stmt: Stmt, gone: Stmt) -> Stmt:
    if isinstance(stmt, SeqStmts):
        kept = tuple(without(s, gone) for s in stmt.stmts if s is not gone)
        return SeqStmts(kept, span=stmt.span)
    return map_bodies(stmt, lambda s: without(s, gone))


def test_the_suite_is_large_and_has_synchronised_loops_and_branches() -> None:
    assert len(SOURCES) >= 200
    waits = [
        node
        for name in SOURCES
        for fn in lowered(name)
        for node in instructions(StreamReader(fn).nodes)
        if isinstance(node, WaitInstr)
    ]
    assert len(waits) >= 400


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_insert_sync_output_has_no_finding(name: str) -> None:
    for fn in lowered(name):
        assert [d.format() for d in verify_function(fn)] == []


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_dropped_wait_is_reported(name: str) -> None:
    for fn in lowered(name):
        nodes = instructions(StreamReader(fn).nodes)
        for index, wait in enumerate(nodes):
            if not isinstance(wait, WaitInstr):
                continue
            setter = next(
                n for n in reversed(nodes[:index]) if isinstance(n, SetInstr) and n.key == wait.key
            )
            found = verify_function(with_fields(fn, body=without(fn.body, wait.stmt)))
            # The set nobody waits for any more, always: never waited (E412), or set again
            # while in flight by the next set of its event (E413).
            assert any(
                (d.code == "E412" and d.span == setter.stmt.span)
                or (d.code == "E413" and d.related[0].span == setter.stmt.span)
                for d in found
            )
            site = (name, wait.stmt.span.line, wait.key.signal.name, wait.key.wait.name)
            hazards = [d for d in found if d.code in ("E410", "E411")]
            if site in REDUNDANT:
                assert hazards == [], site
            else:
                assert hazards, f"dropping the wait at {site} went unnoticed"
                assert all(d.related for d in hazards)


def test_the_redundant_pairs_are_still_there() -> None:
    """REDUNDANT only lists pairs InsertSync places today (so the list cannot go stale)."""
    for name, line, signal, wait in REDUNDANT:
        keys = {
            (node.stmt.span.line, node.key.signal.name, node.key.wait.name)
            for fn in lowered(name)
            for node in instructions(StreamReader(fn).nodes)
            if isinstance(node, WaitInstr)
        }
        assert (line, signal, wait) in keys
