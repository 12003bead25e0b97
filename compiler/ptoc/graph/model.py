"""The task graph of an orchestration function: its tasks (each call site that launches a
kernel: ``pl.submit``, ``pl.spmd_submit``, a plain ``self.k(...)`` call, an InCore region),
the edges between them (``deps=`` TaskIds and tensor read-after-write), SPMD widths, and the
loops drawn once (a cluster per loop the graph does not unroll, with a note saying how often
it runs: ``runs batch_cfg times at run time``)."""

from __future__ import annotations

from ..ir.span import Span
from ..records import field, record
from .cycles import cycles as find_cycles


@record
class Task:
    index: int
    kernel: str  # the kernel launched (an InCore region: "<function>:incore@<line>")
    kind: str  # "submit", "spmd_submit", "call" or "region"
    span: Span  # the call (or the region)
    kernel_span: Span | None = None  # the kernel's definition
    width: str = "1"  # SPMD blocks: a number, or the expression's text
    task_id: str = ""  # the TaskId's name, when the program binds it
    scope: str = ""  # the runtime scope around it: "manual", "auto" or ""
    loops: tuple[str, ...] = ()  # the loops around the call, outermost first ("parallel(4)")
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    cluster: int = -1  # the innermost loop drawn once around it (-1: none)

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "kernel": self.kernel,
            "kind": self.kind,
            "range": _range(self.span),
            "kernelRange": _range(self.kernel_span) if self.kernel_span is not None else None,
            "width": self.width,
            "taskId": self.task_id,
            "scope": self.scope,
            "loops": list(self.loops),
            "reads": list(self.reads),
            "writes": list(self.writes),
            "cluster": self.cluster if self.cluster >= 0 else None,
        }


@record
class LoopCluster:
    """A loop the graph draws once (its bounds known only at run time, too many iterations
    to unroll, or a ``break``): its tasks stand for every iteration's."""

    index: int
    label: str  # "range(batch_cfg)", "parallel(branches)", "while"
    variable: str  # the loop variable ("" for a while loop)
    note: str  # how often it runs: "runs batch_cfg times at run time"
    span: Span  # the loop statement
    parent: int = -1  # the loop drawn once around it (-1: none)

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "label": self.label,
            "variable": self.variable,
            "note": self.note,
            "range": _range(self.span),
            "parent": self.parent if self.parent >= 0 else None,
        }


@record
class Edge:
    source: int
    target: int
    kind: str  # "deps" (a TaskId) or "data" (a tensor the target reads, the source wrote)
    label: str  # the TaskId or tensor name

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "target": self.target,
            "kind": self.kind,
            "label": self.label,
        }


@record
class TaskGraph:
    function: str
    span: Span
    tasks: list[Task] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    clusters: list[LoopCluster] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "function": self.function,
            "range": _range(self.span),
            "tasks": [t.to_json() for t in self.tasks],
            "edges": [e.to_json() for e in self.edges],
            "clusters": [c.to_json() for c in self.clusters],
        }

    def cycles(self) -> list[list[int]]:
        """Each cycle of the edges once (as the task indices around it, smallest first; at
        most cycles.MAX_CYCLES)."""
        after: dict[int, list[int]] = {t.index: [] for t in self.tasks}
        for edge in self.edges:
            after.setdefault(edge.source, []).append(edge.target)
            after.setdefault(edge.target, [])
        return find_cycles(after)


def _range(span: Span) -> dict[str, int]:
    """0-based LSP-style positions (spans have 1-based lines, 0-based columns)."""
    return {
        "line": span.line - 1,
        "character": span.column,
        "endLine": span.end_line - 1,
        "endCharacter": span.end_column,
    }
