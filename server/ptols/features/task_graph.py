"""The task graph in the editor (#28): ``ptols/taskGraph`` for an orchestration function and
the "Task graph" CodeLens above each one (docs/lsp-extensions.md)."""

from __future__ import annotations

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis
from ptoc.graph import TaskGraph, function_graph
from ptoc.ir.function import FunctionType

from ..convert import Positions
from ..protocol import TaskGraphCluster, TaskGraphEdge, TaskGraphResult, TaskGraphTask
from ..text import Stale

SHOW = "ptols.showTaskGraph"


def task_graph_result(
    analysis: ModuleAnalysis, function: str, positions: Positions, version: int | None
) -> TaskGraphResult:
    """The graph ``ptoc graph FILE --function F`` writes (``function_graph``: one choice of
    program for both, a JIT file's first specialisation or its program for every shape)."""
    graph = function_graph(analysis, function)
    if isinstance(graph, str):
        return TaskGraphResult(version, function, [], [], graph, [])
    tasks = []
    for task in graph.tasks:
        # (a region of a kernel imported from another file: revealed as the function here)
        span = task.span if task.span.file == graph.span.file else graph.span
        try:
            where = positions.range(span)
            kernel = positions.range(task.kernel_span) if task.kernel_span is not None else None
        except Stale:
            continue
        tasks.append(
            TaskGraphTask(
                task.index,
                task.kernel,
                task.kind,
                where,
                kernel,
                task.width,
                task.task_id,
                task.scope,
                list(task.loops),
                loop_notes(graph, task.cluster),
                task.cluster if task.cluster >= 0 else None,
            )
        )
    edges = [TaskGraphEdge(e.source, e.target, e.kind, e.label) for e in graph.edges]
    clusters = [
        TaskGraphCluster(c.index, c.label, c.note, c.parent if c.parent >= 0 else None)
        for c in graph.clusters
    ]
    message = "" if tasks else "the function launches no task"
    return TaskGraphResult(version, function, tasks, edges, message, clusters)


def loop_notes(graph: TaskGraph, cluster: int) -> list[str]:
    """The notes of the loops drawn once around a task, outermost first."""
    notes: list[str] = []
    while 0 <= cluster < len(graph.clusters):
        loop = graph.clusters[cluster]
        notes.insert(0, f"{loop.label}: {loop.note}")
        cluster = loop.parent
    return notes


def task_graph_lenses(
    analysis: ModuleAnalysis, uri: str, positions: Positions
) -> list[types.CodeLens]:
    """ "Task graph" above each orchestration function."""
    orchestration = {
        (fn.name, fn.span)
        for program in [*analysis.all_programs(), *analysis.jit_symbolic.values()]
        for fn in program.functions
        if fn.func_type is FunctionType.Orchestration
    }
    lenses: list[types.CodeLens] = []
    for info in analysis.function_infos:
        if not any(name == info.name and info.span.covers(span) for name, span in orchestration):
            continue
        try:
            where = positions.range(info.name_span)
        except Stale:
            continue
        command = types.Command("Task graph", SHOW, arguments=[uri, info.name])
        lenses.append(types.CodeLens(where, command))
    return lenses
