"""``ptoc fmt``: writing, --check, --diff, exit codes, directory walks, configuration."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import black
import pytest

from ptoc.cli import main

Write = Callable[[str, str], Path]

MESSY = (
    "import pypto.language as pl\n"
    "@pl.function\n"
    "def f(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
    "    b: pl.Tensor[[64,64], pl.FP32] = pl.add(a,a)\n"
    "    return b\n"
)
CLEAN = (
    "import pypto.language as pl\n"
    "\n"
    "\n"
    "@pl.function\n"
    "def f(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
    "    b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, a)\n"
    "    return b\n"
)
BROKEN = "import pypto.language as pl\n\nx = pl.add(a,\n"
PLAIN_MESSY = "x = [1,2,\n  3]\n"


def fmt(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["fmt", *(str(a) for a in args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_fmt_rewrites_the_file_in_place(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("k.py", MESSY)
    assert fmt(capsys, path) == (0, "", f"reformatted {path}\n1 file reformatted, 0 unchanged\n")
    assert path.read_text(encoding="utf-8") == CLEAN
    assert fmt(capsys, path) == (0, "", "0 files reformatted, 1 unchanged\n")


def test_the_write_is_atomic_and_keeps_the_file_mode(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", MESSY)
    path.chmod(0o751)
    inode_before = path.stat().st_ino
    assert fmt(capsys, path)[0] == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert path.stat().st_ino != inode_before  # replaced by a new file, not rewritten in place
    assert sorted(os.listdir(path.parent)) == ["k.py"]  # no temporary file left behind


def test_a_symlink_stays_a_symlink(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    target = write("real/k.py", MESSY)
    link = target.parent.parent / "link.py"
    link.symlink_to(target)
    assert fmt(capsys, link)[0] == 0
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == CLEAN


def test_check_writes_nothing_and_exits_1(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    messy, clean = write("a.py", MESSY), write("b.py", CLEAN)
    assert fmt(capsys, "--check", messy, clean) == (
        1,
        f"would reformat {messy}\n",
        "1 file would be reformatted, 1 unchanged\n",
    )
    assert messy.read_bytes() == MESSY.encode()
    assert fmt(capsys, "--check", clean) == (0, "", "0 files would be reformatted, 1 unchanged\n")


def test_diff_prints_a_unified_diff_and_writes_nothing(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", MESSY)
    expected_diff = (
        f"--- {path} (original)\n"
        f"+++ {path} (formatted)\n"
        "@@ -1,5 +1,7 @@\n"
        " import pypto.language as pl\n"
        "+\n"
        "+\n"
        " @pl.function\n"
        " def f(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        "-    b: pl.Tensor[[64,64], pl.FP32] = pl.add(a,a)\n"
        "+    b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, a)\n"
        "     return b\n"
    )
    assert fmt(capsys, "--diff", path) == (
        0,
        expected_diff,
        "1 file would be reformatted, 0 unchanged\n",
    )
    assert path.read_bytes() == MESSY.encode()
    code, out, _ = fmt(capsys, "--diff", "--check", path)
    assert (code, out) == (1, expected_diff + f"would reformat {path}\n")


def test_diff_marks_a_missing_final_newline(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", CLEAN.rstrip("\n"))
    code, out, _ = fmt(capsys, "--diff", path)
    assert code == 0
    assert out.endswith("-    return b\n\\ No newline at end of file\n+    return b\n")


def test_a_file_that_does_not_parse_is_untouched_and_exits_2(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    broken, messy = write("broken.py", BROKEN), write("messy.py", MESSY)
    assert fmt(capsys, broken, messy) == (
        2,
        "",
        f"ptoc: error: cannot format {broken}:3:11: '(' was never closed\n"
        f"reformatted {messy}\n"
        "1 file reformatted, 0 unchanged, 1 failed\n",
    )
    assert broken.read_bytes() == BROKEN.encode()


def test_a_refused_file_is_untouched_and_exits_1(
    write: Write, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = black.format_str

    def meaning_changing_black(src_contents: str, *, mode: black.Mode) -> str:
        return real(src_contents, mode=mode).replace("pl.add(a, a)", "pl.sub(a, a)")

    monkeypatch.setattr(black, "format_str", meaning_changing_black)
    path = write("k.py", MESSY)
    assert fmt(capsys, path) == (
        1,
        "",
        f"ptoc: error: refusing to reformat {path}: black changed the meaning of the code "
        "(the statement at line 6 of its output differs)\n"
        "0 files reformatted, 0 unchanged, 1 refused\n",
    )
    assert path.read_bytes() == MESSY.encode()


def test_missing_and_undecodable_files_exit_2(
    write: Write, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"import pypto.language as pl\nx = '\xe9'\n")
    code, out, err = fmt(capsys, tmp_path / "missing.py", latin)
    assert (code, out) == (2, "")
    assert err == (
        f"ptoc: error: cannot read '{tmp_path / 'missing.py'}': no such file or directory\n"
        f"ptoc: error: cannot read '{latin}': not valid UTF-8 (byte 0xe9 on line 2)\n"
        "0 files reformatted, 0 unchanged, 2 failed\n"
    )


def test_a_directory_walk_formats_only_pypto_files(
    write: Write, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kernel = write("pkg/kernel.py", MESSY)
    write("pkg/sub/clean.py", CLEAN)
    plain = write("pkg/plain.py", PLAIN_MESSY)
    mentions = write("pkg/mentions.py", "KERNEL = 'import pypto.language as pl'\nx = [1,2]\n")
    hidden = [
        write("pkg/.hidden/k.py", MESSY),
        write("pkg/.venv/k.py", MESSY),
        write("pkg/node_modules/k.py", MESSY),
    ]
    write("pkg/notes.txt", MESSY)
    assert fmt(capsys, tmp_path / "pkg") == (
        0,
        "",
        f"reformatted {kernel}\n1 file reformatted, 1 unchanged\n",
    )
    assert plain.read_text(encoding="utf-8") == PLAIN_MESSY
    assert (
        mentions.read_text(encoding="utf-8")
        == "KERNEL = 'import pypto.language as pl'\nx = [1,2]\n"
    )
    assert all(p.read_text(encoding="utf-8") == MESSY for p in hidden)


def test_a_directory_walk_reports_a_kernel_that_does_not_parse(
    write: Write, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = write("pkg/broken.py", BROKEN)
    assert fmt(capsys, "--check", tmp_path / "pkg") == (
        2,
        "",
        f"ptoc: error: cannot format {broken}:3:11: '(' was never closed\n"
        "0 files would be reformatted, 0 unchanged, 1 failed\n",
    )


def test_printed_ir_files_are_found_by_a_directory_walk(
    write: Write, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    printed = write(
        "ir/p.py", "# pypto.program: p\ndef f(x: pl.INT64) -> pl.INT64:\n    return x+1\n"
    )
    assert fmt(capsys, tmp_path / "ir") == (
        0,
        "",
        f"reformatted {printed}\n1 file reformatted, 0 unchanged\n",
    )
    assert printed.read_text(encoding="utf-8") == (
        "# pypto.program: p\ndef f(x: pl.INT64) -> pl.INT64:\n    return x + 1\n"
    )


def test_a_file_named_explicitly_is_formatted_without_pypto(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = write("plain.py", PLAIN_MESSY)
    assert fmt(capsys, "--pypto-only", plain) == (0, "", "0 files reformatted, 0 unchanged\n")
    assert plain.read_text(encoding="utf-8") == PLAIN_MESSY
    assert fmt(capsys, plain)[0] == 0
    assert plain.read_text(encoding="utf-8") == "x = [1, 2, 3]\n"


def test_crlf_files_keep_their_newlines(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("k.py", MESSY.replace("\n", "\r\n"))
    assert fmt(capsys, path)[0] == 0
    assert path.read_bytes() == CLEAN.replace("\n", "\r\n").encode()


# --- configuration --------------------------------------------------------------------------------

LONG = "import pypto.language as pl\n\nSHAPE = [128, 128, 128, 128]\n"
WRAPPED = "import pypto.language as pl\n\nSHAPE = [\n    128,\n    128,\n    128,\n    128,\n]\n"


def test_line_length_comes_from_the_nearest_pyproject(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nline-length = 20\nprefix = 'pl'\n")
    path = write("proj/src/deep/s.py", LONG)
    assert fmt(capsys, path)[0] == 0
    assert path.read_text(encoding="utf-8") == WRAPPED


def test_the_flag_beats_the_configuration(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nline-length = 20\n")
    path = write("proj/s.py", LONG)
    assert fmt(capsys, "--line-length", "88", path) == (0, "", "0 files reformatted, 1 unchanged\n")


def test_the_nearest_pyproject_wins_even_without_a_ptoc_table(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nline-length = 20\n")
    write("proj/inner/pyproject.toml", "[project]\nname = 'inner'\n")
    path = write("proj/inner/s.py", LONG)
    assert fmt(capsys, path) == (0, "", "0 files reformatted, 1 unchanged\n")


def test_a_repository_root_ends_the_search(
    write: Write, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write("proj/pyproject.toml", "[tool.ptoc]\nline-length = 20\n")
    (tmp_path / "proj" / "repo" / ".git").mkdir(parents=True)
    path = write("proj/repo/s.py", LONG)
    assert fmt(capsys, path) == (0, "", "0 files reformatted, 1 unchanged\n")


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        (
            "[tool.ptoc]\nline-length = 'wide'\n",
            "[tool.ptoc] line-length must be a positive integer, got 'wide'",
        ),
        (
            "[tool.ptoc]\nline-length = 0\n",
            "[tool.ptoc] line-length must be a positive integer, got 0",
        ),
        (
            "[tool.ptoc]\nprefix = 'not a name'\n",
            "[tool.ptoc] prefix must be a Python name, got 'not a name'",
        ),
    ],
)
def test_a_bad_configuration_exits_2(
    write: Write, capsys: pytest.CaptureFixture[str], toml: str, problem: str
) -> None:
    config = write("proj/pyproject.toml", toml)
    path = write("proj/s.py", MESSY)
    assert fmt(capsys, path) == (
        2,
        "",
        f"ptoc: error: '{config}': {problem}\n0 files reformatted, 0 unchanged, 1 failed\n",
    )
    assert path.read_text(encoding="utf-8") == MESSY


def test_invalid_toml_exits_2(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    config = write("proj/pyproject.toml", "[tool.ptoc\n")
    path = write("proj/s.py", MESSY)
    code, _, err = fmt(capsys, path)
    assert code == 2
    assert err.startswith(f"ptoc: error: '{config}' is not valid TOML: ")


# --- the installed command ------------------------------------------------------------------------


def test_python_dash_m_ptoc_fmt(write: Write) -> None:
    path = write("k.py", MESSY)
    result = subprocess.run(
        [sys.executable, "-m", "ptoc", "fmt", "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        f"would reformat {path}\n",
        "1 file would be reformatted, 0 unchanged\n",
    )
