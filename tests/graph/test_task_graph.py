"""Task graphs of orchestration functions (#28): the upstream orchestration examples' tasks
and edges, the task-graph warnings (W040-W042) and `ptoc graph` (DOT and JSON)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.cli import main
from ptoc.frontend import analyze_source
from ptoc.graph import Edge, Task, TaskGraph, function_graph, task_graph
from ptoc.graph.cycles import MAX_CYCLES
from ptoc.graph.select import built
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


PHASE_FENCE = EXAMPLES / "utils" / "phase_fence_dep_compression.py"


@needs_examples
@pytest.mark.parametrize(
    ("program_name", "label_a", "label"),
    [
        ("ChainedSnapshotPhaseFence", "tids_a", "tids_b"),
        ("ChainedSnapshotManualDummyPhaseFence", "deps", "deps"),
    ],
)
def test_phase_fence_stages_for_every_branch_count_draw_each_stage_once(
    program_name: str, label_a: str, label: str
) -> None:
    # For every value of the builder's `branches` (as the file is checked): the phase loops
    # (range(2)) are unrolled, each stage's branch loop is drawn once, a cluster noting how
    # often it runs
    graph = graph_of(PHASE_FENCE, "main", program_name)
    assert [(t.kernel, t.kind, t.scope, t.loops) for t in graph.tasks] == [
        ("kernel_stripe", "submit", "manual", (f"range(2) {phase}", "parallel(branches)"))
        for phase in ("a_phase=0", "a_phase=1", "b_phase=0", "b_phase=1")
    ]
    assert [(c.label, c.variable, c.note, c.parent) for c in graph.clusters] == [
        ("parallel(branches)", "branch", "runs branches times at run time", -1)
    ] * 4
    assert [t.cluster for t in graph.tasks] == [0, 1, 2, 3]
    # each stage waits on the previous stage's TaskId array (through task_dummy in the
    # second program); in a manual scope no tensor edge is inferred
    assert edges(graph) == [(0, 1, "deps", label_a), (1, 2, "deps", label), (2, 3, "deps", label)]


@needs_examples
@pytest.mark.parametrize(
    "program_name", ["ChainedSnapshotPhaseFence", "ChainedSnapshotManualDummyPhaseFence"]
)
def test_phase_fence_graph_is_the_program_the_builders_call_builds(program_name: str) -> None:
    # `for builder in (...): program = builder()`: each builder runs with its default,
    # branches=DEFAULT_BRANCHES (a module constant, 4): every stage has its 4 branch tasks
    analysis = analyze_source(PHASE_FENCE.read_text(encoding="utf-8"), str(PHASE_FENCE))
    (prog,) = [p for p in analysis.all_programs() if p.name == program_name]
    graph = task_graph(*built(analysis, prog, prog.functions[-1]))
    assert [t.loops[1] for t in graph.tasks[:5]] == [
        "parallel(4) branch=0",
        "parallel(4) branch=1",
        "parallel(4) branch=2",
        "parallel(4) branch=3",
        "parallel(4) branch=0",
    ]
    assert len(graph.tasks) == 16 and graph.clusters == []
    assert len(edges(graph)) == 48  # 3 stage fences of 4 x 4 TaskIds


BUILT_PROGRAM = """import pypto.language as pl

WIDE = 3


def build(n, rows=64):
    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self, x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]
        ) -> pl.Tensor[[rows, 64], pl.FP32]:
            t: pl.Tile[[rows, 64], pl.FP32] = pl.load(x, [0, 0], [rows, 64])
            r: pl.Tensor[[rows, 64], pl.FP32] = pl.store(t, [0, 0], out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]
        ) -> pl.Tensor[[rows, 64], pl.FP32]:
            for i in pl.range(n):
                out = self.k(x, out)
            return out

    return Built


