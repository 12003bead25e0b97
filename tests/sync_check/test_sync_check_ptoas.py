"""The PTO route's sync, verified: PTOAS v0.57 inserts the sync itself (`--enable-insert-sync`)
and the checker reads its C++. Every kernel of the execution suite PTOAS compiles has no
finding; dropping any one wait PTOAS placed in representative kernels is reported; the
command line runs it (`ptoc compile --target pto --verify-sync`)."""

from __future__ import annotations

import hashlib
import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sync_suite import suite_sources

from ptoc import driver
from ptoc.cli import analyze, main
from ptoc.codegen.pto.ptoas import (
    INSERT_SYNC,
    PtoasMissing,
    PtoasResult,
    SynchronisedCpp,
    find_ptoas,
    ptoas_version,
    run_ptoas,
    synchronised_cpp,
)
from ptoc.diagnostics import Diagnostic
from ptoc.ir.function import Program
from ptoc.ir.span import Span
from ptoc.ops.registry import PipeType
from ptoc.passes.sync_check.cpp_check import verify_cpp
from ptoc.passes.sync_check.cpp_pipes import registered_pipes
from ptoc.passes.sync_check.cpp_syntax import CppBlock, CppNode, CppStatement, kernel_functions

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "ptoc-exec" / "ptoas-sync"
SOURCES = suite_sources()
SPAN_DB = Span("db.pto", 2, 2, 2, 10)
LOOP_SUM = ROOT / "examples" / "loop_sum.py"

#: Programs of the suite PTOAS v0.57 does not compile (a function returning two scalars:
#: "failed to legalize operation 'func.func'"), and the kernels ptoc itself rejects for the
#: PTO route (E400: no A2/A3 form; tests/ptoas/test_ptoas_execution.py's PTO_REJECTS).
PTOAS_REJECTS = {"language_constructs"}
PTOC_REJECTS = {"add_BF16_16x64", "adds_INT32_literal_promotes"}

#: Kernels whose every wait is dropped in turn.
MUTATED = (
    "examples/loop_sum.py",  # a loop: the double-buffered load waits across the back edge
    "matmul_acc_FP16_k_tiled_loop",  # the cube: MTE2 -> MTE1 -> M -> FIX, four events
    "matmul_bias_FP16_16x32x64",
    "if_else_yields_tile_flag_pos",  # an if / else
    "matmul_then_vector",  # both cores
    "examples/tensor_flash_attention.py",
)
#: Waits whose dependency another chain already orders: dropping them leaves only the set
#: without its wait (E412). (kernel, the wait, its occurrence in the C++ counted from 0)
REDUNDANT = {
    # the load's MTE2 -> MTE3 dependency runs through V: MTE2 -> V -> MTE3
    ("examples/loop_sum.py", "wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0)", 0),
}


@pytest.fixture(scope="module")
def ptoas() -> Path:
    try:
        found = find_ptoas(None, "0.57")
    except PtoasMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS v0.57 is missing: {exc}")
        pytest.skip(str(exc))
    return found


def cache_file(mlir: str, ptoas: Path) -> Path:
    binary = f"{ptoas_version(ptoas)} {ptoas.stat().st_size}"
    key = "\0".join([binary, INSERT_SYNC, mlir])
    return CACHE / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".cpp")


def cached(mlir: str, ptoas: Path) -> PtoasResult:
    """PTOAS with its sync insertion on, remembered by the MLIR's content (a failure too:
    an empty file)."""
    path = cache_file(mlir, ptoas)
    if not path.exists():
        result = run_ptoas(mlir, ptoas, options=(INSERT_SYNC,))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(result.cpp if result.ok else "", encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    return PtoasResult(bool(text), text)


def lowered(name: str) -> list[Program]:
    analysis = analyze(SOURCES[name], name)
    assert not analysis.has_errors, [d.format() for d in analysis.diagnostics]
    programs = []
    for program in analysis.all_programs():
        result = driver.run_pipeline(program, "ptoas")
        assert not result.has_errors
        programs.append(result.program)
    return programs


@pytest.fixture(scope="module")
def suite(ptoas: Path) -> dict[str, list[SynchronisedCpp | None]]:
    """Every program of the suite through PTOAS; the MLIR texts PTOAS has not seen are
    assembled first, two at a time."""
    programs = {name: lowered(name) for name in SOURCES}
    texts: list[str] = []

    def remember(mlir: str, _: Path) -> PtoasResult:
        texts.append(mlir)
        return PtoasResult(False, "")

    for name in PTOC_REJECTS | set(programs):
        for program in programs[name]:
            synchronised_cpp(program, ptoas, remember)
    missing = list(dict.fromkeys(t for t in texts if not cache_file(t, ptoas).exists()))
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda t: cached(t, ptoas), missing))
    return {
        name: [synchronised_cpp(p, ptoas, cached) for p in found]
        for name, found in programs.items()
    }


