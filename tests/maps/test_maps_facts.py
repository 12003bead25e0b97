"""Kernel facts: one pipeline run per function gives its memory map, sync sites and the CCE
lines of each statement; kept per function while it is unchanged."""

from __future__ import annotations

from pathlib import Path

from ptoc.driver import analyze, read_source
from ptoc.kernel_facts import document_facts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_outlined_kernels_belong_to_their_source_function() -> None:
    path = str(EXAMPLES / "tensor_add.py")
    facts = document_facts(analyze(read_source(path), path))
    assert [(f.function, [m.name for m in f.memory]) for f in facts] == [
        ("scaled_sum", ["scaled_sum"]),
        ("main", ["main_incore_0"]),  # the kernel OutlineIncoreScopes made of its scope
    ]
    assert [[site.span.line for site in f.sync] for f in facts] == [[19, 20, 21], [28, 29]]


def test_cce_lines_by_statement() -> None:
    path = str(EXAMPLES / "simple_add.py")
    (facts,) = document_facts(analyze(read_source(path), path))
    by_line = {span.line: lines for span, lines in facts.cce.items()}
    assert by_line[21] == [
        "using tile_zType = Tile<TileType::Vec, float, 128, 64, BLayout::RowMajor, -1, -1>;",
        "tile_zType tile_z(128, 64);",
        "TASSIGN(tile_z, 0x10000);",
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "TADD(tile_z, tile_x, tile_y);",
    ]


def test_memo_keeps_unchanged_functions() -> None:
    path = str(EXAMPLES / "loop_sum.py")
    source = read_source(path)
    memo: dict[object, object] = {}
    first = document_facts(analyze(source, path), memo)
    assert [f.function for f in first] == ["loop_sum", "sum_row_blocks"]
    again = document_facts(analyze(source, path), memo, compute=False)
    assert [id(f) for f in again] == [id(f) for f in first]
    edited = source.replace("pl.range(1, 4,", "pl.range(1, 3,")  # inside sum_row_blocks
    known = document_facts(analyze(edited, path), memo, compute=False)
    assert [id(f) for f in known] == [id(first[0])]  # only the unchanged function is known


TASKS = """import pypto.language as pl

ROWS = pl.dynamic("ROWS")


@pl.program
class Tasks:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32] = pl.add(t, t)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def ragged(
        self,
        x: pl.Tensor[[ROWS, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]],
    ) -> pl.Tensor[[ROWS, 64], pl.FP32]:
        t: pl.Tile[[ROWS, 64], pl.FP32] = pl.load(x, [0, 0], [ROWS, 64])
        r: pl.Tensor[[ROWS, 64], pl.FP32] = pl.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.manual_scope():
            out, t1 = pl.submit(self.scale, x, out)
            out, t2 = pl.submit(self.scale, x, out, deps=[t1])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def launch_ragged(
        self,
        x: pl.Tensor[[ROWS, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]],
    ) -> pl.Tensor[[ROWS, 64], pl.FP32]:
        out = self.ragged(x, out)
        return out
"""


def test_an_orchestration_that_only_launches_kernels_is_not_lowered(monkeypatch) -> None:
    """Issue #33: a 2,000-``pl.submit`` orchestration was lowered for facts that are empty
    (the timeline waited 2 s for them). Its facts are now made without the pipeline: empty,
    with the E401 / E402 of the kernels it reaches, as the pipeline over it reported them."""
    import ptoc.kernel_facts as kernel_facts

    analysis = analyze(TASKS, "tasks.py")
    (program,) = analysis.all_programs()
    lowered = {
        name: kernel_facts.function_facts(program, program.function(name))
        for name in ("main", "launch_ragged")
    }
    run: list[str] = []
    real = kernel_facts.function_facts
    monkeypatch.setattr(
        kernel_facts, "function_facts", lambda p, fn: run.append(fn.name) or real(p, fn)
    )
    facts = {f.function: f for f in document_facts(analysis)}
    assert run == ["scale", "ragged"]  # the kernels only
    assert list(facts) == ["scale", "ragged", "main", "launch_ragged"]
    for name in ("main", "launch_ragged"):
        made, wanted = facts[name], lowered[name]
        assert (made.memory, made.sync, made.cce, made.timelines) == ([], [], {}, [])
        assert (wanted.memory, wanted.sync, wanted.cce, wanted.timelines) == ([], [], {}, [])
        codes = ("E401", "E402")
        assert [d for d in made.diagnostics if d.code in codes] == [
            d for d in wanted.diagnostics if d.code in codes
        ]
    assert {d.code for d in facts["launch_ragged"].diagnostics} == {"E401"}
    assert facts["main"].diagnostics == []


def test_back_end_checks_do_not_lower_an_orchestration_that_only_launches(monkeypatch) -> None:
    """E401 / E402 of a launcher were found by lowering it with its kernels, then kept only
    inside its own span, where there is no tile: the answer is known without the pipeline."""
    from ptoc import driver

    analysis = analyze(TASKS, "tasks.py")
    (program,) = analysis.all_programs()
    lowered: list[tuple[str, ...]] = []
    real = driver.run_pipeline
    monkeypatch.setattr(
        driver,
        "run_pipeline",
        lambda p, *a, **k: lowered.append(tuple(f.name for f in p.functions)) or real(p, *a, **k),
    )
    found = driver.backend_diagnostics(analysis)
    assert lowered == [("scale",), ("ragged",)]
    assert {d.code for d in found} == {"E401"}
    assert all(program.function("ragged").span.covers(d.span) for d in found)
    assert driver.function_backend_diagnostics(program, "main") == ()
