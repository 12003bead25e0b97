"""`ptoc print`: canonical IR of every program in a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_samples import BROKEN, BROKEN_COLUMN, BROKEN_LINE, EXAMPLES, TWO_KERNELS, run_ptoc

from ptoc.cli import main
from ptoc.fmt import format_source
from ptoc.frontend import analyze_source
from ptoc.ir.function import Program
from ptoc.printer import print_program

Write = Callable[[str, str], Path]


def programs_of(path: Path) -> list[Program]:
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert not analysis.has_errors
    return analysis.all_programs()


def test_prints_the_canonical_form_of_every_program() -> None:
    path = EXAMPLES / "simple_add.py"
    (program,) = programs_of(path)

    result = run_ptoc("print", str(path))

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == print_program(program)
    assert result.stdout.startswith("# pypto.program: SimpleAdd\nimport pypto.language as pl\n")


def test_printed_output_checks_clean_and_prints_identically(tmp_path: Path) -> None:
    first = run_ptoc("print", str(EXAMPLES / "loop_sum.py"))
    assert first.returncode == 0
    printed = tmp_path / "printed.py"
    printed.write_text(first.stdout, encoding="utf-8")

    assert run_ptoc("check", str(printed)).returncode == 0
    second = run_ptoc("print", str(printed))
    assert (second.returncode, second.stdout) == (0, first.stdout)


def test_prefix_and_line_length_are_passed_to_the_printer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = EXAMPLES / "simple_add.py"
    (program,) = programs_of(path)

    assert main(["print", "--prefix", "ir", "--line-length", "120", str(path)]) == 0

    out = capsys.readouterr().out
    assert out == print_program(program, prefix="ir", line_length=120)
    assert "import pypto.language as ir\n" in out


def test_function_selects_one_function(write: Write, capsys: pytest.CaptureFixture[str]) -> None:
    path = write("pair.py", TWO_KERNELS)

    assert main(["print", "--function", "square", str(path)]) == 0

    out = capsys.readouterr().out
    assert "def square(" in out
    assert "def double(" not in out
    assert out.startswith("# pypto.program: Pair\n")


def test_unknown_function_is_a_usage_error(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("pair.py", TWO_KERNELS)

    assert main(["print", "--function", "cube", str(path)]) == 2

    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"ptoc: error: no function named 'cube' in '{path}'\n"


def test_errors_print_diagnostics_and_nothing_else(write: Write) -> None:
    path = write("broken.py", BROKEN)

    result = run_ptoc("print", str(path))

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"{path}:{BROKEN_LINE}:{BROKEN_COLUMN}: error[E200]: ")


def test_missing_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "gone.py"
    assert main(["print", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"ptoc: error: cannot read '{missing}': no such file or directory\n"
    )


def test_a_directory_is_not_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["print", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"ptoc: error: cannot read '{tmp_path}': it is a directory\n"


@pytest.mark.parametrize("value", ["0", "-3", "wide"])
def test_line_length_must_be_a_positive_integer(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["print", "--line-length", value, str(EXAMPLES / "simple_add.py")]) == 2
    assert f"expected a positive integer, got '{value}'" in capsys.readouterr().err


def test_a_standalone_function_a_program_calls_is_printed_once(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        "shared.py",
        """import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def helper(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return x


@pl.function
def alone(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return x


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = helper(x)
        return y
""",
    )
    assert main(["print", str(path)]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("# pypto.program")] == [
        "# pypto.program: P",
        "# pypto.program: alone",
    ]
    assert out.count("def helper(") == 1
    assert out.count("def alone(") == 1


def test_several_programs_print_as_ptoc_fmt_keeps_them(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    again = TWO_KERNELS.split("\n\n\n", 1)[1].replace("Pair", "Again")
    path = write("two.py", TWO_KERNELS + "\n\n" + again)
    assert main(["print", str(path)]) == 0
    out = capsys.readouterr().out
    # Black's two blank lines between top-level definitions, not one.
    assert "out)\n\n\n# pypto.program: Again\nimport pypto.language as pl\n" in out
    assert format_source(out, "printed.py", 88, explicit=True).status == "unchanged"


def test_edition_flag_holds_for_its_own_run_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--edition`` of one in-process run does not leak into the next (tests call ``main``)."""
    kernel = tmp_path / "loop.py"
    kernel.write_text(
        "import pypto.language as pl\n\n\n"
        "@pl.function(type=pl.FunctionType.InCore)\n"
        "def k(x: pl.Scalar[pl.INT64]):\n"
        "    for i in pl.range(4):\n"
        "        y = i + 1\n",
        encoding="utf-8",
    )
    assert main(["print", "--edition", "2026-08", str(kernel)]) == 0
    assert "y: pl.Scalar[pl.INDEX] = i + 1" in capsys.readouterr().out
    assert main(["print", str(kernel)]) == 0  # no spelling ties it: 2026-03's meanings
    assert "y: pl.Scalar[pl.INT64] = i + 1" in capsys.readouterr().out
