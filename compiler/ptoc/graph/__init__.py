"""Task graphs of orchestration functions (2026-08, spec §7): what ``ptoc graph`` writes and
the editor's task-graph view draws."""

from .build import Finding, task_findings, task_graph
from .export import to_dot
from .model import Edge, Task, TaskGraph

__all__ = ["Edge", "Finding", "Task", "TaskGraph", "task_findings", "task_graph", "to_dot"]
