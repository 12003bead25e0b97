"""The cycles of a task graph's edges (W040), found in time linear in the graph when there are
none: only tasks of one strongly connected component can wait for each other, so the search
for cycles through a task stays inside its component (a graph of 2,000 submits whose deps all
point back has no cycle, and took minutes when every path was followed). Neither search
recurses (a chain of thousands of tasks), and the enumeration inside a component stops after
MAX_CYCLES cycles or MAX_STEPS edges followed: a program with that many is told of the first
ones."""

from __future__ import annotations

from collections.abc import Iterator

MAX_CYCLES = 20
MAX_STEPS = 200_000


def components(after: dict[int, list[int]]) -> dict[int, int]:
    """Each task's strongly connected component (named by one of its tasks), by Tarjan's
    algorithm with an explicit stack."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    component: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()

    def visit(node: int) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for root in after:
        if root in index:
            continue
        visit(root)
        work: list[tuple[int, Iterator[int]]] = [(root, iter(after.get(root, [])))]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    visit(nxt)
                    work.append((nxt, iter(after.get(nxt, []))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component[member] = node
                        if member == node:
                            break
    return component


def cycles(after: dict[int, list[int]]) -> list[list[int]]:
    """Each cycle once, as the tasks around it from its smallest, in the order a depth-first
    search from each task in turn meets them (at most MAX_CYCLES)."""
    component = components(after)
    found: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    steps = 0
    for start in sorted(after):
        path, on_path = [start], {start}
        work = [iter(after.get(start, []))]
        while work and len(found) < MAX_CYCLES and steps < MAX_STEPS:
            nxt = next(work[-1], None)
            if nxt is None:
                work.pop()
                on_path.discard(path.pop())
                continue
            steps += 1
            if nxt == start:
                key = tuple(sorted(path))
                if key not in seen:
                    seen.add(key)
                    found.append(list(path))
            elif nxt > start and nxt not in on_path and component[nxt] == component[start]:
                path.append(nxt)
                on_path.add(nxt)
                work.append(iter(after.get(nxt, [])))
    return found