def findings(made: SynchronisedCpp, cpp: str | None = None) -> list[Diagnostic]:
    spans = {name: fn.span for name, fn in made.functions.items()}
    return verify_cpp(made.cpp if cpp is None else cpp, made.mlir, made.line_spans, spans)


def statements(nodes: tuple[CppNode, ...]) -> list[CppStatement]:
    out: list[CppStatement] = []
    for node in nodes:
        if isinstance(node, CppBlock):
            out += statements(node.body) + statements(node.orelse or ())
        elif isinstance(node, CppStatement):
            out.append(node)
    return out


def test_every_kernel_ptoas_compiles_has_no_finding(
    suite: dict[str, list[SynchronisedCpp | None]],
) -> None:
    rejected = {name for name, made in suite.items() if any(m is None for m in made)}
    assert rejected == PTOAS_REJECTS | PTOC_REJECTS
    checked = [m for made in suite.values() for m in made if m is not None]
    kernels = [f for m in checked for f in kernel_functions(m.cpp)]
    waits = [s for f in kernels for s in statements(f.body) if s.text.startswith("wait_flag(")]
    assert len(checked) >= 220 and len(kernels) >= 230 and len(waits) >= 540
    found = {
        name: [d.format() for m in made if m is not None for d in findings(m)]
        for name, made in suite.items()
    }
    assert {name: f for name, f in found.items() if f} == {}


def mutants(made: SynchronisedCpp) -> list[tuple[str, int, bool, str]]:
    """Each wait of each kernel: (the wait, its occurrence, whether an instruction of the
    waiting pipe follows it, the C++ without it)."""
    lines = made.cpp.split("\n")
    out: list[tuple[str, int, bool, str]] = []
    seen: dict[str, int] = {}
    for kernel in kernel_functions(made.cpp):
        body = statements(kernel.body)
        for index, statement in enumerate(body):
            if not statement.text.startswith("wait_flag("):
                continue
            occurrence = seen.get(statement.text, 0)
            seen[statement.text] = occurrence + 1
            waiter = statement.text.split(",")[1].strip()
            guards = any(
                s.text.startswith("T") and waiter in pipes_of(s) for s in body[index + 1 :]
            )
            assert lines[statement.line - 1].strip() == statement.text + ";"
            cpp = "\n".join(lines[: statement.line - 1] + lines[statement.line :])
            out.append((statement.text, occurrence, guards, cpp))
    return out


def pipes_of(statement: CppStatement) -> set[str]:
    """The pipes an instruction of the registry may run on, as C++ spells them (another
    instruction: V)."""
    name = statement.text.split("(")[0]
    return {f"PIPE_{p.name}" for p in registered_pipes().get(name, {PipeType.V})}


@pytest.mark.parametrize("name", MUTATED)
def test_each_dropped_wait_of_ptoas_is_reported(
    name: str, suite: dict[str, list[SynchronisedCpp | None]]
) -> None:
    dropped = 0
    for made in suite[name]:
        assert made is not None
        for wait, occurrence, guards, cpp in mutants(made):
            codes = {d.code for d in findings(made, cpp)}
            where = f"{name}: without {wait} #{occurrence}"
            # the set it would have taken is left in flight (or set again while it is)
            assert codes & {"E412", "E413"}, where
            redundant = (name, wait, occurrence) in REDUNDANT
            if "PIPE_S" in wait or not guards or redundant:
                assert not codes & {"E410", "E411"}, where
            else:
                assert codes & {"E410", "E411"}, where
            dropped += 1
    assert dropped >= 2


def test_a_dropped_wait_is_reported_on_the_kernel_lines(ptoas: Path) -> None:
    [program] = [p for p in lowered("examples/loop_sum.py") if p.function("sum_row_blocks")]
    made = synchronised_cpp(program, ptoas, cached)
    assert made is not None
    wait = "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
    assert made.cpp.count(wait) == 1
    found = findings(made, made.cpp.replace(wait, ""))
    lines = LOOP_SUM.read_text().split("\n")
    add = 1 + next(i for i, line in enumerate(lines) if "pl.add(acc, rows)" in line)
    load = 1 + next(i for i, line in enumerate(lines) if "pl.load(x, [i * 32" in line)
    races = [d for d in found if d.code == "E410" and d.span.line == add]
    assert races, [d.format() for d in found]
    race = next(d for d in races if d.related[0].span.line == load)
    assert race.span.column == lines[add - 1].index("total")
    assert race.message.startswith("V reads Vec [0x2000, 0x4000), which MTE2 wrote at line")
    assert "a MTE2→V set/wait pair is missing" in race.message
    # the set left without its wait, on the load whose work it signals
    unmatched = [d for d in found if d.code == "E412"]
    assert [d.span.line for d in unmatched] == [load]
    assert unmatched[0].message == (
        "set_flag of MTE2→V event 0 is never waited for: no wait_flag of it follows on every path"
    )


