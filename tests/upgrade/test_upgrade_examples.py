"""``ptoc upgrade`` of the project's own 2026-03 examples and test programs: each upgraded file
checks with no error as 2026-08 and lowers to the IR the original lowers to as 2026-03 (checked
here afresh, not taken from the upgrade's own proof); every line left is a row whose meaning
differs, named with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.diagnostics import Severity
from ptoc.editions import Edition, EditionSource
from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.frontend.upgrades import MEANING_CHANGES
from ptoc.ir.equality import structural_equal
from ptoc.upgrade import upgrade_source

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted(
    [
        *ROOT.glob("examples/*.py"),
        *ROOT.glob("tests/fmt/programs/*.py"),
        *ROOT.glob("tests/ptoas/kernels/*.py"),
        *ROOT.glob("tests/interp/programs/*.py"),
    ]
)
# What each file leaves as written: (line, spelling) of the rows whose meaning differs.
LEFT = {
    "examples/block_computation.py": [(25, "pl.sum")],
    "examples/flash_attention.py": [(37, "pl.tensor.view"), (40, "pl.tensor.view")],
    "tests/ptoas/kernels/other_ops.py": [
        (79, "pl.block.get_block_idx"),
        (80, "b * 32"),
        (81, "b * 32"),
    ],
}


def errors(analysis: ModuleAnalysis) -> list[str]:
    return [d.format() for d in analysis.diagnostics if d.severity is Severity.ERROR]


def functions(analysis: ModuleAnalysis) -> list[object]:
    return [*analysis.functions, *(f for p in analysis.programs for f in p.functions)]


def test_the_walk_finds_the_programs() -> None:
    assert len(PROGRAMS) >= 14 and ROOT / "examples/simple_add.py" in PROGRAMS


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_upgraded_program_checks_clean_as_2026_08_and_lowers_to_the_same_ir(
    path: Path,
) -> None:
    text = path.read_text(encoding="utf-8")
    result = upgrade_source(text, str(path))
    name = str(path.relative_to(ROOT))
    if result.status == "refused":
        # A row 2026-08 reads otherwise was left: the file is not written, and the lines left
        # are named exactly, each with its reason.
        assert result.text == text and result.left, result.reason
        named = [(n.line, n.spelling) for n in result.left]
        assert set(left_rows(name, result)) <= set(named)
        assert all(n.why for n in result.left)
        return
    assert result.status in ("upgraded", "unchanged"), result.reason
    original = analyze_source(text, str(path), edition=(Edition.V2026_03, EditionSource.FLAG))
    upgraded = analyze_source(
        result.text, str(path), edition=(Edition.V2026_08, EditionSource.FLAG)
    )
    assert errors(upgraded) == errors(original) == []
    old, new = functions(original), functions(upgraded)
    assert len(old) == len(new) > 0
    for a, b in zip(old, new, strict=True):
        # (2026-08's loop variables are INDEX, 2026-03's INT64: the same values)
        assert structural_equal(a, b, index_as_int64=True), a.name  # type: ignore[attr-defined]
    assert [(n.line, n.spelling) for n in result.left] == left_rows(name, result)
    assert all(n.why in MEANING_CHANGES.values() for n in result.left)
    if result.status == "upgraded":
        assert "W031" in [
            d.code
            for d in analyze_source(
                text, str(path), edition=(Edition.V2026_08, EditionSource.PROJECT)
            ).diagnostics
        ]


def left_rows(name: str, result: object) -> list[tuple[int, str]]:
    expected = LEFT.get(name)
    if expected is None:  # the interpreter's kernels leave their many axis reductions
        left = result.left  # type: ignore[attr-defined]
        expected = [(n.line, n.spelling) for n in left if n.spelling in REDUCTIONS]
    return expected


REDUCTIONS = ("pl.sum", "pl.max", "pl.min", "pl.block.sum", "pl.block.max", "pl.block.min")
