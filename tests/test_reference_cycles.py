"""Walks that run on every edit in the editor leave no reference cycle behind (issue #33).

A nested function that calls itself refers to itself through its closure: each call left a
cycle holding what the walk saw (the syntax trees of JIT kernels, a hashed function's parts,
the sync checker), freed only by the next full collection. In the server, where full
collections are rare by design (ptoc.perf), that garbage raised the memory's high-water mark.
Each test runs the walk once to warm up, then again with the collector off, and asks the
collector how many unreachable objects it finds: none."""

from __future__ import annotations

import ast
import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ptoc.driver import analyze, compile_source
from ptoc.frontend.jit import JitDef, callees_first
from ptoc.frontend.jit_kinds import jit_decorator
from ptoc.ir.equality import structural_hash
from ptoc.passes.sync_check import verify_program
from ptoc.printer.order import callee_first

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "flash_attention.py"
MISTAKES = ROOT / "tests" / "sync_check" / "mistakes.py"

JIT_CHAIN = """import pypto.language as pl


@pl.jit.incore
def inner(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    return c


@pl.jit.incore
def middle(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    return inner(a, c)


@pl.jit
def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    return middle(a, c)
"""


@pytest.fixture
def collector_off() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cycles_left(walk: Callable[[], object]) -> int:
    """Unreachable objects the collector finds after ``walk()`` (warmed up once before)."""
    walk()
    gc.collect()
    walk()
    return gc.collect()


def test_ordering_jit_kernels_callees_first(collector_off: None) -> None:
    tree = ast.parse(JIT_CHAIN)
    known = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and (found := jit_decorator(fn)) is not None:
            known[fn.name] = JitDef(fn, *found)
    assert callees_first(known["entry"], known) == ["inner", "middle", "entry"]
    assert cycles_left(lambda: callees_first(known["entry"], known)) == 0


def test_structural_hash(collector_off: None) -> None:
    path = str(EXAMPLE)
    (program,) = analyze(EXAMPLE.read_text(), path).all_programs()
    assert structural_hash(program) == structural_hash(program)
    assert cycles_left(lambda: structural_hash(program)) == 0


def test_printing_order(collector_off: None) -> None:
    (program,) = analyze(EXAMPLE.read_text(), str(EXAMPLE)).all_programs()
    assert len(callee_first(program.functions)) == len(program.functions)
    assert cycles_left(lambda: callee_first(program.functions)) == 0


def test_sync_checker_looking_for_a_later_set(collector_off: None) -> None:
    result = compile_source(
        MISTAKES.read_text(), "ir", "wait_before_set", "ptoas", path=str(MISTAKES)
    )
    (output,) = result.programs
    assert output.pipeline is not None
    program = output.pipeline.program
    assert "E412" in {d.code for d in verify_program(program)}  # the walk that looks ahead
    assert cycles_left(lambda: verify_program(program)) == 0
