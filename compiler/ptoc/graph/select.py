"""The task graph of a named function of an analysed file: what ``ptoc graph`` writes and
the editor's ``ptols/taskGraph`` answers, through this one function so the two cannot disagree.

A ``@pl.program`` function's graph is drawn from its program; one a builder function defines,
from the program the builder's call in the file builds (``built_concretely``). A ``@pl.jit``
entry's is drawn from the specialisation ``ptoc compile`` would compile (the first call in the
file, or the n-th with ``specialise``); a JIT entry no call in the file gives shapes is drawn
from its program for every shape (its tasks and edges do not depend on the extents, except a
loop bound computed from them, which is then not unrolled)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .build import task_graph
from .model import TaskGraph

if TYPE_CHECKING:  # (the front end imports this package for its warnings)
    from ..frontend.analysis import ModuleAnalysis
    from ..ir.function import Function, Program


def function_graph(
    analysis: ModuleAnalysis, function: str, specialise: int | None = None
) -> TaskGraph | str:
    """The graph of ``function``, or why there is none (a sentence naming the function)."""
    chosen = analysis.specialised(specialise) if specialise is not None else analysis
    for program in chosen.all_programs():
        fn = program.function(function)
        if fn is not None:
            return drawn(*built_in(chosen, program, fn))
    entry = analysis.jit_entry_of(function)
    missing = None if specialise is None else analysis.no_such_specialisation(function, specialise)
    if missing is not None:
        return missing
    jit = analysis.jit_symbolic.get(entry) if entry is not None else None
    fn = jit.function(function) if jit is not None else None
    if jit is not None and fn is not None:
        return task_graph(jit, fn)
    return f"no function '{function}'"


def drawn(analysis: ModuleAnalysis, program: Program, fn: Function) -> TaskGraph:
    """The graph the analysis built for its warnings (W040-W043), else a new one."""
    graph = analysis.task_graphs.get(program, fn)
    return graph if graph is not None else task_graph(program, fn)


def built(analysis: ModuleAnalysis, program: Program, fn: Function) -> tuple[Program, Function]:
    """A builder's program as its call in the file builds it (its loops over the builder's
    parameters then unroll), where that analyses clean; else as it is, for every size."""
    return built_in(analysis, program, fn)[1:]


def built_in(
    analysis: ModuleAnalysis, program: Program, fn: Function
) -> tuple[ModuleAnalysis, Program, Function]:
    """``built``, with the analysis the program comes from (whose graphs it keeps)."""
    if program.name not in analysis.built:
        return analysis, program, fn
    again = analysis.built_concretely()
    if again is None:
        return analysis, program, fn
    for concrete in again.all_programs():
        found = concrete.function(fn.name)
        if concrete.name == program.name and found is not None:
            return again, concrete, found
    return analysis, program, fn
