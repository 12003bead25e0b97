"""A task graph as Graphviz DOT: a box per task (kernel, kind, SPMD width, loops), a solid
edge per ``deps=`` entry and a dashed one per tensor dependence, each with its ``kind``
attribute (``deps`` or ``data``, as in the JSON; Graphviz keeps an attribute it does not draw),
and a cluster per loop drawn once, labelled with the loop and how often it runs."""

from __future__ import annotations

from .model import Task, TaskGraph


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _label(task: Task, file: str) -> str:
    # (a region of a function imported from another file: that file's line)
    where = "line " if task.span.file == file else f"{task.span.file.rsplit('/', 1)[-1]}:"
    lines = [task.kernel, f"{task.kind} · {where}{task.span.line}"]
    if task.width != "1":
        lines.append(f"× {task.width} blocks")
    if task.loops:
        lines.append("in " + " / ".join(task.loops))
    if task.task_id:
        lines.append(f"TaskId {task.task_id}")
    return "\n".join(lines)


def to_dot(graph: TaskGraph) -> str:
    out = [f"digraph {_quote(graph.function)} {{", "  node [shape=box];"]
    members: dict[int, list[Task]] = {}
    inner: dict[int, list[int]] = {}
    for task in graph.tasks:
        members.setdefault(task.cluster, []).append(task)
    for cluster in graph.clusters:
        inner.setdefault(cluster.parent, []).append(cluster.index)
    # each loop drawn once is a cluster holding its tasks and inner loops (a stack, not
    # recursion: loops may nest hundreds deep)
    work: list[tuple[int, bool, int]] = [(c, True, 1) for c in reversed(inner.get(-1, []))]
    file = graph.span.file
    out.extend(_node(task, 1, file) for task in members.get(-1, []))
    while work:
        index, opening, depth = work.pop()
        if not opening:
            out.append("  " * depth + "}")
            continue
        cluster = graph.clusters[index]
        pad = "  " * (depth + 1)
        out.append("  " * depth + f"subgraph cluster_{index} {{")
        out.append(f"{pad}label={_quote(cluster.label + chr(10) + cluster.note)};")
        out.append(f"{pad}style=rounded;")
        out.extend(_node(task, depth + 1, file) for task in members.get(index, []))
        work.append((index, False, depth))
        work.extend((c, True, depth + 1) for c in reversed(inner.get(index, [])))
    for edge in graph.edges:
        style = "solid" if edge.kind == "deps" else "dashed"
        out.append(
            f"  t{edge.source} -> t{edge.target} "
            f"[label={_quote(edge.label)}, kind={edge.kind}, style={style}];"
        )
    out.append("}")
    return "\n".join(out) + "\n"


def _node(task: Task, depth: int, file: str) -> str:
    style = ", style=dashed" if task.scope == "manual" else ""
    return "  " * depth + f"t{task.index} [label={_quote(_label(task, file))}{style}];"
