"""The printer's black step: only lines too long to fit go through black, one statement at a
time, and the result is exactly black's on the whole text."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import black
import pytest

import ptoc.printer
import ptoc.printer.module
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source
from ptoc.ir import Program
from ptoc.ir.span import Span
from ptoc.printer import black_format, print_function, print_program, print_stmt
from ptoc.printer.shapes import shape_of

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from gen_kernel import generate  # noqa: E402  (the benchmarks folder is not a package)
from sync_depth import nested_kernel  # noqa: E402

EXAMPLES = sorted((REPO / "examples").rglob("*.py"))


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every printer call also formats its whole text with black; the texts that differ."""
    fast = black_format.format_printed
    differing: list[str] = []

    def both(lines: Sequence[str], line_length: int = black_format.DEFAULT_LINE_LENGTH) -> str:
        text = fast(lines, line_length)
        if text != black_format.format_source("\n".join(lines) + "\n", line_length):
            differing.append(text)
        return text

    mapped = black_format.format_printed_mapped

    def both_mapped(
        lines: Sequence[str], line_length: int = black_format.DEFAULT_LINE_LENGTH
    ) -> tuple[str, list[Span | None]]:
        text, spans = mapped(lines, line_length)
        if text != black_format.format_source("\n".join(lines) + "\n", line_length):
            differing.append(text)
        return text, spans

    monkeypatch.setattr(ptoc.printer, "format_printed", both)
    monkeypatch.setattr(ptoc.printer.module, "format_printed_mapped", both_mapped)
    yield differing


def programs(text: str, path: str) -> list[Program]:
    analysis = analyze_source(text, path)
    assert not analysis.has_errors
    return analysis.all_programs()


CORPUS: list[tuple[str, Callable[[], str]]] = [
    *((path.name, path.read_text) for path in EXAMPLES),
    ("gen_kernel", lambda: generate(100)),
    # Deep indentation leaves a narrow width: the case where dedenting must not change black.
    ("nested", lambda: nested_kernel(16)),
]
CASES = [(name, source, 88) for name, source in CORPUS]
SIMPLE_ADD = REPO / "examples" / "simple_add.py"
CASES += [("nested", CORPUS[-1][1], 120), ("simple_add.py", SIMPLE_ADD.read_text, 24)]


@pytest.mark.parametrize(
    ("name", "source", "line_length"), CASES, ids=[f"{name}-{length}" for name, _, length in CASES]
)
def test_printed_text_is_what_black_makes_of_it(
    compared: list[str], name: str, source: Callable[[], str], line_length: int
) -> None:
    printed = 0
    for program in programs(source(), name):
        # As written, and after the whole pipeline (memrefs and sync: the longest lines).
        for stage in (program, run_pipeline(program, "default").program):
            print_program(stage, line_length=line_length)
            fn = stage.functions[-1]
            print_function(fn, prefix="ir", line_length=line_length)
            print_stmt(fn.body, line_length=line_length)
            printed += 1
    assert printed and compared == []


@pytest.fixture
def black_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = black.format_str

    def counted(text: str, *, mode: black.Mode) -> str:
        calls.append(text)
        return real(text, mode=mode)

    monkeypatch.setattr(black, "format_str", counted)
    black_format.clear_caches()
    return calls


def test_lines_that_fit_never_reach_black(black_calls: list[str]) -> None:
    (program,) = programs((REPO / "examples" / "simple_add.py").read_text(), "simple_add.py")
    text = print_program(program, line_length=200)
    assert 120 < max(len(line) for line in text.splitlines()) <= 200
    assert black_calls == []


def test_each_long_statement_shape_goes_to_black_alone_and_once(black_calls: list[str]) -> None:
    (program,) = programs(SIMPLE_ADD.read_text(), "simple_add.py")
    first = print_program(program, line_length=60)
    # Dedented, at the width its indentation leaves; names and integers blanked to their
    # shape, so the two loads (same shape) cost one call; a header gets a body.
    tensor = "aa.aaaaaa[[111, 11], aa.aaaa]"
    assert black_calls == [
        f"def aaaaaaaaaa(aaaa, a: {tensor}, a: {tensor}, aaaaaa: {tensor}) -> {tensor}:"
        "\n    pass\n",
        "aaaaaa: aa.aaaa[[111, 11], aa.aaaa] = aa.aaaaa.aaaa(a, [0, 0], [111, 11])\n",
        "aaaaaa: aa.aaaa[[111, 11], aa.aaaa] = aa.aaaaa.aaa(aaaaaa, aaaaaa)\n",
        f"aaaaaa: {tensor} = aa.aaaaa.aaaaa(aaaaaa, [0, 0], [111, 11], aaaaaa)\n",
    ]
    assert "        tile_y: pl.Tile[[128, 64], pl.FP32] = pl.block.load(\n" in first
    assert print_program(program, line_length=60) == first
    assert len(black_calls) == 4


def test_a_shape_keeps_keywords_strings_and_other_numbers() -> None:
    shape = shape_of('if x_1 and f(y, "name", 0, 1.5, 0x1F, 42, é):')
    assert shape is not None
    assert shape.text == 'if aaa and a(a, "name", 0, 1.5, 0x1F, 11, é):'
    assert shape.tokens == ("x_1", "f", "y", "42")
    laid_out = 'if aaa and a(\n    a, "name", 0, 1.5, 0x1F, 11, é\n):'
    assert shape.restore(laid_out) == 'if x_1 and f(\n    y, "name", 0, 1.5, 0x1F, 42, é\n):'
    assert shape.restore("if aaa and a(a):") is None  # a token lost: not restorable


def test_wide_characters_count_as_black_counts_them() -> None:
    # 43 characters but 73 columns: black splits it at 60, so the fast path must too.
    lines = ['x = f("' + "中" * 30 + '", aaaa)', "y = 1"]
    assert black_format.format_printed(lines, 60) == (
        'x = f(\n    "' + "中" * 30 + '",\n    aaaa,\n)\ny = 1\n'
    )
