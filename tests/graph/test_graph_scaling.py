"""The task graph of thousands of submits (#28/#33) is built in time linear in its tasks and
edges: counted in work done, not timed (a busy machine times nothing), for N and 4N."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ptoc import editions
from ptoc.frontend import analyze_source
from ptoc.frontend.edition import spelling_table
from ptoc.graph import build, task_graph
from ptoc.graph.cycles import cycles

KERNEL = """import pypto.language as pl


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
    ) -> pl.Tensor[[64], pl.FP32]:
        t: pl.Tile[[64], pl.FP32] = pl.load(a, [0], [64])
        r: pl.Tensor[[64], pl.FP32] = pl.store(t, [0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]):
        with pl.manual_scope():
            tids = pl.array.create({slots}, pl.TASK_ID)
            out, t0 = pl.submit(self.scale, x, out)
"""


def chain(tasks: int) -> str:
    """``tasks`` submits, each waiting for the one before and stored into a TaskId array that
    no task waits for (so the graph has as many edges as tasks)."""
    lines = [
        f"            out, t{i} = pl.submit(self.scale, x, out, deps=[t{i - 1}])\n"
        f"            tids[{i % 7}] = t{i}\n"
        for i in range(1, tasks)
    ]
    return KERNEL.replace("{slots}", "7") + "".join(lines) + "        return out\n"


class CountingSet(set[Any]):
    """A set that counts the elements merged into sets of its kind (``|=``)."""

    merged = 0

    def __ior__(self, other: Any) -> CountingSet:  # type: ignore[override,misc]
        CountingSet.merged += len(other)
        return super().__ior__(other)  # type: ignore[return-value]


def merged_building(monkeypatch: pytest.MonkeyPatch, tasks: int) -> tuple[int, int]:
    analysis = analyze_source(chain(tasks), "chain.py")
    program = next(iter(analysis.all_programs()))
    function = program.function("main")
    assert function is not None
    monkeypatch.setattr(build, "set", CountingSet, raising=False)
    CountingSet.merged = 0
    graph = task_graph(program, function)
    monkeypatch.undo()
    return CountingSet.merged, len(graph.edges)


def test_a_task_id_array_grows_in_place_at_each_store(monkeypatch: pytest.MonkeyPatch) -> None:
    # `tids[i] = t` joins t into the array's tasks: copying them at each store was quadratic
    # (the array holds every task stored into it).
    small, small_edges = merged_building(monkeypatch, 100)
    large, large_edges = merged_building(monkeypatch, 400)
    assert (small_edges, large_edges) == (99, 399)
    assert 0 < small <= 2 * 100
    assert large <= 4 * small + 4


def scanned_detecting(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    scanned = 0
    line_of = editions._line_of

    def counting(text: str, offset: int) -> int:
        nonlocal scanned
        scanned += offset
        return line_of(text, offset)

    monkeypatch.setattr(editions, "_line_of", counting)
    detection = spelling_table().detect(text, ("pl",))
    monkeypatch.undo()
    assert detection.edition is not None
    return scanned


def test_edition_detection_counts_lines_once_per_edition(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counting the lines before every one-edition spelling (each pl.submit) was quadratic:
    # 0.34 s of the analysis of a 4,000-submit graph.
    small = scanned_detecting(monkeypatch, chain(500))
    large = scanned_detecting(monkeypatch, chain(2000))
    assert large <= 4 * small + 1000


class CountingList(list[int]):
    """A task's successors, counting each one a search follows."""

    followed = 0

    def __iter__(self) -> Iterator[int]:
        for item in super().__iter__():
            CountingList.followed += 1
            yield item


def followed_finding_cycles(tasks: int) -> tuple[int, int]:
    # every task waits for each of the (up to) eight before it: no cycle, 8N edges
    after = {i: CountingList(range(i + 1, min(i + 9, tasks))) for i in range(tasks)}
    CountingList.followed = 0
    assert cycles(dict(after)) == []
    return CountingList.followed, sum(len(successors) for successors in after.values())


def test_the_cycle_search_follows_each_edge_a_bounded_number_of_times() -> None:
    # (following every path from each task took minutes for 2,000 submits)
    for tasks in (500, 2000):
        followed, edges = followed_finding_cycles(tasks)
        assert edges <= followed <= 2 * edges
