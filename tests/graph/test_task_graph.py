"""Task graphs of orchestration functions (#28): the upstream orchestration examples' tasks
and edges, the task-graph warnings (W040-W042) and `ptoc graph` (DOT and JSON)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.frontend import analyze_source
from ptoc.graph import Edge, Task, TaskGraph, function_graph, task_graph
from ptoc.ir.span import Span

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
from task_mistakes import CLEAN, program  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "pypto-2026-08" / "examples"
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no upstream examples")


def graph_of(path: Path | str, function: str, program_name: str | None = None) -> TaskGraph:
    text = path.read_text(encoding="utf-8") if isinstance(path, Path) else path
    analysis = analyze_source(text, str(path) if isinstance(path, Path) else "tasks.py")
    for prog in analysis.all_programs():
        fn = prog.function(function)
        if fn is not None and program_name in (None, prog.name):
            return task_graph(prog, fn)
    raise AssertionError(f"no {function}")


def edges(graph: TaskGraph) -> list[tuple[int, int, str, str]]:
    return [(e.source, e.target, e.kind, e.label) for e in graph.edges]


@needs_examples
@pytest.mark.parametrize(
    ("program_name", "label"),
    [("ChainedSnapshotPhaseFence", "tids_b"), ("ChainedSnapshotManualDummyPhaseFence", "deps")],
)
def test_phase_fence_stages_wait_on_the_previous_stage_array(program_name: str, label: str) -> None:
    graph = graph_of(EXAMPLES / "utils" / "phase_fence_dep_compression.py", "main", program_name)
    assert [(t.kernel, t.kind, t.scope, t.loops) for t in graph.tasks] == [
        ("kernel_stripe", "submit", "manual", ("range(2)", "parallel(…)")),
        ("kernel_stripe", "submit", "manual", ("range(2)", "parallel(…)")),
    ]
    # the second stage waits on the first stage's TaskId array (through task_dummy in the
    # second program); in a manual scope no tensor edge is inferred
    assert edges(graph) == [(0, 1, "deps", label)]


@needs_examples
def test_vector_dag_edges_are_its_tensor_dependences() -> None:
    graph = graph_of(EXAMPLES / "models" / "02_vector_dag.py", "vector_dag")
    assert len(graph.tasks) == 5
    assert edges(graph) == [
        (0, 1, "data", "c"),
        (0, 2, "data", "c"),
        (1, 3, "data", "d"),
        (2, 3, "data", "e"),
        (3, 4, "data", "g"),
        (0, 4, "data", "c"),
    ]


@needs_examples
def test_spmd_paged_attention_tasks_run_on_four_blocks() -> None:
    graph = graph_of(EXAMPLES / "models" / "09_paged_attention_spmd.py", "paged_attention_spmd")
    assert [(t.kernel, t.width) for t in graph.tasks] == [
        ("SpmdQkMatmul", "4"),
        ("SpmdSoftmaxPrepare", "4"),
        ("SpmdPvMatmul", "4"),
        ("SpmdOnlineUpdate", "4"),
        ("SpmdNormalize", "4"),
    ]
    assert edges(graph) == [
        (0, 1, "data", "sij_b"),
        (1, 2, "data", "pij_b"),
        (1, 3, "data", "mij_b"),
        (1, 3, "data", "lij_b"),
        (2, 3, "data", "oi_new_b"),
        (3, 4, "data", "oi_a"),
        (3, 4, "data", "li_a"),
    ]


@needs_examples
def test_paged_attention_has_five_tasks_and_eight_edges() -> None:
    graph = graph_of(EXAMPLES / "models" / "04_paged_attention.py", "paged_attention")
    assert len(graph.tasks) == 5
    assert len(graph.edges) == 8


def test_submits_give_deps_edges_widths_and_task_ids() -> None:
    graph = graph_of(program(CLEAN), "main")
    assert [(t.kernel, t.kind, t.width, t.task_id) for t in graph.tasks] == [
        ("gate", "submit", "1", "ft"),
        ("scale", "submit", "1", "t1"),
        ("scale", "spmd_submit", "4", "t2"),
    ]
    assert edges(graph) == [(0, 1, "deps", "ft"), (1, 2, "deps", "t1"), (0, 2, "deps", "ft")]


def test_cycles_are_found_once() -> None:
    span = Span("f.py", 1, 0, 1, 1)
    graph = TaskGraph("f", span, [Task(i, f"k{i}", "submit", span) for i in range(3)])
    graph.edges = [Edge(0, 1, "deps", "a"), Edge(1, 2, "deps", "b"), Edge(2, 0, "data", "c")]
    assert graph.cycles() == [[0, 1, 2]]
    graph.edges = graph.edges[:2]
    assert graph.cycles() == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "out2, tid = pl.submit(self.scale, x, out)\nreturn out",
            "tasks.py:35:21: warning[W042]: nothing waits for this pl.submit(self.scale, ...) "
            "nor reads its result (out2, tid); a plain call launches it too",
        ),
        (
            "buf = pl.create_tensor([64, 64], dtype=pl.FP32)\nout = self.scale(buf, out)\n"
            "return out",
            "tasks.py:36:15: warning[W041]: the task 'scale' reads 'buf', which no earlier task "
            "wrote and no parameter provides",
        ),
    ],
)
def test_task_graph_warnings(body: str, expected: str) -> None:
    analysis = analyze_source(program(body), "tasks.py")
    assert [d.format() for d in analysis.diagnostics] == [expected]


def test_ptoc_graph_writes_dot_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tasks.py"
    source.write_text(program(CLEAN), encoding="utf-8")
    assert main(["graph", str(source), "--function", "main"]) == 0
    assert capsys.readouterr().out == (
        'digraph "main" {\n'
        "  node [shape=box];\n"
        '  t0 [label="gate\\nsubmit · line 36\\nTaskId ft", style=dashed];\n'
        '  t1 [label="scale\\nsubmit · line 37\\nTaskId t1", style=dashed];\n'
        '  t2 [label="scale\\nspmd_submit · line 38\\n× 4 blocks\\nTaskId t2", style=dashed];\n'
        '  t0 -> t1 [label="ft", kind=deps, style=solid];\n'
        '  t1 -> t2 [label="t1", kind=deps, style=solid];\n'
        '  t0 -> t2 [label="ft", kind=deps, style=solid];\n'
        "}\n"
    )
    out = tmp_path / "graph.json"
    assert main(["graph", str(source), "--function", "main", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [t["kernel"] for t in data["tasks"]] == ["gate", "scale", "scale"]
    assert data["tasks"][0]["range"] == {
        "line": 35,
        "character": 24,
        "endLine": 35,
        "endCharacter": 54,
    }
    assert data["edges"][0] == {"source": 0, "target": 1, "kind": "deps", "label": "ft"}
    assert main(["graph", str(source), "--function", "nope"]) == 1


OUTPUT_BY_STORE = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        r = pl.store(t, [0, 0], [64, 64], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        out: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        first: pl.Tensor[[64, 64], pl.FP32] = self.k(a, out)
        second: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        r: pl.Tensor[[64, 64], pl.FP32] = self.k(out, second)
        return r
"""


