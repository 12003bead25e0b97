"""Task graphs of orchestration functions (2026-08, spec §7): what ``ptoc graph`` writes and
the editor's task-graph view draws."""

from .build import Finding, task_findings, task_graph
from .export import to_dot
from .model import Edge, Task, TaskGraph
from .select import function_graph

__all__ = [
    "Edge",
    "Finding",
    "Task",
    "TaskGraph",
    "function_graph",
    "task_findings",
    "task_graph",
    "to_dot",
]
