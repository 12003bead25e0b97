"""`ptoc check`: output formats, ordering, directory walking and exit codes.

Two kinds of test: in-process ones with a stand-in front end (so the exact text of the output
is known independently of the front end's messages), and end-to-end ones that run
`python -m ptoc` on real files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import BROKEN, BROKEN_COLUMN, BROKEN_LINE, EXAMPLES, PLAIN, run_ptoc

import ptoc.driver
import ptoc.frontend
from ptoc.cli import main
from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import analyze_source
from ptoc.frontend.analysis import ModuleAnalysis
from ptoc.ir.span import Span

Write = Callable[[str, str], Path]


def diag(
    path: str, line: int, column: int, code: str, severity: Severity, message: str
) -> Diagnostic:
    return Diagnostic(code, severity, message, Span(path, line, column, line, column + 3))


@pytest.fixture
def fake_front_end(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Diagnostic]]:
    """Replace the front end: every file that mentions pypto gets the diagnostics registered
    for its path (file name) in the returned dict."""
    planned: dict[str, list[Diagnostic]] = {}

    def analyze(text: str, path: str = "<string>") -> ModuleAnalysis:
        uses = "pypto" in text
        found = [
            Diagnostic(d.code, d.severity, d.message, Span(path, *_position(d.span)))
            for d in planned.get(os.path.basename(path), [])
        ]
        return ModuleAnalysis(path=path, text=text, uses_pypto=uses, diagnostics=found)

    monkeypatch.setattr(ptoc.frontend, "analyze_source", analyze)
    return planned


def _position(span: Span) -> tuple[int, int, int, int]:
    return span.line, span.column, span.end_line, span.end_column


# --- exact output, with a stand-in front end ------------------------------------------------------


def test_text_output_is_sorted_by_file_then_position(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:
    b = write("b.py", "import pypto.language as pl\n")
    a = write("a.py", "import pypto.language as pl\n")
    fake_front_end["b.py"] = [diag("", 1, 0, "E200", Severity.ERROR, "undefined name 'q'")]
    fake_front_end["a.py"] = [
        diag("", 7, 4, "W001", Severity.WARNING, "value 't2' is never used"),
        diag("", 3, 10, "E306", Severity.ERROR, "bad operand"),
        diag("", 3, 2, "E300", Severity.ERROR, "unknown op 'lod'"),
    ]

    code = main(["check", str(b), str(a)])

    out, err = capsys.readouterr()
    assert code == 1
    assert out == (
        f"{a}:3:3: error[E300]: unknown op 'lod'\n"
        f"{a}:3:11: error[E306]: bad operand\n"
        f"{a}:7:5: warning[W001]: value 't2' is never used\n"
        f"{b}:1:1: error[E200]: undefined name 'q'\n"
    )
    assert err == "3 errors, 1 warning in 2 files\n"


def test_json_output_is_one_list_of_diagnostic_objects(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:
    k = write("k.py", "import pypto.language as pl\n")
    fake_front_end["k.py"] = [
        diag("", 4, 8, "E105", Severity.ERROR, "unknown dtype 'FP31'"),
        diag("", 2, 0, "W003", Severity.INFO, "legacy spelling"),
    ]

    code = main(["check", "--format", "json", str(k)])

    out, err = capsys.readouterr()
    assert code == 1
    assert json.loads(out) == [
        {
            "path": str(k),
            "line": 2,
            "column": 1,
            "end_line": 2,
            "end_column": 4,
            "severity": "info",
            "code": "W003",
            "message": "legacy spelling",
        },
        {
            "path": str(k),
            "line": 4,
            "column": 9,
            "end_line": 4,
            "end_column": 12,
            "severity": "error",
            "code": "E105",
            "message": "unknown dtype 'FP31'",
        },
    ]
    assert err == "1 error, 0 warnings in 1 file\n"


def test_warnings_alone_exit_zero(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:
    k = write("k.py", "import pypto.language as pl\n")
    fake_front_end["k.py"] = [diag("", 5, 0, "W001", Severity.WARNING, "unused")]

    assert main(["check", str(k)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{k}:5:1: warning[W001]: unused\n"
    assert err == "0 errors, 1 warning in 1 file\n"


def test_clean_json_is_an_empty_list(
    fake_front_end: dict[str, list[Diagnostic]], write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    k = write("k.py", "import pypto.language as pl\n")
    assert main(["check", "--format=json", str(k)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err == "0 errors, 0 warnings in 1 file\n"


def test_directory_walk_checks_only_pypto_files_outside_hidden_and_tool_dirs(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pypto = "import pypto.language as pl\n"
    for relative in (
        "proj/kernels/k1.py",
        "proj/k0.py",
        "proj/.hidden/h.py",
        "proj/.venv/lib/v.py",
        "proj/node_modules/pkg/n.py",
    ):
        write(relative, pypto)
    write("proj/plain.py", PLAIN)
    write("proj/notes.txt", pypto)
    for name in ("k1.py", "k0.py", "h.py", "v.py", "n.py", "plain.py", "notes.txt"):
        fake_front_end[name] = [diag("", 1, 0, "E200", Severity.ERROR, f"in {name}")]

    code = main(["check", str(tmp_path / "proj")])

    out, err = capsys.readouterr()
    assert code == 1
    root = tmp_path / "proj"
    assert out == (
        f"{root / 'k0.py'}:1:1: error[E200]: in k0.py\n"
        f"{root / 'kernels' / 'k1.py'}:1:1: error[E200]: in k1.py\n"
    )
    assert err == "2 errors, 0 warnings in 2 files\n"


def test_a_file_named_explicitly_is_checked_even_without_pypto(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = write("plain.py", PLAIN)
    fake_front_end["plain.py"] = [diag("", 2, 4, "E000", Severity.ERROR, "syntax")]

    assert main(["check", str(plain)]) == 1
    out, err = capsys.readouterr()
    assert out == f"{plain}:2:5: error[E000]: syntax\n"
    assert err == "1 error, 0 warnings in 1 file\n"


def test_the_same_file_twice_is_checked_once(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    k = write("d/k.py", "import pypto.language as pl\n")
    fake_front_end["k.py"] = [diag("", 1, 0, "E200", Severity.ERROR, "x")]

    assert main(["check", str(k), str(tmp_path / "d")]) == 1
    out, err = capsys.readouterr()
    assert out.count("error[E200]") == 1
    assert err == "1 error, 0 warnings in 1 file\n"


def test_a_crash_in_the_front_end_is_an_internal_error_diagnostic(
    monkeypatch: pytest.MonkeyPatch, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(text: str, path: str = "<string>") -> ModuleAnalysis:
        raise RuntimeError("boom")

    monkeypatch.setattr(ptoc.frontend, "analyze_source", explode)
    k = write("k.py", "import pypto.language as pl\n")

    assert main(["check", str(k)]) == 1
    out, err = capsys.readouterr()
    assert out == f"{k}:1:1: error[E900]: internal error in the front end: RuntimeError: boom\n"
    assert err == "1 error, 0 warnings in 1 file\n"


# --- input problems: exit 2 -----------------------------------------------------------------------


def test_missing_file_is_exit_2_and_the_other_files_are_still_checked(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    k = write("k.py", "import pypto.language as pl\n")
    fake_front_end["k.py"] = [diag("", 1, 0, "E200", Severity.ERROR, "x")]
    missing = tmp_path / "nope.py"

    assert main(["check", str(missing), str(k)]) == 2
    out, err = capsys.readouterr()
    assert out == f"{k}:1:1: error[E200]: x\n"
    assert err == (
        f"ptoc: error: cannot read '{missing}': no such file or directory\n"
        "1 error, 0 warnings in 1 file\n"
    )


def test_file_that_is_not_utf8_is_exit_2(
    fake_front_end: dict[str, list[Diagnostic]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "latin1.py"
    bad.write_bytes(b"import pypto.language as pl\nx = '\xe9'\n")

    assert main(["check", str(bad)]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"ptoc: error: cannot read '{bad}': not valid UTF-8 (byte 0xe9 on line 2)\n"
        "0 errors, 0 warnings in 0 files\n"
    )


def test_unreadable_file_is_exit_2(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    k = write("k.py", "import pypto.language as pl\n")
    real_open = open

    def denied(path: str, *args: Any) -> Any:
        # permissions do not stop root (CI), so the OS error is simulated
        if path == str(k):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args)

    monkeypatch.setattr(ptoc.driver, "open", denied, raising=False)  # the driver reads files
    assert main(["check", str(k)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith(f"ptoc: error: cannot read '{k}': Permission denied")


def test_unreadable_sub_directory_is_reported_and_exit_2(
    fake_front_end: dict[str, list[Diagnostic]],
    write: Write,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write("pkg/k.py", "import pypto.language as pl\n")
    write("pkg/locked/hidden.py", "import pypto.language as pl\n")
    locked = tmp_path / "pkg" / "locked"
    real_scandir = os.scandir

    def denied(path: str) -> object:  # os.walk lists through os.scandir; root ignores chmod
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", denied)
    assert main(["check", str(tmp_path / "pkg")]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"ptoc: error: cannot read directory '{locked}': Permission denied\n"
        "0 errors, 0 warnings in 1 file\n"
    )


def test_symlink_loop_and_dangling_link_are_named_as_such(
    fake_front_end: dict[str, list[Diagnostic]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop, dangling = tmp_path / "loop.py", tmp_path / "dangling.py"
    loop.symlink_to(loop)
    dangling.symlink_to(tmp_path / "gone.py")
    assert main(["check", str(loop), str(dangling)]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"ptoc: error: cannot read '{loop}': a symbolic link loop (too many levels of symbolic "
        "links)\n"
        f"ptoc: error: cannot read '{dangling}': a symbolic link to a missing file\n"
        "0 errors, 0 warnings in 0 files\n"
    )


def test_a_utf8_bom_is_accepted(
    fake_front_end: dict[str, list[Diagnostic]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    k = tmp_path / "bom.py"
    k.write_bytes(b"\xef\xbb\xbfimport pypto.language as pl\n")
    assert main(["check", str(k)]) == 0
    assert capsys.readouterr().err == "0 errors, 0 warnings in 1 file\n"


@pytest.mark.parametrize(
    "argv",
    [[], ["check"], ["check", "--format", "xml", "x.py"], ["frobnicate"], ["--no-such-flag"]],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err != ""


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out.split("COMMAND", 2)[2]  # (usage, then the list)
    for command in ("check", "print", "compile", "fmt", "run"):  # each command's parser built
        assert f"\n    {command} " in listed
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("ptoc ")


# --- end to end: the real front end, through `python -m ptoc` -------------------------------------


def expected_text(path: Path) -> str:
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    ordered = sorted(analysis.diagnostics, key=lambda d: (d.span.line, d.span.column))
    return "".join(d.format() + "\n" for d in ordered)


def test_clean_example_exits_0_with_no_output() -> None:
    result = run_ptoc("check", str(EXAMPLES / "simple_add.py"))
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "",
        "0 errors, 0 warnings in 1 file\n",
    )


def test_broken_kernel_exits_1_with_the_front_end_diagnostics(write: Write) -> None:
    broken = write("broken.py", BROKEN)

    result = run_ptoc("check", str(broken))

    assert result.returncode == 1
    assert result.stdout == expected_text(broken)
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{broken}:{BROKEN_LINE}:{BROKEN_COLUMN}: error[E200]: ")
    assert "missing" in first
    assert result.stderr.endswith(" in 1 file\n")


def test_broken_kernel_as_json(write: Write) -> None:
    broken = write("broken.py", BROKEN)

    result = run_ptoc("check", "--format", "json", str(broken))

    assert result.returncode == 1
    objects = json.loads(result.stdout)
    analysis = analyze_source(BROKEN, str(broken))
    assert objects == [
        d.to_json()
        for d in sorted(analysis.diagnostics, key=lambda d: (d.span.line, d.span.column))
    ]
    assert objects[0]["code"] == "E200"
    assert (objects[0]["line"], objects[0]["column"]) == (BROKEN_LINE, BROKEN_COLUMN)
    assert objects[0]["end_column"] == BROKEN_COLUMN + len("missing")
    assert set(objects[0]) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "code",
        "message",
    }


def test_directory_walk_end_to_end(write: Write, tmp_path: Path) -> None:
    write("tree/good.py", (EXAMPLES / "simple_add.py").read_text(encoding="utf-8"))
    write("tree/sub/broken.py", BROKEN)
    write("tree/plain.py", "def broken(:\n")  # not pypto: skipped, even though it is invalid
    write("tree/.cache/broken.py", BROKEN)

    result = run_ptoc("check", "tree", cwd=tmp_path)

    assert result.returncode == 1
    reported = {line.split(":", 1)[0] for line in result.stdout.splitlines()}
    assert reported == {os.path.join("tree", "sub", "broken.py")}
    assert result.stderr.endswith(" in 2 files\n")


def test_missing_file_end_to_end(tmp_path: Path) -> None:
    result = run_ptoc("check", str(tmp_path / "absent.py"))
    assert result.returncode == 2
    assert f"cannot read '{tmp_path / 'absent.py'}'" in result.stderr


# --- [tool.ptoc] strict-annotations ---------------------------------------------------------------

ANNOTATION_MISTAKES = """import pypto.language as pl