def test_a_2026_03_kernel_storing_into_a_parameter_writes_it() -> None:
    # No direction is written in 2026-03: the store into `out` makes it the kernel's output,
    # so the created tensor is written by the first task (no W041) and read by the second.
    analysis = analyze_source(OUTPUT_BY_STORE, "tasks.py")
    assert [d.code for d in analysis.diagnostics] == []
    graph = graph_of(OUTPUT_BY_STORE, "main")
    assert edges(graph) == [(0, 1, "data", "out")]


JIT_TWO_CALLS = """import pypto.language as pl
import torch


@pl.jit
def stages(x: pl.Tensor, mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mid[:] = pl.add(x, x)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(mid, mid)
    return mid, out


if __name__ == "__main__":
    a = torch.zeros((64, 64), dtype=torch.float32)
    stages(a, torch.zeros_like(a), torch.zeros_like(a))
    b = torch.zeros((32, 32), dtype=torch.float32)
    stages(b, torch.zeros_like(b), torch.zeros_like(b))
"""


def test_ptoc_graph_of_a_jit_kernel_per_specialisation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "jit.py"
    source.write_text(JIT_TWO_CALLS, encoding="utf-8")
    expected = (
        'digraph "stages" {\n'
        "  node [shape=box];\n"
        '  t0 [label="incore@7\\nregion · line 7"];\n'
        '  t1 [label="incore@9\\nregion · line 9"];\n'
        '  t0 -> t1 [label="mid", kind=data, style=dashed];\n'
        "}\n"
    )
    for specialise in ([], ["--specialise", "1"], ["--specialise", "2"]):
        assert main(["graph", str(source), "--function", "stages", *specialise]) == 0
        assert capsys.readouterr().out == expected
    assert main(["graph", str(source), "--function", "stages", "--specialise", "3"]) == 1
    assert capsys.readouterr().err == (
        f"ptoc: error: '{source}': 'stages' has 2 specialisation(s) in this file, not 3: "
        "--specialise N takes the N-th call (or # ptoc: specialise line) of its kernel\n"
    )


