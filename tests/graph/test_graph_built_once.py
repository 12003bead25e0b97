"""Each task graph is built once: ``ptoc graph`` and the editor's ``ptols/taskGraph`` draw the
graph the analysis built for its warnings (W040-W043) instead of building it again."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.frontend import analyze_source
from ptoc.graph import TaskGraph, task_graph, to_dot
from ptoc.graph.build import GraphBuilder
from ptols.convert import Positions
from ptols.features.task_graph import task_graph_result
from ptols.text import LineIndex

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
from task_mistakes import CLEAN, program  # noqa: E402
from test_task_graph import BUILT_PROGRAM  # noqa: E402

SOURCE = program(CLEAN)


class Builds:
    """Every GraphBuilder.build, by the program and function it drew (the objects kept, so
    no two of them share an id)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[GraphBuilder] = []
        original = GraphBuilder.build

        def counted(builder: GraphBuilder) -> TaskGraph:
            self.seen.append(builder)
            return original(builder)

        monkeypatch.setattr(GraphBuilder, "build", counted)

    def per_function(self) -> Counter[tuple[int, str]]:
        return Counter((id(b.program), b.function.name) for b in self.seen)


def test_ptoc_graph_builds_the_graph_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "t.py"
    source.write_text(SOURCE, encoding="utf-8")
    builds = Builds(monkeypatch)
    assert main(["graph", str(source), "--function", "main"]) == 0
    assert [b.function.name for b in builds.seen] == ["main"]
    # the very graph a build of its own draws
    analysis = analyze_source(SOURCE, str(source))
    prog = analysis.programs[0]
    fresh = task_graph(prog, prog.function("main"))  # type: ignore[arg-type]
    assert capsys.readouterr().out == to_dot(fresh)


def test_ptoc_graph_of_a_builder_builds_each_program_s_graph_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the program for every size (its warnings) and the one the builder's call builds (its
    # warnings, and the graph written): each drawn once
    source = tmp_path / "built.py"
    source.write_text(BUILT_PROGRAM.format(call="    build(2)"), encoding="utf-8")
    builds = Builds(monkeypatch)
    assert main(["graph", str(source), "--function", "main"]) == 0
    assert sorted(builds.per_function().values()) == [1, 1]
    assert "range(2) i=1" in capsys.readouterr().out


def test_ptols_task_graph_reuses_the_analysis_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    analysis = analyze_source(SOURCE, "t.py")
    builds = Builds(monkeypatch)
    positions = Positions(LineIndex(SOURCE), "utf-16")
    result = task_graph_result(analysis, "main", positions, 1)
    assert [t.kernel for t in result.tasks] == ["gate", "scale", "scale"]
    assert task_graph_result(analysis, "main", positions, 2).tasks == result.tasks
    assert builds.seen == []