def main(argv):
{call}
"""


@pytest.mark.parametrize(
    ("call", "loops", "clusters"),
    [
        # a literal, a module constant, a constant local of the caller
        ("    build(2)", [("range(2) i=0",), ("range(2) i=1",)], []),
        ("    build(n=WIDE)", [(f"range(3) i={i}",) for i in range(3)], []),
        ("    m = WIDE - 1\n    build(m, rows=32)", [("range(2) i=0",), ("range(2) i=1",)], []),
        # a value known only when the caller runs: the loop drawn once, with its note
        (
            "    build(len(argv))",
            [("range(n)",)],
            [("range(n)", "i", "runs n times at run time", -1)],
        ),
    ],
)
def test_a_builder_s_loop_bound_is_read_from_its_call(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    call: str,
    loops: list[tuple[str, ...]],
    clusters: list[tuple[str, str, str, int]],
) -> None:
    source = tmp_path / "built.py"
    source.write_text(BUILT_PROGRAM.format(call=call), encoding="utf-8")
    assert main(["graph", str(source), "--function", "main", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [tuple(t["loops"]) for t in data["tasks"]] == loops
    assert [
        (c["label"], c["variable"], c["note"], -1 if c["parent"] is None else 0)
        for c in data["clusters"]
    ] == (clusters)


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
    # 07_task_graph.py without its __main__ block (which calls each kernel through a dict of
    # them): no call gives them shapes
    path = EXAMPLES / "intermediate" / "07_task_graph.py"
    text = path.read_text(encoding="utf-8")
    analysis = analyze_source(text[: text.index('if __name__ == "__main__":')], str(path))
    assert analysis.jit_specialisations[function] == []
    graph = function_graph(analysis, function)
    assert isinstance(graph, TaskGraph)
    assert [(t.kind, t.reads, t.writes) for t in graph.tasks] == [
        ("region", ("scratch", "x"), ("scratch",)),  # (`scratch[:] = ...` assembles into it)
        ("region", ("out", "scratch"), ("out",)),
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


CHAIN_LOOP = """
with pl.manual_scope():
    flags, ft = pl.submit(self.gate, x, flags)
    for i, (prev,) in pl.range({trips}, init_values=(ft,)):
        out, t = pl.submit(self.scale, x, out, deps=[prev])
        nxt = pl.yield_(t)
return out
"""


def test_a_loop_of_constant_trip_count_is_unrolled() -> None:
    graph = graph_of(program(CHAIN_LOOP.format(trips=3)), "main")
    assert [(t.kernel, t.loops) for t in graph.tasks] == [
        ("gate", ()),
        ("scale", ("range(3) i=0",)),
        ("scale", ("range(3) i=1",)),
        ("scale", ("range(3) i=2",)),
    ]
    # each iteration waits on the previous one's TaskId, carried through the loop
    assert edges(graph) == [(0, 1, "deps", "prev"), (1, 2, "deps", "prev"), (2, 3, "deps", "prev")]


@pytest.mark.parametrize(
    ("trips", "tasks"),
    [(65, 65), (64, 64)],
)
def test_a_loop_too_long_to_unroll_is_one_node_and_one_warning(trips: int, tasks: int) -> None:
    source = program(CHAIN_LOOP.format(trips=trips))
    graph = graph_of(source, "main")
    unrolled = trips <= 64
    assert len(graph.tasks) == (1 + tasks if unrolled else 2)
    warnings = [d.format() for d in analyze_source(source, "tasks.py").diagnostics]
    assert warnings == (
        []
        if unrolled
        else [
            # on the loop variable `i` of `for i, (prev,) in pl.range(65, ...)`
            "tasks.py:37:17: warning[W043]: the task graph keeps this loop of 65 iterations "
            "(65 tasks) as one node per launch: it unrolls loops of at most 64 iterations into "
            "graphs of at most 256 tasks"
        ]
    )
    if not unrolled:
        (found,) = [d for d in analyze_source(source, "tasks.py").diagnostics]
        assert (found.span.line, found.span.column, found.span.end_line, found.span.end_column) == (
            37,
            16,
            37,
            17,
        )
        assert graph.tasks[1].loops == ("range(65)",)
        assert edges(graph) == [(0, 1, "deps", "prev")]


NESTED_LOOPS = """
with pl.manual_scope():
    for i in pl.range(10):
        for j in pl.range(30):
            out, t = pl.submit(self.scale, x, out)
