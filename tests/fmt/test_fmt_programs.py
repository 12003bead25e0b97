"""Every example and test program: printed IR is already formatted, and formatting is
idempotent and keeps the IR."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest
from fmt_support import EXAMPLES, PROGRAMS

from ptoc.fmt import format_source
from ptoc.frontend import analyze_source
from ptoc.ir import structural_equal
from ptoc.printer import print_program

SOURCES = sorted(EXAMPLES.rglob("*.py")) + sorted(PROGRAMS.glob("*.py"))


def source_id(path: Path) -> str:
    return path.relative_to(path.parents[1]).as_posix()


def scramble(text: str) -> str:
    """The same tokens with Python's crude spacing (``pl .load (a ,[0 ,0 ])``): valid, same
    AST, badly formatted."""
    tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)]
    return tokenize.untokenize(tokens)


def same_programs(a: str, b: str) -> bool:
    before, after = analyze_source(a).all_programs(), analyze_source(b).all_programs()
    return [p.name for p in before] == [p.name for p in after] and all(
        structural_equal(x, y) for x, y in zip(before, after, strict=True)
    )


def test_there_are_sources_to_test() -> None:
    assert len(list(EXAMPLES.rglob("*.py"))) >= 5
    assert len(list(PROGRAMS.glob("*.py"))) >= 2


@pytest.mark.parametrize("path", SOURCES, ids=source_id)
@pytest.mark.parametrize("line_length", [88, 60])
def test_printed_ir_is_already_formatted(path: Path, line_length: int) -> None:
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    programs = analysis.all_programs()
    assert programs and not analysis.has_errors
    for program in programs:
        printed = print_program(program, line_length=line_length)
        result = format_source(printed, "printed.py", line_length)
        assert (result.status, result.reason) == ("unchanged", "")


@pytest.mark.parametrize("path", SOURCES, ids=source_id)
def test_formatting_a_scrambled_source_is_safe_and_idempotent(path: Path) -> None:
    original = path.read_text(encoding="utf-8")
    scrambled = scramble(original)
    assert scrambled != original

    first = format_source(scrambled, str(path))
    assert first.status == "formatted", first.reason
    assert same_programs(original, first.text)
    assert format_source(first.text, str(path)).status == "unchanged"


@pytest.mark.parametrize("path", SOURCES, ids=source_id)
def test_formatting_the_source_itself_is_idempotent(path: Path) -> None:
    original = path.read_text(encoding="utf-8")
    first = format_source(original, str(path))
    assert first.status in ("formatted", "unchanged"), first.reason
    assert same_programs(original, first.text)
    second = format_source(first.text, str(path))
    assert (second.status, second.text) == ("unchanged", first.text)


@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.py")), ids=source_id)
def test_the_test_programs_are_formatted(path: Path) -> None:
    assert format_source(path.read_text(encoding="utf-8"), str(path)).status == "unchanged"
