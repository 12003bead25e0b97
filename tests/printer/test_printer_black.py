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
from ptoc.printer import black_format, print_function, print_program, print_stmt

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

    for module in (ptoc.printer, ptoc.printer.module):
        monkeypatch.setattr(module, "format_printed", both)
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


@pytest.mark.parametrize(("name", "source", "line_length"), CASES,
                         ids=[f"{name}-{length}" for name, _, length in CASES])
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
    black_format._black_alone.cache_clear()
    return calls


def test_lines_that_fit_never_reach_black(black_calls: list[str]) -> None:
    (program,) = programs((REPO / "examples" / "simple_add.py").read_text(), "simple_add.py")
    text = print_program(program, line_length=200)
    assert 120 < max(len(line) for line in text.splitlines()) <= 200
    assert black_calls == []


def test_each_long_statement_goes_to_black_alone_and_once(black_calls: list[str]) -> None:
    (program,) = programs((REPO / "examples" / "simple_add.py").read_text(), "simple_add.py")
    first = print_program(program, line_length=60)
    # Dedented, at the width its indentation leaves; a header gets a body to be a statement.
    params = ", ".join(f"{name}: pl.Tensor[[128, 64], pl.FP32]" for name in ("x", "y", "output"))
    assert black_calls == [
        f"def simple_add(self, {params}) -> pl.Tensor[[128, 64], pl.FP32]:\n    pass\n",
        "tile_x: pl.Tile[[128, 64], pl.FP32] = pl.block.load(x, [0, 0], [128, 64])\n",
        "tile_y: pl.Tile[[128, 64], pl.FP32] = pl.block.load(y, [0, 0], [128, 64])\n",
        "tile_z: pl.Tile[[128, 64], pl.FP32] = pl.block.add(tile_x, tile_y)\n",
        "result: pl.Tensor[[128, 64], pl.FP32] = "
        "pl.block.store(tile_z, [0, 0], [128, 64], output)\n",
    ]
    assert print_program(program, line_length=60) == first
    assert len(black_calls) == 5
