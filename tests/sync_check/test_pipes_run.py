"""``ptoc run --pipes``: the lowered function run with each pipe its own stream, in seeded
interleavings the synchronisation allows (``ptoc.run.pipes``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sync_suite import suite_sources

from ptoc import driver
from ptoc.cli import analyze, main
from ptoc.ir.function import FunctionType
from ptoc.run import pipes
from ptoc.run.execute import tensor_level
from ptoc.run.inputs import generate_inputs

HERE = Path(__file__).resolve().parent
MISTAKES = HERE / "mistakes.py"
EXAMPLES = HERE.parents[1] / "examples"
SOURCES = suite_sources()


def broken_simple_add(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """simple_add's IR after InsertSync, printed, with its MTE2 -> V sync_dst deleted."""
    assert main(["compile", str(EXAMPLES / "simple_add.py"), "--target", "ir"]) == 0
    printed = capsys.readouterr().out
    wait = re.search(r"\n( +)pl\.system\.sync_dst\(\n.*?\n\1\)", printed, re.DOTALL)
    assert wait is not None and "set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V" in wait[0]
    path = tmp_path / "broken.py"
    path.write_text(printed[: wait.start()] + printed[wait.end() :], encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_a_dropped_wait_is_a_race_with_both_lines_and_wrong_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = broken_simple_add(tmp_path, capsys)
    args = ["run", str(path), "--function", "simple_add"]
    # The ordinary run, in program order, sees nothing.
    assert main(args) == 0
    assert "race" not in capsys.readouterr().out
    assert main([*args, "--pipes", "ptoas"]) == 1
    out = capsys.readouterr().out
    add = line_of(path, "tile_z: pl.Tile[")
    loads = [line_of(path, "tile_x: pl.Tile["), line_of(path, "tile_y: pl.Tile[")]
    for load in loads:
        assert (
            f"{path}:{add}:9: race (read after write): V at line {add} ran before MTE2 at line "
            f"{load} (Vec [" in out
        )
    assert "a MTE2→V wait is missing" in out
    assert re.search(r"output \(FP32\): max abs error .*: MISMATCH", out)
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"simple_add: 64 interleavings of its pipes \(pipeline ptoas, seed 0\): 2 race\(s\), "
        r"0 deadlocked, [1-9]\d* with different results",
        summary,
    )


def test_the_simulator_misses_the_dropped_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's CPU simulator runs the C++ (with the wait missing) in order: it agrees with
    the reference interpreter, so only --pipes finds the race."""
    from ptoc.run import simulator
    from ptoc.run.execute import compare_results, reference_results, sim_arguments, sim_results
    from ptoc.run.harness import translation_unit
    from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

    try:
        toolchain = simulator.Toolchain(
            find_compiler(), find_pto_isa(None), HERE.parents[1] / ".cache" / "ptoc-exec"
        )
    except ToolMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))
    path = broken_simple_add(tmp_path, capsys)
    text = path.read_text(encoding="utf-8")
    compiled = driver.compile_source(text, "cce", "simple_add", "ptoas", path=str(path))
    assert not compiled.has_errors
    assert "wait_flag(PIPE_MTE2, PIPE_V" not in compiled.text
    assert "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in compiled.text
    (program,) = analyze(text, str(path)).all_programs()
    function = program.function("simple_add")
    assert function is not None
    inputs = generate_inputs(program, function, 0)
    executable = simulator.build(toolchain, translation_unit([compiled.text]), "broken")
    run = simulator.run(executable, 0, sim_arguments(function, inputs), 0, tmp_path / "sim")
    assert run.returncode == 0
    comparisons = compare_results(
        function, sim_results(function, inputs, run), reference_results(program, function, inputs)
    )
    assert comparisons and all(c.ok for c in comparisons)


def test_a_wait_nothing_signals_is_a_deadlock(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", str(MISTAKES), "--function", "never_set", "--pipes", "ptoas"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        f"{MISTAKES}:90:9: deadlock: V at line 90 waits for MTE2→V event 0 [64 interleavings]"
    )


@pytest.mark.parametrize("function", ["correct", "ping_pong"])
def test_sound_hand_written_sync_runs_clean(
    function: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(MISTAKES), "--function", function, "--pipes", "ptoas"]) == 0
    assert capsys.readouterr().out == (
        f"{function}: 64 interleavings of its pipes (pipeline ptoas, seed 0): 0 race(s), "
        "0 deadlocked, 0 with different results\n"
    )


def test_a_race_around_the_back_edge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(MISTAKES), "--function", "back_edge", "--pipes", "ptoas"]) == 1
    out = capsys.readouterr().out
    assert ":114:13: race (write after read): MTE2 at line 114 ran before V at line 117" in out
    assert ":117:13: race (write after read): V at line 117 ran before MTE3 at line 120" in out


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_insert_sync_output_runs_clean_in_every_interleaving(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipes, "INTERLEAVINGS", 8)
    analysis = analyze(SOURCES[name], name)
    for source in analysis.all_programs():
        for fn in source.functions:
            if fn.func_type is FunctionType.Orchestration:
                continue
            program, function = tensor_level(source, fn.name)
            inputs = generate_inputs(program, function, 0)
            lowered = driver.run_pipeline(driver.narrow(program, fn.name), "default")
            kernel = lowered.program.function(fn.name)
            assert kernel is not None
            outcome = pipes.run_pipes(lowered.program, kernel, inputs, 0)
            assert [pipes.race_line(r) for r, _ in outcome.races.values()] == []
            assert outcome.deadlocks == [] and outcome.mismatches == []
