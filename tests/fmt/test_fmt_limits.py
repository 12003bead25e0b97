"""Texts too large for black to format in reasonable time are refused at once, with the size
and the limit, before the front end or black runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.fmt import FormatResult, format_source, formatter

HEADER = "import pypto.language as pl\n\n"


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object) -> None:
        raise AssertionError("a refused text must not be analysed or formatted")

    monkeypatch.setattr(formatter, "analyze", forbidden)
    monkeypatch.setattr(formatter, "black_format", forbidden)


def test_a_file_over_the_size_limit_is_refused(nothing_runs: None) -> None:
    text = HEADER + "x = 1\n" * 50_000  # 300,029 characters
    assert format_source(text, "big.py") == FormatResult(
        False,
        text,
        "refused",
        "the file has 300,029 characters; ptoc fmt formats at most 262,144 (black would take "
        "minutes)",
    )


def test_a_line_over_the_length_limit_is_refused(nothing_runs: None) -> None:
    text = HEADER + "x = [" + "1, " * 30_000 + "]\n"
    assert format_source(text, "wide.py").reason == (
        "line 3 has 90,006 characters; ptoc fmt formats lines of at most 65,536 (black would "
        "take minutes)"
    )


def test_at_the_limits_a_file_is_still_formatted() -> None:
    text = HEADER + "x = [" + "1," * 1000 + "]\n"
    assert format_source(text, "k.py").status == "formatted"
    assert formatter.size_problem("x" * formatter.MAX_LINE_CHARS) is None
    assert formatter.size_problem("x\n" * (formatter.MAX_CHARS // 2)) is None


def test_the_command_names_the_file_and_exits_1(
    write: Callable[[str, str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    wide = write("wide.py", HEADER + "x = [" + "1, " * 30_000 + "]\n")
    assert main(["fmt", str(wide)]) == 1
    assert capsys.readouterr().err == (
        f"ptoc: error: refusing to reformat {wide}: line 3 has 90,006 characters; ptoc fmt "
        "formats lines of at most 65,536 (black would take minutes)\n"
        "0 files reformatted, 0 unchanged, 1 refused\n"
    )