return out
"""


def test_a_loop_that_would_pass_256_tasks_is_kept_whole_and_said_once() -> None:
    # 10 x 30 = 300 tasks: the outer loop is summarised (the inner loop inside it is unrolled)
    source = program(NESTED_LOOPS)
    graph = graph_of(source, "main")
    assert len(graph.tasks) == 30
    assert graph.tasks[0].loops == ("range(10)", "range(30) j=0")
    warnings = [d.format() for d in analyze_source(source, "tasks.py").diagnostics]
    assert [w for w in warnings if "W043" in w] == [
        "tasks.py:36:17: warning[W043]: the task graph keeps this loop of 10 iterations "
        "(300 tasks) as one node per launch: it unrolls loops of at most 64 iterations into "
        "graphs of at most 256 tasks"
    ]


def phase_fences(labels: list[str], branches: int = 4) -> list[tuple[int, int, str, str]]:
    """Each task of a stage waits on every task of the stage before (the TaskId array)."""
    return [
        (branches * k + source, branches * (k + 1) + target, "deps", label)
        for k, label in enumerate(labels)
        for target in range(branches)
        for source in range(branches)
    ]


#: Per orchestration function of the upstream examples with more than one task or any edge:
#: (file, program, function) -> (tasks, edges as (source, target, kind, label)).
UPSTREAM_GRAPHS: dict[tuple[str, str, str], tuple[int, list[tuple[int, int, str, str]]]] = {
    ("advanced/01_split_k.py", "matmul_split_k", "matmul_split_k"): (
        5,
        [(0, 1, "data", "c"), (1, 2, "data", "c"), (2, 3, "data", "c"), (3, 4, "data", "c")],
    ),
    ("advanced/03_mixed_kernel.py", "staged_matmul_bias", "staged_matmul_bias"): (
        2,
        [(0, 1, "data", "acc")],
    ),
    # one mixed scope: its cube kernel and its vector kernel (ptoc.mixed_kernels)
    **{
        ("advanced/03_mixed_kernel.py", name, name): (2, [(0, 1, "data", "acc")])
        for name in ("mixed_matmul_bias", "mixed_matmul_bias_lr")
    },
    ("intermediate/01_fused_linear.py", "fused_matmul_bias", "fused_matmul_bias"): (
        2,
        [(0, 1, "data", "mm_out")],
    ),
    ("intermediate/01_fused_linear.py", "fused_linear_relu", "fused_linear_relu"): (
        2,
        [(0, 1, "data", "mm_out")],
    ),
    ("intermediate/07_task_graph.py", "inferred_edge", "inferred_edge"): (
        2,
        [(0, 1, "data", "scratch")],
    ),
    ("intermediate/07_task_graph.py", "declared_edge", "declared_edge"): (
        2,
        [(0, 1, "deps", "first"), (0, 1, "data", "scratch")],
    ),
    ("models/01_ffn.py", "ffn_gelu", "ffn_gelu"): (
        3,
        [(0, 1, "data", "gate"), (1, 2, "data", "activated")],
    ),
    ("models/01_ffn.py", "ffn_swiglu", "ffn_swiglu"): (
        4,
        [(0, 2, "data", "gate"), (1, 2, "data", "up"), (2, 3, "data", "activated")],
    ),
    ("models/01_ffn.py", "ffn_relu", "ffn_relu"): (
        3,
        [(0, 1, "data", "gate"), (1, 2, "data", "activated")],
    ),
    ("models/02_vector_dag.py", "vector_dag", "vector_dag"): (
        5,
        [
            (0, 1, "data", "c"),
            (0, 2, "data", "c"),
            (1, 3, "data", "d"),
            (2, 3, "data", "e"),
            (3, 4, "data", "g"),
            (0, 4, "data", "c"),
        ],
    ),
    ("models/02_vector_dag.py", "example_orch", "example_orch"): (
        4,
        [(0, 1, "data", "c"), (0, 2, "data", "c"), (1, 3, "data", "d"), (2, 3, "data", "e")],
    ),
    ("models/04_paged_attention.py", "PagedAttentionProgram", "paged_attention"): (
        5,
        [
            (1, 2, "data", "sij_buf"),
            (2, 3, "data", "pij_f16_buf"),
            (2, 4, "data", "mi_sm_buf"),
            (2, 4, "data", "li_sm_buf"),
            (3, 4, "data", "oi_tmp_buf"),
            (0, 4, "data", "mi_buf"),
            (0, 4, "data", "li_buf"),
            (0, 4, "data", "oi_buf"),
        ],
    ),
    ("models/04_paged_attention.py", "PagedAttentionUnalignedProgram", "paged_attention"): (
        5,
        [
            (1, 2, "data", "sij_buf"),
            (2, 3, "data", "pij_f16_buf"),
            (2, 4, "data", "mi_sm_buf"),
            (2, 4, "data", "li_sm_buf"),
            (3, 4, "data", "oi_tmp_buf"),
            (0, 4, "data", "mi_buf"),
            (0, 4, "data", "li_buf"),
            (0, 4, "data", "oi_buf"),
        ],
    ),
    ("models/05_paged_attention_batch.py", "BatchPagedAttentionProgram", "BatchPagedAttention"): (
        4,
        [
            (0, 1, "data", "sij_b"),
            (1, 2, "data", "pij_b"),
            (1, 3, "data", "mij_b"),
            (1, 3, "data", "lij_b"),
            (2, 3, "data", "oi_new_b"),
        ],
    ),
    ("models/06_paged_attention_dynamic.py", "DynamicPagedAttentionProgram", "paged_attention"): (
        5,
        [
            (1, 2, "data", "sij_buf"),
            (2, 3, "data", "pij_f16_buf"),
            (2, 4, "data", "mi_sm_buf"),
            (2, 4, "data", "li_sm_buf"),
            (3, 4, "data", "oi_tmp_buf"),
            (0, 4, "data", "mi_buf"),
            (0, 4, "data", "li_buf"),
            (0, 4, "data", "oi_buf"),
        ],
    ),
    (
        "models/07_paged_attention_multi_config.py",
        "PagedAttentionMultiConfigProgram",
        "paged_attention",
    ): (
        5,
        [
            (1, 2, "data", "sij_buf_in"),
            (2, 3, "data", "pij_buf_in"),
            (2, 4, "data", "mi_buf_in"),
            (2, 4, "data", "li_buf_in"),
            (3, 4, "data", "oi_new_in"),
            (0, 4, "data", "mi_buf"),
            (0, 4, "data", "li_buf"),
            (0, 4, "data", "oi_buf"),
        ],
    ),
    ("models/08_llama_mini.py", "LlamaMiniProgram", "llama_mini_orch"): (
        21,
        [
            (0, 1, "data", "normed"),
            (0, 2, "data", "normed"),
            (0, 3, "data", "normed"),
            (1, 4, "data", "q"),
            (2, 5, "data", "k"),
            (4, 6, "data", "q_rot"),
            (5, 6, "data", "k_rot_buf"),
            (6, 7, "data", "scores"),
            (7, 8, "data", "scaled"),
            (8, 9, "data", "masked"),
            (9, 10, "data", "probs"),
            (3, 10, "data", "v"),
            (10, 11, "data", "attn_out"),
            (11, 12, "data", "dense_out"),
            (12, 13, "data", "attn_res"),
            (13, 14, "data", "normed2"),
            (13, 15, "data", "normed2"),
            (14, 16, "data", "gate"),
            (15, 16, "data", "up"),
            (16, 17, "data", "swish_up"),
            (12, 18, "data", "attn_res"),
            (17, 18, "data", "mlp_out"),
            (18, 19, "data", "h1"),
            (19, 20, "data", "h_normed"),
        ],
    ),
    ("models/09_paged_attention_spmd.py", "SpmdPagedAttentionProgram", "paged_attention_spmd"): (
        5,
        [
            (0, 1, "data", "sij_b"),
            (1, 2, "data", "pij_b"),
            (1, 3, "data", "mij_b"),
            (1, 3, "data", "lij_b"),
            (2, 3, "data", "oi_new_b"),
            (3, 4, "data", "oi_a"),
            (3, 4, "data", "li_a"),
        ],
    ),
    ("utils/cross_function_calls.py", "main_kernel", "main_kernel"): (
        2,
        [(0, 1, "data", "intermediate")],
    ),
    # (the builders are called with their defaults: 4 branches per stage)
    ("utils/phase_fence_dep_compression.py", "ChainedSnapshotPhaseFence", "main"): (
        16,
        phase_fences(["tids_a", "tids_b", "tids_b"]),
    ),
    ("utils/phase_fence_dep_compression.py", "ChainedSnapshotManualDummyPhaseFence", "main"): (
        16,
        phase_fences(["deps", "deps", "deps"]),
    ),
}


def upstream_graphs() -> dict[tuple[str, str, str], TaskGraph]:
    """Every orchestration function's graph in the upstream examples (the files read from
    their upstream checkout, never copied here)."""
    from ptoc.ir.function import FunctionType

    found: dict[tuple[str, str, str], TaskGraph] = {}
    for path in sorted(EXAMPLES.rglob("*.py")):
        analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
        for prog in [*analysis.all_programs(), *analysis.jit_symbolic.values()]:
            for fn in prog.functions:
                key = (str(path.relative_to(EXAMPLES)), prog.name, fn.name)
                if fn.func_type is FunctionType.Orchestration and key not in found:
                    found[key] = task_graph(*built(analysis, prog, fn))
    return found


@needs_examples
def test_upstream_orchestration_graphs_have_their_tasks_and_edges() -> None:
    graphs = upstream_graphs()
    drawn = {
        key: (len(graph.tasks), edges(graph))
        for key, graph in graphs.items()
        if (len(graph.tasks) > 1 or graph.edges) and key != QWEN3  # (its own test)
    }
    assert drawn == UPSTREAM_GRAPHS
    # the others launch one task (a JIT kernel's one region), or none: the distributed
    # examples' orchestrators dispatch per rank
    alone = {key: len(graph.tasks) for key, graph in graphs.items() if key not in drawn}
    assert alone.pop(QWEN3) == 125  # out_ and down_proj_residual: a cube and a vector kernel
    assert sorted(set(alone.values())) == [0, 1]
    assert sorted({key[0].split("/")[0] for key, n in alone.items() if n == 0}) == [
        "distributed",
        "runtime",
    ]
    assert len(alone) == 64


QWEN3 = ("models/qwen3_jit/qwen3_decode.py", "qwen3_decode", "qwen3_decode")


@needs_examples
def test_qwen3_decode_draws_the_kernels_it_imports_from_its_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """qwen3_decode calls @pl.jit.inline kernels of kernels/*.py, sized by config.py's
    constants: read from those files' text (never imported), each kernel's regions are tasks
    of the entry, at their own file's lines."""
    path = EXAMPLES / "models" / "qwen3_jit" / "qwen3_decode.py"
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert analysis.diagnostics == []
    graph = function_graph(analysis, "qwen3_decode")
    assert isinstance(graph, TaskGraph)
    assert Counter(t.kernel for t in graph.tasks) == {
        "rmsnorm": 1,
        "q_proj": 32,  # parallel(0, HIDDEN, Q_OUT_CHUNK): 8192 / 256 iterations
        "k_proj": 4,
        "v_proj": 4,
        "rope_kv_cache": 16,
        # a loop of cube and vector work, split in two kernels (ptoc.mixed_kernels)
        "out_proj_residual_aic": 16,
        "out_proj_residual_aiv": 16,
        "post_rmsnorm": 1,
        "gate_proj": 1,  # in a loop of 100 iterations: drawn once
        "up_proj": 1,
        "silu": 1,
        # specialised by `qwen3_decode.lower(*args)`: its add is typed, a mixed scope
        "down_proj_residual_aic": 16,
        "down_proj_residual_aiv": 16,
    }
    assert [(c.label, c.note) for c in graph.clusters] == [
        ("parallel(0, 25600, 256)", "runs 100 times")
    ]
    assert len(graph.edges) == 269
    first = graph.tasks[0]
    assert (Path(first.span.file).name, first.span.line) == ("rmsnorm.py", 33)
    assert (0, 1, "data", "normed_states") in edges(graph)
    assert main(["graph", str(path), "--function", "qwen3_decode"]) == 0
    assert '  t0 [label="rmsnorm\\nregion · rmsnorm.py:33"];' in capsys.readouterr().out


BREAKING_LOOP = """
with pl.manual_scope():
    for i in pl.range(3):
        out, t = pl.submit(self.scale, x, out)
        if i == 1:
            break
return out
"""


def test_a_loop_that_may_break_is_not_unrolled() -> None:
    graph = graph_of(program(BREAKING_LOOP), "main")
    assert [(t.kernel, t.loops) for t in graph.tasks] == [("scale", ("range(3)",))]


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


NAMED_REGION_THEN_SUBMIT = """
with pl.manual_scope():
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep") as prep:
        t = pl.load(x, [0, 0], [64, 64])
        out = pl.store(pl.add(t, t), [0, 0], out)
    out, done = pl.submit(self.scale, out, out, deps=[prep])
    flags, t2 = pl.submit(self.gate, out, flags, deps=[done])
return out
"""


def test_a_region_named_with_as_and_no_deps_is_a_task_later_deps_wait_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "tasks.py"
    source.write_text(program(NAMED_REGION_THEN_SUBMIT), encoding="utf-8")
    assert main(["graph", str(source), "--function", "main", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(t["kernel"], t["kind"], t["taskId"]) for t in data["tasks"]] == [
        ("prep", "region", "prep"),
        ("scale", "submit", "done"),
        ("gate", "submit", "t2"),
    ]
    assert [(e["source"], e["target"], e["kind"], e["label"]) for e in data["edges"]] == [
        (0, 1, "deps", "prep"),
        (1, 2, "deps", "done"),
    ]


@needs_examples
def test_run_time_bounded_loops_are_clusters_noting_how_often_they_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """04_paged_attention's loops run batch_cfg / q_loop_cfg / bn_this_batch times, values it
    reads from its config tensor at run time: each is drawn once, a nested cluster."""
    path = EXAMPLES / "models" / "04_paged_attention.py"
    assert main(["graph", str(path), "--function", "paged_attention"]) == 0
    dot = capsys.readouterr().out
    assert dot.splitlines()[2:12] == [
        "  subgraph cluster_0 {",
        '    label="range(batch_cfg)\\nruns batch_cfg times at run time";',
        "    style=rounded;",
        "    subgraph cluster_1 {",
        '      label="range(q_loop_cfg)\\nruns q_loop_cfg times at run time";',
        "      style=rounded;",
        '      t0 [label="kernel_init_inplace\\ncall · line 312\\nin range(batch_cfg) / '
        'range(q_loop_cfg)"];',
        "      subgraph cluster_2 {",
        '        label="range(bn_this_batch)\\nruns bn_this_batch times at run time";',
        "        style=rounded;",
    ]
    assert [line.strip().split(" ")[0] for line in dot.splitlines()[12:19]] == [
        "t1",
        "t2",
        "t3",
        "t4",
        "}",
        "}",
        "}",
    ]
    if shutil.which("dot"):  # Graphviz reads it (the clusters nest as written)
        drawn = subprocess.run(
            ["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=False
        )
        assert drawn.returncode == 0, drawn.stderr
        assert drawn.stdout.count('class="cluster"') == 3