def test_what_the_reader_does_not_understand_is_one_warning_and_the_rest_is_checked(
    ptoas: Path,
) -> None:
    [program] = [p for p in lowered("examples/loop_sum.py") if p.function("sum_row_blocks")]
    made = synchronised_cpp(program, ptoas, cached)
    assert made is not None
    wait = "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
    odd = made.cpp.replace(wait, "    mystery_intrinsic(v11);\n    TFROBNICATE(v14, v1);\n")
    found = findings(made, odd)
    warnings = [d for d in found if d.code == "W410"]
    assert len(warnings) == 1
    message = warnings[0].message
    assert message.startswith(
        "the sync check did not understand 2 statement(s) of PTOAS's C++ for 'sum_row_blocks'"
    )
    assert "`mystery_intrinsic(v11)` (a call of mystery_intrinsic" in message
    assert "`TFROBNICATE(v14, v1)` (TFROBNICATE is no instruction the op registry names)" in (
        message
    )
    assert warnings[0].span == program.function("sum_row_blocks").span
    assert any(d.code == "E410" for d in found)  # the missing wait is still found


def fake_ptoas(tmp_path: Path, real: Path, drop: str) -> Path:
    """A PTOAS that deletes the first line holding ``drop`` from the C++ it writes."""
    script = tmp_path / "ptoas"
    script.write_text(
        "#!/bin/sh\n"
        f'"{real}" "$@" || exit $?\n'
        'out=""; prev=""\n'
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        f'[ -n "$out" ] && sed -i "0,/{drop}/{{/{drop}/d}}" "$out"\n'
        "exit 0\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_compile_verify_sync_checks_ptoas_sync(
    ptoas: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["compile", str(LOOP_SUM), "--target", "pto", "--verify-sync"]
    assert main([*command, "-o", str(tmp_path / "k.pto"), "--ptoas", str(ptoas)]) == 0
    capsys.readouterr()
    broken = fake_ptoas(tmp_path, ptoas, r"wait_flag(PIPE_MTE2, PIPE_V")
    assert main([*command, "-o", str(tmp_path / "k.pto"), "--ptoas", str(broken)]) == 1
    err = capsys.readouterr().err
    lines = LOOP_SUM.read_text().split("\n")
    add = 1 + next(i for i, line in enumerate(lines) if "pl.add(acc, rows)" in line)
    assert f"loop_sum.py:{add}:" in err and "error[E410]" in err


NOT_CHECKED = "warning[W410]: the sync PTOAS inserts on the PTO route was not checked: "


def test_without_ptoas_the_pto_route_sync_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTOAS", str(tmp_path / "no-ptoas"))
    command = ["compile", str(LOOP_SUM), "--target", "pto", "--verify-sync"]
    assert main([*command, "-o", str(tmp_path / "k.pto")]) == 0
    err = capsys.readouterr().err
    assert NOT_CHECKED + "PTOAS was not found (pass --ptoas PATH or set PTOAS)" in err


def test_mlir_ptoas_does_not_compile_is_a_warning(
    ptoas: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failing = tmp_path / "ptoas"  # states its version, fails on any MLIR
    failing.write_text(
        f'#!/bin/sh\n[ "$1" = "--version" ] && exec "{ptoas}" --version\n'
        'echo "error: no" >&2\nexit 1\n'
    )
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PTOAS", str(failing))
    command = ["compile", str(LOOP_SUM), "--target", "pto", "--verify-sync"]
    assert main([*command, "-o", str(tmp_path / "k.pto")]) == 0
    err = capsys.readouterr().err
    assert NOT_CHECKED + "PTOAS did not compile the MLIR (--verify shows why)" in err


OWN_SYNC = """\
import pypto.language as pl


@pl.program
class Manual:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Tensor[[32, 32], pl.FP32]
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        u = pl.exp(t)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        r = pl.store(u, [0, 0], [32, 32], out)
        return r
"""
OWN_LINES = OWN_SYNC.split("\n")
SRC_LINE = 1 + next(i for i, line in enumerate(OWN_LINES) if "wait_pipe=pl.PipeType.V," in line)
EXP_LINE = 1 + next(i for i, line in enumerate(OWN_LINES) if "u = pl.exp" in line)


def found_lines(err: str, name: str) -> list[tuple[int, str]]:
    return sorted(
        (int(line.split(":")[1]), line.split("error[")[1][:4])
        for line in err.splitlines()
        if line.startswith(name) and "error[" in line
    )


def test_own_sync_is_checked_in_ptoas_cpp_too(
    ptoas: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kernel's own sync, on the PTO route: the IR as written, and PTOAS's C++ of it. A C++
    that lost the kernel's wait (a PTOAS that drops it) is reported on the kernel's lines,
    though the IR is right; the written sync maps to its own statements."""
    source = tmp_path / "own.py"
    source.write_text(OWN_SYNC)
    command = ["compile", str(source), "--target", "pto-cpp", "--verify-sync"]
    assert main([*command, "-o", str(tmp_path / "k.cpp"), "--ptoas", str(ptoas)]) == 0
    assert "error" not in capsys.readouterr().err
    broken = fake_ptoas(tmp_path, ptoas, r"wait_flag(PIPE_MTE2, PIPE_V")
    assert main([*command, "-o", str(tmp_path / "k.cpp"), "--ptoas", str(broken)]) == 1
    err = capsys.readouterr().err
    assert found_lines(err, str(source)) == [(SRC_LINE, "E412"), (EXP_LINE, "E410")], err
    assert f"own.py:{SRC_LINE}:9: error[E412]: set_flag of MTE2→V event 0 is never waited" in err


def test_own_sync_found_in_the_ir_and_the_cpp_is_reported_once(
    ptoas: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "\n".join(line for i, line in enumerate(OWN_LINES) if i != SRC_LINE)  # its wait
    source = tmp_path / "own.py"
    source.write_text(text)
    command = ["compile", str(source), "--target", "pto", "--verify-sync", "--ptoas", str(ptoas)]
    assert main([*command, "-o", str(tmp_path / "k.pto")]) == 1
    err = capsys.readouterr().err
    # the IR's words (sync_src) and the C++'s would both name these lines: one of each
    assert found_lines(err, str(source)) == [(SRC_LINE, "E412"), (EXP_LINE - 1, "E410")], err
    assert "error[E412]: sync_src of MTE2→V event 0 is never waited for" in err


SLOT = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=64, v_row=32, v_col=64, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
)
MULTI = f"!pto.multi_tile_buf<{SLOT}, count=2>"
TENSOR = "!pto.tensor_view<?x?xf32>"
PART = "!pto.partition_tensor_view<32x64xf32>"
#: A double-buffered loop in PTO MLIR (ptoc writes no multi-buffers: PyPTO's PTOAS memory
#: planner does): row block i is loaded into slot i % 2 of one buffer, exponentiated into
#: slot i % 2 of another and stored. PTOAS names the events of its sync by i % 2.
DOUBLE_BUFFERED = f"""\
module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @db(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>) attributes {{pto.entry, pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c256 = arith.constant 256 : index
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %x = pto.make_tensor_view %arg0, shape = [%c256, %c64], strides = [%c64, %c1] : {TENSOR}
    %y = pto.make_tensor_view %arg1, shape = [%c256, %c64], strides = [%c64, %c1] : {TENSOR}
    %in = pto.alloc_multi_tile : {MULTI}
    %out = pto.alloc_multi_tile : {MULTI}
    scf.for %i = %c0 to %c8 step %c1 {{
      %k = arith.remui %i, %c2 : index
      %a = pto.multi_tile_get %in[%k] : {MULTI} -> {SLOT}
      %b = pto.multi_tile_get %out[%k] : {MULTI} -> {SLOT}
      %row = arith.muli %i, %c32 : index
      %src = pto.partition_view %x, offsets = [%row, %c0], sizes = [%c32, %c64] : {TENSOR} -> {PART}
      pto.tload ins(%src : {PART}) outs(%a : {SLOT})
      pto.texp ins(%a : {SLOT}) outs(%b : {SLOT})
      %dst = pto.partition_view %y, offsets = [%row, %c0], sizes = [%c32, %c64] : {TENSOR} -> {PART}
      pto.tstore ins(%b : {SLOT}) outs(%dst : {PART})
    }}
    return
  }}
}}
"""  # noqa: E501


def test_ptoas_dynamic_event_ids_are_read_and_checked(ptoas: Path) -> None:
    made = cached(DOUBLE_BUFFERED, ptoas)
    assert made.ok
    dynamic = [
        line.strip()
        for line in made.cpp.split("\n")
        if line.strip().startswith(("set_flag(", "wait_flag(")) and "EVENT_ID" not in line
    ]
    assert len(dynamic) >= 2  # PTOAS names these events by a variable
    spans = {"db": SPAN_DB}
    assert verify_cpp(made.cpp, "", [], spans) == []
    for statement in dynamic:  # each dropped in turn is reported
        line = f"    {statement}\n"
        assert made.cpp.count(line) == 1, statement
        found = verify_cpp(made.cpp.replace(line, ""), "", [], spans)
        codes = {d.code for d in found}
        assert "W410" not in codes and codes & {"E412", "E413", "E415"}, statement
        assert codes & {"E410", "E411"}, statement
