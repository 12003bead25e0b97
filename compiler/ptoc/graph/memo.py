"""The task graphs an analysis built for its warnings (W040-W043), kept so that ``ptoc graph``
and the editor's ``ptols/taskGraph`` draw the same graph without building it again."""

from __future__ import annotations

from ..ir.function import Function, Program
from .model import TaskGraph


class GraphMemo:
    """Each graph by the program and function it was built from (the very objects: a graph
    depends on the program's other functions, which another analysis's program may differ in)."""

    __slots__ = ("_graphs",)

    def __init__(self) -> None:
        self._graphs: dict[tuple[int, int], tuple[Program, Function, TaskGraph]] = {}

    def keep(self, program: Program, function: Function, graph: TaskGraph) -> None:
        self._graphs[id(program), id(function)] = (program, function, graph)

    def get(self, program: Program, function: Function) -> TaskGraph | None:
        found = self._graphs.get((id(program), id(function)))
        # (the entry holds its program and function, so their ids are not reused meanwhile)
        if found is None or found[0] is not program or found[1] is not function:
            return None
        return found[2]

    def __len__(self) -> int:
        return len(self._graphs)

    def __eq__(self, other: object) -> bool:
        # a cache: two analyses of equal fields are equal whatever either has built
        return isinstance(other, GraphMemo)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GraphMemo({len(self._graphs)} graphs)"
