"""``ptoc compile --target pto --verify`` and ``--target pto-cpp``: PTOAS's verdict as
diagnostics on the kernel's source lines, and the C++ it makes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kernels_rejected import (
    INT8_COLUMN_SUM,
    INT8_COLUMN_SUM_LINE,
    INT8_COLUMN_SUM_MESSAGE,
    ROW_LOOP,
    ROW_LOOP_LINE,
    ROW_LOOP_MESSAGE,
)

from ptoc.cli import main
from ptoc.codegen.pto.ptoas import (
    PtoasDiagnostic,
    PtoasMissing,
    PtoasResult,
    find_ptoas,
    located,
    parse_diagnostics,
    ptoas_version,
    vendor_ptoas,
)
from ptoc.codegen.pto.ptoas_known import carried_tensor_views
from ptoc.diagnostics import Related, Severity
from ptoc.ir.span import Span

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# What PTOAS v0.27 prints for an op its verifier rejects (its pass pipeline's debug lines
# around the diagnostic carry no location).
OUTPUT = """DEBUG: Start PTOToEmitC Pass
loc("kernel.pto":27:5): error: 'pto.tand' op expects i8/i16
loc("kernel.pto":3:1): note: see current operation
Error: Pass execution failed.
"""


def test_parse_diagnostics_reads_located_errors_and_notes() -> None:
    assert parse_diagnostics(OUTPUT) == [
        PtoasDiagnostic("error", "'pto.tand' op expects i8/i16", 27, 5),
        PtoasDiagnostic("note", "see current operation", 3, 1),
    ]
    assert parse_diagnostics("Error: Failed to parse MLIR.\n") == []  # only the summary
    assert parse_diagnostics("error: unknown option\n") == [
        PtoasDiagnostic("error", "unknown option")
    ]


def test_located_maps_mlir_lines_to_the_statements_they_came_from() -> None:
    statement, program = Span("k.py", 12, 8, 12, 60), Span("k.py", 5, 0, 14, 0)
    spans: list[Span | None] = [None] * 30
    spans[26] = statement  # MLIR line 27
    result = PtoasResult(False, "", parse_diagnostics(OUTPUT))
    (diagnostic,) = located(result, spans, program)
    assert (diagnostic.code, diagnostic.severity, diagnostic.span) == (
        "E405",
        Severity.ERROR,
        statement,
    )
    assert diagnostic.message == "PTOAS: 'pto.tand' op expects i8/i16 (MLIR line 27)"
    # a line generated for no statement (line 3) falls back to the program
    assert diagnostic.related == (
        Related(program, "PTOAS note: see current operation (MLIR line 3)"),
    )


def test_find_ptoas_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PtoasMissing, match=r"PTOAS not found at '/nonexistent' \(--ptoas\)"):
        find_ptoas("/nonexistent")
    monkeypatch.setenv("PTOAS", str(tmp_path))  # a directory is no binary
    with pytest.raises(PtoasMissing, match=r"\(PTOAS\): pass --ptoas PATH or set PTOAS"):
        find_ptoas()
    binary = tmp_path / "ptoas"
    binary.write_text("#!/bin/sh\n")
    os.chmod(binary, 0o755)
    monkeypatch.setenv("PTOAS", str(binary))
    assert find_ptoas() == binary.resolve()


# `ptoc compile examples/simple_add.py --target pto --verify --ptoas` (the binary to follow).
VERIFY_SIMPLE_ADD = [
    "compile",
    str(EXAMPLES / "simple_add.py"),
    "--target",
    "pto",
    "--verify",
    "--ptoas",
]


def test_verify_without_ptoas_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*VERIFY_SIMPLE_ADD, "/nonexistent"])
    assert code == 2
    assert capsys.readouterr().err.startswith(
        "ptoc: error: PTOAS not found at '/nonexistent' (--ptoas): pass --ptoas PATH"
    )


def test_verify_is_for_pto_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "simple_add.py"), "--target", "cce", "--verify"]) == 2
    assert "--verify checks PTO MLIR: use it with --target pto" in capsys.readouterr().err


def test_verify_accepts_a_valid_kernel(ptoas: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*VERIFY_SIMPLE_ADD, str(ptoas)])
    captured = capsys.readouterr()
    assert (code, captured.err) == (0, "")
    assert captured.out.startswith(
        'module attributes {pto.target_arch = "a2a3"} {\n  func.func @simple_add('
    )


def test_verify_reports_ptoas_errors_on_the_kernel_line(
    ptoas: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = tmp_path / "bad.py"
    kernel.write_text(INT8_COLUMN_SUM)
    assert verify(kernel, ptoas, capsys) == [
        f"{kernel}:{INT8_COLUMN_SUM_LINE}:9: error[E405]: {INT8_COLUMN_SUM_MESSAGE} (MLIR line 27)"
    ]
    written = tmp_path / "out.pto"
    argv = ["compile", str(kernel), "--target", "pto", "--verify", "--ptoas", str(ptoas)]
    assert main([*argv, "-o", str(written)]) == 1
    assert not written.exists()  # no output file from a failed compile


def verify(kernel: Path, ptoas: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The error lines of ``ptoc compile KERNEL --target pto --verify``, which must fail and
    still print the MLIR PTOAS was not happy with (as without --verify): the text to look at."""
    code = main(["compile", str(kernel), "--target", "pto", "--verify", "--ptoas", str(ptoas)])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == mlir_of(kernel, capsys)
    return captured.err.splitlines()


