"""Task graphs of orchestration functions (#28): the upstream orchestration examples' tasks
and edges, the task-graph warnings (W040-W042) and `ptoc graph` (DOT and JSON)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.cli import main
from ptoc.frontend import analyze_source
from ptoc.graph import Edge, Task, TaskGraph, task_graph
from ptoc.graph.cycles import MAX_CYCLES
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
        '  t0 -> t1 [label="ft", style=solid];\n'
        '  t1 -> t2 [label="t1", style=solid];\n'
        '  t0 -> t2 [label="ft", style=solid];\n'
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


def test_a_graph_with_exponentially_many_paths_and_no_cycle_is_searched_at_once() -> None:
    """Every task waits for every earlier one (2**59 paths, no cycle): the search stays inside
    strongly connected components (#33; it followed every path before, for ever)."""
    span = Span("f.py", 1, 0, 1, 1)
    graph = TaskGraph("f", span, [Task(i, f"k{i}", "submit", span) for i in range(60)])
    graph.edges = [Edge(a, b, "deps", f"t{a}") for b in range(60) for a in range(b)]
    started = time.monotonic()
    assert graph.cycles() == []
    assert time.monotonic() - started < 1.0


def test_a_cycle_through_thousands_of_tasks_is_found_without_recursion() -> None:
    span = Span("f.py", 1, 0, 1, 1)
    graph = TaskGraph("f", span, [Task(i, f"k{i}", "submit", span) for i in range(3000)])
    graph.edges = [Edge(i, (i + 1) % 3000, "data", "x") for i in range(3000)]
    assert graph.cycles() == [list(range(3000))]


def test_a_graph_of_many_cycles_reports_the_first_ones() -> None:
    """Nine tasks each waiting for every other: thousands of cycles, MAX_CYCLES reported."""
    span = Span("f.py", 1, 0, 1, 1)
    graph = TaskGraph("f", span, [Task(i, f"k{i}", "submit", span) for i in range(9)])
    graph.edges = [Edge(a, b, "deps", "t") for a in range(9) for b in range(9) if a != b]
    found = graph.cycles()
    assert len(found) == MAX_CYCLES
    assert found[:3] == [[0, 1], [0, 1, 2], [0, 1, 2, 3]]
    assert len({tuple(sorted(c)) for c in found}) == MAX_CYCLES


def test_an_orchestration_s_submitted_kernels_are_its_callees() -> None:
    """#33 (storm): `ptoc compile --function main` (and the preview of main) narrowed the
    program to main alone, then failed with "no function named 'gate' in the program to
    launch": a pl.submit's kernel was not counted as called."""
    analysis = analyze_source(program(CLEAN), "tasks.py")
    (prog,) = analysis.all_programs()
    assert sorted(driver.callees(prog, "main")) == ["gate", "main", "scale"]
    whole = driver.compile_source(analysis, "cce")
    narrowed = driver.compile_source(analysis, "cce", "main")
    assert [d.code for d in narrowed.back_end] == [d.code for d in whole.back_end] == ["E400"]