@pl.function
def f(a: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT64]:
    b: pl.Scalar[pl.INT16] = a + 1
    return a
"""


@pytest.mark.parametrize(
    ("config", "severity", "exit_code"),
    [
        ("", "warning", 0),
        ("[tool.ptoc]\nstrict-annotations = false\n", "warning", 0),
        ("[tool.ptoc]\nstrict-annotations = true\n", "error", 1),
        ("[tool.ptoc]\nstrict_annotations = true\n", "error", 1),
    ],
)
def test_strict_annotations_turns_annotation_warnings_into_errors(
    write: Write, capsys: pytest.CaptureFixture[str], config: str, severity: str, exit_code: int
) -> None:
    write("proj/pyproject.toml", config)
    path = write("proj/k.py", ANNOTATION_MISTAKES)

    assert main(["check", str(path)]) == exit_code

    out = capsys.readouterr().out
    assert out == (
        f"{path}:6:8: {severity}[W006]: annotation says Scalar[INT16] but the value is "
        f"Scalar[INT64]; "
        "the deduced type is used\n"
        f"{path}:7:12: {severity}[W007]: returns Scalar[INT32] but 'f' is annotated to return "
        "Scalar[INT64]; the deduced type is used\n"
    )


def test_strict_annotations_also_fails_print_and_compile(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nstrict-annotations = true\n")
    path = write("proj/k.py", ANNOTATION_MISTAKES)
    assert main(["print", str(path)]) == 1
    assert main(["compile", str(path), "--target", "ir"]) == 1
    assert capsys.readouterr().out == ""


def test_a_bad_strict_annotations_value_is_a_usage_error(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nstrict-annotations = 1\n")
    path = write("proj/k.py", ANNOTATION_MISTAKES)

    assert main(["check", str(path)]) == 2

    captured = capsys.readouterr()
    assert captured.out.count("warning[") == 2  # the file is still checked, with the defaults
    assert (
        f"'{path.parent / 'pyproject.toml'}': [tool.ptoc] strict-annotations must be true or "
        f"false, got 1" in captured.err
    )


WARNS_WHEN_PARSED = "import pypto.language as pl\n\nx = 1if 2 else 3\ny = [0x1for q in []]\n"


def test_python_syntax_warnings_about_the_text_stay_off_stderr(tmp_path: Path) -> None:
    """``1if`` and ``0x1for`` make CPython's parser warn ("invalid decimal literal") on stderr:
    noise about text ptoc reads and never runs (issue #33)."""
    path = tmp_path / "warns.py"
    path.write_text(WARNS_WHEN_PARSED, encoding="utf-8")
    for command in (("check", str(path)), ("fmt", "--check", str(path))):
        run = run_ptoc(*command)
        assert "Warning" not in run.stderr, run.stderr
    assert run_ptoc("check", str(path)).stderr == "0 errors, 0 warnings in 1 file\n"