def mlir_of(kernel: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``ptoc compile --target pto`` prints for ``kernel`` (no PTOAS)."""
    assert main(["compile", str(kernel), "--target", "pto"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("module ")
    return out


def test_ptoas_v027_is_not_handed_a_loop_carrying_a_tensor_view(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v027 = require(vendor_ptoas("0.27"))
    kernel = tmp_path / "rows.py"
    kernel.write_text(ROW_LOOP)
    assert verify(kernel, v027, capsys) == [
        f"{kernel}:{ROW_LOOP_LINE}:9: error[E405]: {ROW_LOOP_MESSAGE}"
    ]
    v057 = vendor_ptoas("0.57")
    if v057.is_file():  # the newer PTOAS is handed the same MLIR and accepts it
        code = main(["compile", str(kernel), "--target", "pto", "--verify", "--ptoas", str(v057)])
        assert (code, capsys.readouterr().err) == (0, "")


def require(ptoas: Path) -> Path:
    if not ptoas.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS v0.27 is missing at {ptoas}")
        pytest.skip(f"PTOAS v0.27 not found at {ptoas}")
    return ptoas


def test_loops_carrying_tensor_views_are_found_in_the_mlir() -> None:
    tile = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64>"
    mlir = (
        "module {\n"
        f"  %4:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %0, %o = %3) -> ({tile},"
        " !pto.tensor_view<?x?xf32>) {\n"
        f"    %5 = scf.for %j = %c0 to %c4 step %c1 iter_args(%u = %0) -> ({tile}) {{\n"
    )
    assert carried_tensor_views(mlir) == [(2, 10, ["%o"])]


def test_pto_cpp_is_the_cpp_ptoas_makes(ptoas: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["compile", str(EXAMPLES / "simple_add.py"), "--target", "pto-cpp", "--ptoas", str(ptoas)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith('#include "pto/pto-inst.hpp"\n')
    entry = 'extern "C" __global__ AICORE void simple_add(__gm__ float* v1, __gm__ float* v2, '
    assert entry in out  # v0.57: an entry, since the kernel is marked pto.entry
    assert "  TADD(" in out


def test_pto_cpp_without_ptoas_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from ptoc import driver

    monkeypatch.setenv("PTOAS", "/nonexistent")
    result = driver.compile_source((EXAMPLES / "simple_add.py").read_text(), "pto-cpp")
    assert result.diagnostics == [] and result.language == "cpp"
    assert result.text.startswith("// PTOAS not found at '/nonexistent' (PTOAS): pass --ptoas PATH")
    assert driver.available_ptoas() is None


def test_the_default_ptoas_is_v057_and_a_version_is_checked(
    ptoas_each: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PTOAS", raising=False)
    version = ptoas_version(ptoas_each)
    assert version in ("0.57", "0.27")
    if ptoas_each == vendor_ptoas(version):
        assert find_ptoas(version=version) == ptoas_each
    if ptoas_each == vendor_ptoas():
        assert (find_ptoas(), version) == (ptoas_each, "0.57")
    other = "0.27" if version == "0.57" else "0.57"
    with pytest.raises(PtoasMissing) as raised:
        find_ptoas(str(ptoas_each), other)
    said = f"PTOAS at '{ptoas_each.resolve()}' (--ptoas) is v{version}, not v{other}"
    assert str(raised.value) == said


def test_pto_cpp_of_each_version(ptoas_each: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = ptoas_version(ptoas_each)
    assert version is not None
    code = main(
        ["compile", str(EXAMPLES / "simple_add.py"), "--target", "pto-cpp"]
        + ["--ptoas", str(ptoas_each), "--ptoas-version", version]
    )
    out = capsys.readouterr().out
    assert code == 0
    # v0.27 writes no extern "C"; both make the kernel an entry
    extern = 'extern "C" ' if version == "0.57" else ""
    assert f"\n{extern}__global__ AICORE void simple_add(__gm__ float* v1, " in out


def test_an_unknown_ptoas_version_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compile", str(EXAMPLES / "simple_add.py"), "--ptoas-version", "0.3"])
    assert code == 2
    assert "--ptoas-version 0.3: supported are 0.57, 0.27" in capsys.readouterr().err
