"""The checker on hand-written synchronisation (``mistakes.py``: one kernel per kind of
mistake, each expected finding marked ``# expect: CODE`` on its line), compiled with the
``ptoas`` pipeline so that no sync is inserted or removed, and from the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.diagnostics import Diagnostic
from ptoc.driver import compile_source
from ptoc.passes.sync_check import verify_program

MISTAKES = Path(__file__).with_name("mistakes.py")
TEXT = MISTAKES.read_text(encoding="utf-8")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def expected() -> dict[str, set[tuple[int, str]]]:
    """Function -> the (line, code) pairs marked in it."""
    found: dict[str, set[tuple[int, str]]] = {}
    function = ""
    for number, line in enumerate(TEXT.splitlines(), start=1):
        header = re.match(r"\s+def (\w+)\(", line)
        if header:
            function = header.group(1)
            found[function] = set()
        marked = re.search(r"# expect: ([E0-9 ]+)$", line)
        if marked:
            found[function] |= {(number, code) for code in marked.group(1).split()}
    return found


EXPECTED = expected()


def checked(function: str) -> list[Diagnostic]:
    """The checker on ``function`` after the ptoas pipeline (which inserts no sync)."""
    result = compile_source(TEXT, "ir", function, "ptoas", path=str(MISTAKES))
    assert not result.has_errors, [d.format() for d in result.diagnostics]
    (output,) = result.programs
    assert output.pipeline is not None
    return verify_program(output.pipeline.program)


def findings(function: str) -> set[tuple[int, str]]:
    return {(d.span.line, d.code) for d in checked(function)}


def test_every_kind_of_mistake_has_a_kernel() -> None:
    codes = {code for marks in EXPECTED.values() for _, code in marks}
    assert codes == {"E410", "E411", "E412", "E413", "E414", "E415"}
    assert EXPECTED["correct"] == set() and EXPECTED["ping_pong"] == set()


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_the_checker_reports_exactly_the_marked_lines(function: str) -> None:
    assert findings(function) == EXPECTED[function]


def test_a_hazard_names_both_lines_and_the_missing_pair() -> None:
    (finding,) = checked("missing_wait")
    assert finding.message == (
        "V reads Vec [0x0, 0x1000), which MTE2 wrote at line 31, and no sync orders them "
        "(read after write): a MTE2→V set/wait pair is missing"
    )
    assert (finding.span.line, finding.span.column) == (32, 8)
    assert [(r.span.line, r.message) for r in finding.related] == [(31, "the MTE2 access")]


def test_verify_sync_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    def compile_(function: str, *more: str) -> int:
        args = ["compile", str(MISTAKES), "--function", function, "--target", "ir", *more]
        return main(args)

    assert compile_("wrong_event", "--pipeline", "ptoas", "--verify-sync") == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{MISTAKES}:47:9: error[E410]: V reads Vec" in captured.err
    assert f"{MISTAKES}:46:9: error[E415]: sync_dst of MTE2→V event 1" in captured.err
    # Without the flag nothing is checked; with the default pipeline InsertSync syncs it.
    assert compile_("wrong_event", "--pipeline", "ptoas") == 0
    assert compile_("wrong_event", "--verify-sync") == 0
    # After the ptoas pipeline a function with no sync of its own has nothing to check (PTOAS
    # schedules it); after the default pipeline InsertSync's is checked.
    assert compile_("missing_wait", "--pipeline", "ptoas", "--verify-sync") == 0
    assert compile_("missing_wait", "--verify-sync") == 0
    assert "error" not in capsys.readouterr().err


def test_printed_ir_with_one_wait_removed_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a user meets: the IR after InsertSync, printed, one sync_dst deleted, compiled
    with the ptoas pipeline (which inserts no sync)."""
    source = str(EXAMPLES / "simple_add.py")
    assert main(["compile", source, "--target", "ir"]) == 0
    printed = capsys.readouterr().out
    wait = re.search(r"\n( +)pl\.system\.sync_dst\(\n.*?\n\1\)", printed, re.DOTALL)
    assert wait is not None and "wait_pipe=pl.PipeType.V" in wait.group(0)
    broken = tmp_path / "broken.py"
    broken.write_text(printed[: wait.start()] + printed[wait.end() :], encoding="utf-8")
    assert main(["compile", str(broken), "--pipeline", "ptoas", "--verify-sync"]) == 1
    err = capsys.readouterr().err
    assert "error[E410]: V reads" in err and "error[E412]: sync_src of MTE2→V event 0" in err
    intact = tmp_path / "intact.py"
    intact.write_text(printed, encoding="utf-8")
    assert main(["compile", str(intact), "--pipeline", "ptoas", "--verify-sync"]) == 0


def test_check_reports_the_sync_a_function_holds(capsys: pytest.CaptureFixture[str]) -> None:
    """``ptoc check`` (and the editor, through the same driver call) checks the sync written
    in a function; a function without any (missing_wait) gets InsertSync's when compiled."""
    assert main(["check", str(MISTAKES)]) == 1
    reported = {
        (int(m[1]), m[2])
        for m in re.finditer(r"mistakes\.py:(\d+):\d+: error\[(E4\d\d)\]", capsys.readouterr().out)
    }
    marked = {
        mark for function, marks in EXPECTED.items() if function != "missing_wait" for mark in marks
    }
    assert reported == marked


def test_a_barrier_alone_leaves_the_flags_to_insert_sync(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "barrier.py"
    source.write_text(
        "import pypto.language as pl\n\n\n@pl.program\nclass B:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[32, 32], pl.FP32]):\n"
        "        t = pl.load(x, [0, 0], [32, 32])\n"
        "        pl.system.bar_all()\n"
        "        _u = pl.exp(t)\n",
        encoding="utf-8",
    )
    assert main(["check", str(source)]) == 0
    assert "E41" not in capsys.readouterr().out
    assert main(["compile", str(source), "--target", "ir", "--verify-sync"]) == 0
