"""The IR after every pass prints as valid PyPTO that parses back to a structurally equal IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.cli import printed_edition
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source
from ptoc.ir import structural_equal
from ptoc.printer import print_program

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").rglob("*.py"))


@pytest.mark.parametrize("pipeline", ["default", "ptoas"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_snapshot_round_trips(path: Path, pipeline: str) -> None:
    analysis = analyze_source(path.read_text(), str(path))
    assert not analysis.has_errors
    # in the file's own edition, as `ptoc print` writes it (2026-08's INDEX constants print
    # bare, which 2026-03 reads as INT64)
    edition = printed_edition(analysis.edition)
    checked = 0
    for program in analysis.all_programs():
        result = run_pipeline(program, pipeline)
        assert [name for name, _ in result.snapshots]  # every pass left a snapshot
        for name, snapshot in result.snapshots:
            text = print_program(snapshot, edition=edition)
            reparsed = analyze_source(text, f"<after {name}>")
            errors = [d.format() for d in reparsed.diagnostics if d.severity.value == "error"]
            assert errors == [], (name, errors, text)
            (again,) = [p for p in reparsed.all_programs() if p.name == snapshot.name]
            assert structural_equal(snapshot, again), (name, text)
            checked += 1
    assert checked
