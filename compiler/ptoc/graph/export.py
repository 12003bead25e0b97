"""A task graph as Graphviz DOT: a box per task (kernel, kind, SPMD width, loops), a solid
edge per ``deps=`` entry and a dashed one per tensor dependence, each with its ``kind``
attribute (``deps`` or ``data``, as in the JSON; Graphviz keeps an attribute it does not draw)."""

from __future__ import annotations

from .model import Task, TaskGraph


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _label(task: Task) -> str:
    lines = [task.kernel, f"{task.kind} · line {task.span.line}"]
    if task.width != "1":
        lines.append(f"× {task.width} blocks")
    if task.loops:
        lines.append("in " + " / ".join(task.loops))
    if task.task_id:
        lines.append(f"TaskId {task.task_id}")
    return "\n".join(lines)


def to_dot(graph: TaskGraph) -> str:
    out = [f"digraph {_quote(graph.function)} {{", "  node [shape=box];"]
    for task in graph.tasks:
        style = ", style=dashed" if task.scope == "manual" else ""
        out.append(f"  t{task.index} [label={_quote(_label(task))}{style}];")
    for edge in graph.edges:
        style = "solid" if edge.kind == "deps" else "dashed"
        out.append(
            f"  t{edge.source} -> t{edge.target} "
            f"[label={_quote(edge.label)}, kind={edge.kind}, style={style}];"
        )
    out.append("}")
    return "\n".join(out) + "\n"
