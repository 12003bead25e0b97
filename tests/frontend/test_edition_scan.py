"""Edition detection's two scanners (the per-name look-up for small files, the one compiled
expression for large ones) find exactly the same spellings at the same places."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptoc.editions import Edition, SpellingTable
from ptoc.frontend.edition import spelling_table

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "pypto-2026-08" / "examples"


def _texts() -> list[tuple[str, str]]:
    files = sorted(UPSTREAM.rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    files += sorted((ROOT / "tests" / "data").rglob("*.py"))
    return [(str(path), path.read_text(encoding="utf-8")) for path in files]


def _found(table: SpellingTable, text: str, prefix: str) -> list[tuple[int, str, str]]:
    return [(m.start(), m.group(0), name) for m, name in table.spellings(text, prefix)]


def test_every_spelling_is_a_dotted_name() -> None:
    # The look-up scanner splits a dotted name at its dots: a spelling of another shape
    # would only be found by the expression.
    table = spelling_table()
    assert all(re.fullmatch(r"\w+(?:\.\w+)*", name) for name in table._spellings)


def test_the_two_scanners_agree_on_every_example() -> None:
    texts = _texts()
    assert len(texts) > 60
    lookup = SpellingTable(spelling_table()._spellings, {})
    expression = SpellingTable(spelling_table()._spellings, {})
    expression.pattern("pl")  # compiled: this table always scans with the expression
    seen = 0
    for path, text in texts:
        by_lookup = _found(lookup, text, "pl")
        assert by_lookup == _found(expression, text, "pl"), path
        seen += len(by_lookup)
    assert seen > 100


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x = pl.block.add(a, b)", [(4, "pl.block.add", "block")]),
        ("pl.Level.HOST", [(0, "pl.Level.HOST", "Level")]),
        ("mypl.block.add(a)", []),
        ("a.pl.block.add(a)", []),
        ("pl.incore_x()", []),
        ("with pl.incore():", [(5, "pl.incore", "incore")]),
    ],
)
def test_each_scanner_on_edge_cases(text: str, expected: list[tuple[int, str, str]]) -> None:
    table = SpellingTable(spelling_table()._spellings, {})
    assert _found(table, text, "pl") == expected
    table.pattern("pl")
    assert _found(table, text, "pl") == expected
    assert spelling_table()._spellings["block"] is Edition.V2026_03


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("y = pl.store(t, [0, 0], [16, 16], y)", [(4, "pl.store")]),
        ("pl.block.store(t, [0, 0], [16, 16], y)", [(0, "pl.block.store")]),
        ("y = mypl.store(t, [0, 0], [16, 16], y)", []),
        ("y = a.pl.store(t, [0, 0], [16, 16], y)", []),
        ("y = pl.store(t, [0, 0], y)", []),  # today's three-argument form
    ],
)
def test_the_form_patterns_find_a_form_only_after_a_whole_prefix(
    text: str, expected: list[tuple[int, str]]
) -> None:
    # The literal prefix stands before the check of what precedes it (the engine skips to each
    # `pl.`), and finds what the check-first expression found.
    (pattern, edition), *_ = spelling_table().form_patterns("pl")
    assert edition is Edition.V2026_03
    found = pattern.search(text)
    assert ([] if found is None else [(found.start(), found.group(0).split("(")[0])]) == expected
