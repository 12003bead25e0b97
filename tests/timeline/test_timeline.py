"""The predicted per-pipe timeline (``ptoc.timeline``): cycle facts read from pto-isa at run
time, the schedule, and ``ptoc compile --timeline`` / ``--timeline-summary``."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.driver import compile_source
from ptoc.ops.registry import PipeType
from ptoc.run.toolchain import ToolMissing, find_pto_isa
from ptoc.timeline import compiled_timelines
from ptoc.timeline.tables import COSTMODEL, CostTables

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from execution import matrix  # noqa: E402

sys.path.insert(0, str(TESTS / "server"))
import hostile  # noqa: E402

EXAMPLES = TESTS.parent / "examples"
SIMPLE_ADD = EXAMPLES / "simple_add.py"


@pytest.fixture(scope="module")
def pto_isa() -> Path:
    try:
        return find_pto_isa(None)
    except ToolMissing as exc:  # as the execution suite: only CI must have it
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tool is missing: {exc}")
        pytest.skip(str(exc))


def simple_add_timeline(root: Path):  # type: ignore[no-untyped-def]
    result = compile_source(SIMPLE_ADD.read_text(encoding="utf-8"), "cce", path=str(SIMPLE_ADD))
    (timeline,) = compiled_timelines(result, root)
    return timeline


def test_the_tables_come_from_the_installation(pto_isa: Path) -> None:
    tables = CostTables.load(pto_isa)
    assert tables.frequency_hz == 1.85e9
    assert tables.bandwidth["GM_TO_UB"] == 100.9 and tables.bandwidth["UB_TO_GM"] == 188.46
    assert tables.linear["vadd"] == (10, 2, 14)
    assert tables.intrinsic("TADD") == "vadd" and tables.intrinsic("TEXP") == "vexp"
    assert tables.intrinsic("TROWSUM") == "vadd"


def test_simple_add_is_what_pto_isas_cost_model_measures(pto_isa: Path) -> None:
    """pto-isa's __COSTMODEL build of simple_add: 1686 cycles, MTE2 1118, VEC 266, MTE3 299
    (AIV0; benchmarks/costmodel_compare.py measures it)."""
    timeline = simple_add_timeline(pto_isa)
    assert timeline.total == 1686
    assert timeline.busy() == {PipeType.MTE2: 1118, PipeType.V: 266, PipeType.MTE3: 299}
    assert [(e.name, e.pipe.name, e.start, e.cycles) for e in timeline.critical_path()] == [
        ("TLOAD", "MTE2", 3, 559),
        ("TLOAD", "MTE2", 562, 559),
        ("TADD", "V", 1121, 266),
        ("TSTORE", "MTE3", 1387, 299),
    ]


@pytest.mark.parametrize(
    ("example", "function", "measured"),
    [
        # pto-isa's __COSTMODEL build (benchmarks/costmodel_compare.py): a loop carrying a
        # tile (TMOV at each yield), and a 32-column multiply (rows narrower than a repeat).
        ("loop_sum.py", "sum_row_blocks", 894),
        ("mul_kernel_2d.py", "mul_kernel_2d", 254),
    ],
)
def test_kernels_measured_by_the_cost_model(
    pto_isa: Path, example: str, function: str, measured: int
) -> None:
    path = EXAMPLES / example
    result = compile_source(path.read_text(encoding="utf-8"), "cce", function, path=str(path))
    (timeline,) = compiled_timelines(result, pto_isa)
    assert timeline.total == measured


def test_a_changed_table_changes_the_prediction(pto_isa: Path, tmp_path: Path) -> None:
    """Nothing is copied: halve GM -> UB's bandwidth in a copy and the loads take twice as
    long."""
    copy = tmp_path / "pto-isa"
    for part in ("arch_config.hpp", "a2a3/cce_costmodel"):
        source = pto_isa / COSTMODEL / part
        target = copy / COSTMODEL / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    (copy / "include/pto/npu").mkdir(parents=True)
    shutil.copytree(pto_isa / "include/pto/npu/a2a3", copy / "include/pto/npu/a2a3")
    arch = copy / COSTMODEL / "arch_config.hpp"
    text = arch.read_text(encoding="utf-8")
    assert text.count("        100.9,") == 1
    arch.write_text(text.replace("        100.9,", "        50.45,"), encoding="utf-8")
    assert simple_add_timeline(copy).busy()[PipeType.MTE2] == 2 * 1119


def test_timeline_on_the_command_line(
    pto_isa: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    args = ["compile", str(SIMPLE_ADD), "--timeline", str(out), "--timeline-summary"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err == (
        "simple_add: ≈ 1,686 cycles (0.91 µs at 1.85 GHz)\n"
        "  MTE2      1,118 cycles busy   66%\n"
        "  MTE3        299 cycles busy   18%\n"
        "  V           266 cycles busy   16%\n"
        "  bottleneck: MTE2\n"
        "  longest wait: MTE3 idles 1,384 cycles at line 22, waiting for V (set at line 22)\n"
        "  critical path: TLOAD line 19 (MTE2) → TLOAD line 20 (MTE2) → TADD line 21 (V) → "
        "TSTORE line 22 (MTE3)\n"
    )
    trace = json.loads(out.read_text(encoding="utf-8"))["traceEvents"]
    ops = [
        (e["name"], e["tid"], e["ts"], e["dur"], e["args"]["line"]) for e in trace if e["ph"] == "X"
    ]
    assert ops == [
        ("TLOAD", "MTE2", 3, 559, 19),
        ("TLOAD", "MTE2", 562, 559, 20),
        ("TADD", "V", 1121, 266, 21),
        ("TSTORE", "MTE3", 1387, 299, 22),
    ]
    flows = [(e["ph"], e["tid"], e["ts"]) for e in trace if e["ph"] in ("s", "f")]
    assert flows == [("s", "MTE2", 1121), ("f", "V", 1121), ("s", "V", 1387), ("f", "MTE3", 1387)]


def test_without_pto_isa_it_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PTO_ISA_ROOT", str(tmp_path))
    assert main(["compile", str(SIMPLE_ADD), "--timeline-summary"]) == 2
    assert (
        "--timeline needs pto-isa's cost-model tables: pto-isa not found" in capsys.readouterr().err
    )


# Totals of pto-isa's __COSTMODEL build (benchmarks/costmodel_compare.py, 2026-11-28) for
# matrix kernels of each kind of cost: promoted operands, unary ops, reductions along either
# axis and by row width, a view, a reshape, a composite instruction, yield copies, column vectors.
MEASURED = {
    "adds_FP16_literal_promotes": 150,
    "neg_FP16": 83,
    "exp_FP16": 83,
    "sum_FP32_axis1": 126,
    "sum_FP16_axis1": 201,
    "max_FP16_axis1": 81,
    "view_FP32_at_offset": 92,
    "reshape_FP32": 108,
    "loop_carried_two_tile_fibonacci": 377,
    # element-wise ops of [32, 1] column vectors, which run on their [1, 32] row views
    "add_FP32_32x1": 22,
    "mul_INT16_32x1": 23,
    "div_FP16_32x1": 26,
}


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_matrix_kernels_measured_by_the_cost_model(pto_isa: Path, name: str) -> None:
    case = next(c for c in matrix.all_cases() if c.name == name)
    result = compile_source(case.source, "cce", case.function, path=name)
    (timeline,) = compiled_timelines(result, pto_isa)
    assert timeline.total == MEASURED[name]


@pytest.mark.parametrize(
    ("name", "counted_once", "measured"),
    [
        # the cost model's build, run with 4 for every scalar parameter: pl.range(n) runs 4
        # times, pl.range(n // 2 + 6) 8 times, pl.range(n // -2 + 4) twice (// floors)
        ("scalar_loop_bound_from_parameter", 143, 248),
        ("scalar_floordiv_as_loop_count", 143, 388),
        ("scalar_floordiv_negative_divisor_as_loop_count", 143, 178),
    ],
)
def test_a_trip_count_from_a_parameter_is_counted_with_its_value(
    pto_isa: Path, name: str, counted_once: int, measured: int
) -> None:
    case = next(c for c in matrix.all_cases() if c.name == name)
    result = compile_source(case.source, "cce", case.function, path=name)
    (once,) = compiled_timelines(result, pto_isa)
    assert (once.total, once.dynamic_loops) == (counted_once, 1)
    (given,) = compiled_timelines(result, pto_isa, {"n": 4})
    assert (given.total, given.dynamic_loops) == (measured, 0)


def test_timeline_scalar_on_the_command_line(
    pto_isa: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c for c in matrix.all_cases() if c.name == "scalar_loop_bound_from_parameter")
    kernel = tmp_path / "k.py"
    kernel.write_text(case.source, encoding="utf-8")
    args = ["compile", str(kernel), "--function", case.function, "--timeline-summary"]
    assert main(args) == 0
    first = capsys.readouterr().err.splitlines()
    assert first[0].startswith(f"{case.function}: ≈ 143 cycles")
    assert first[-1] == (
        "  note: 1 loop(s) without a constant trip count, counted once (--timeline-scalar "
        "NAME=VALUE gives a parameter's value)"
    )
    assert main([*args, "--timeline-scalar", "n=4"]) == 0
    given = capsys.readouterr().err.splitlines()
    assert given[0].startswith(f"{case.function}: ≈ 248 cycles")
    assert "note" not in given[-1]
    assert main([*args, "--timeline-scalar", "n=four"]) == 2
    assert "--timeline-scalar n=four: expected NAME=INTEGER" in capsys.readouterr().err


# the server's hostile kernel of a 2**40-trip loop (tests/server/hostile.py)
HUGE_LOOP = hostile.huge_extents("trips")
LOOP_BODY = (
    "            t = pl.load(a, [0, 0], [64, 64])\n"
    "            out = pl.store(pl.add(t, t), [0, 0], [64, 64], out)\n"
)


@pytest.mark.parametrize(
    ("body", "events"),
    [
        (LOOP_BODY, 272),  # 1,000 instructions with their synchronisation, then the cut
        ("            x = i + 1\n", 0),  # no instruction in the body: no timeline at all
    ],
)
def test_a_loop_of_2_to_the_40_trips_is_cut_not_walked_to_its_end(
    pto_isa: Path, monkeypatch: pytest.MonkeyPatch, body: str, events: int
) -> None:
    """Each trip was walked even past the cut (or with nothing in it): `pl.range(2**40)`, as
    a user may type on the way to `pl.range(2**4)`, hung the timeline and the server's cycle
    hints."""
    from ptoc.timeline import schedule

    monkeypatch.setattr(schedule, "MAX_INSTRUCTIONS", 1000)
    result = compile_source(HUGE_LOOP.replace(LOOP_BODY, body), "cce", path="big.py")
    timelines = compiled_timelines(result, pto_isa)
    assert [(t.cut, len(t.events)) for t in timelines] == ([(True, events)] if events else [])