@needs_examples
@pytest.mark.parametrize("function", ["inferred_edge", "declared_edge"])
def test_a_jit_kernel_no_call_specialises_is_drawn_for_every_shape(function: str) -> None:
    # 07_task_graph.py calls its kernels through a dict: no call gives them shapes
    path = EXAMPLES / "intermediate" / "07_task_graph.py"
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert analysis.jit_specialisations[function] == []
    graph = function_graph(analysis, function)
    assert isinstance(graph, TaskGraph)
    assert [(t.kind, t.reads, t.writes) for t in graph.tasks] == [
        ("region", ("x",), ("scratch",)),
        ("region", ("scratch",), ("out",)),
    ]
    assert (0, 1, "data", "scratch") in edges(graph)


@needs_examples
def test_declared_edge_region_waits_on_the_bound_task_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `with pl.at(..., name_hint="stage1") as first:` then `pl.at(..., deps=[first])`: an
    # explicit edge on top of the inferred one (the wait set is their union)
    path = EXAMPLES / "intermediate" / "07_task_graph.py"
    assert main(["graph", str(path), "--function", "declared_edge"]) == 0
    assert capsys.readouterr().out == (
        'digraph "declared_edge" {\n'
        "  node [shape=box];\n"
        '  t0 [label="stage1\\nregion · line 63\\nTaskId first"];\n'
        '  t1 [label="stage2\\nregion · line 65"];\n'
        '  t0 -> t1 [label="first", kind=deps, style=solid];\n'
        '  t0 -> t1 [label="scratch", kind=data, style=dashed];\n'
        "}\n"
    )
    assert main(["graph", str(path), "--function", "inferred_edge", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(t["kernel"], t["taskId"]) for t in data["tasks"]] == [("stage1", ""), ("stage2", "")]
    assert data["edges"] == [{"source": 0, "target": 1, "kind": "data", "label": "scratch"}]


SPMD_SCOPES = """
with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep") as prep:
    y = pl.add(x, x)
with pl.spmd(4, deps=[prep]) as wide:
    out = self.scale(x, out)
with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail", deps=[wide, prep]):
    z = pl.add(out, out)
return out
"""


def test_scope_deps_and_task_ids_are_edges() -> None:
    source = program(SPMD_SCOPES)
    analysis = analyze_source(source, "tasks.py")
    assert [d.format() for d in analysis.diagnostics if d.severity.value == "error"] == []
    graph = function_graph(analysis, "main")
    assert isinstance(graph, TaskGraph)
    assert [(t.kernel, t.kind, t.width, t.task_id) for t in graph.tasks] == [
        ("prep", "region", "1", "prep"),
        ("scale", "call", "4", ""),
        ("tail", "region", "1", ""),
    ]
    assert edges(graph) == [
        (0, 1, "deps", "prep"),
        (1, 2, "deps", "wide"),
        (0, 2, "deps", "prep"),
        (1, 2, "data", "out"),
    ]


def test_scope_deps_and_task_ids_print_and_parse_back(tmp_path: Path) -> None:
    from ptoc.printer import print_program

    analysis = analyze_source(program(SPMD_SCOPES), "tasks.py")
    printed = print_program(analysis.programs[0], edition=analysis.edition.edition)
    assert '        with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep") as prep:\n' in printed
    assert "        with pl.spmd(4, deps=[prep]) as wide:\n" in printed
    assert 'name_hint="tail", deps=[wide, prep]):\n' in printed
    again = analyze_source(printed, "printed.py")
    assert print_program(again.programs[0], edition=again.edition.edition) == printed
