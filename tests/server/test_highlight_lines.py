"""``features.highlight.assigned_at``: where a line assigns a name (the branches of an `if`
whose result a document highlight follows)."""

from __future__ import annotations

import re

import pytest

from ptols.features.highlight import assigned_at


@pytest.mark.parametrize(
    ("line", "name", "column"),
    [
        ("    r = pl.yield_(a)", "r", 4),
        ("\tr: pl.Tensor = x", "r", 1),
        ("r=1", "r", 0),
        ("    r == 1", "r", 4),  # as the pattern it replaces read it
        ("    rr = 1", "r", None),
        ("    r.x = 1", "r", None),
        ("    r", "r", None),
        ("    x = r", "r", None),
        ("    é1 = 2", "é1", 4),
        ("    a.b = 1", "a.b", 4),  # a name with a dot is taken literally
    ],
)
def test_assigned_at(line: str, name: str, column: int | None) -> None:
    re.purge()
    assert assigned_at(line, name) == column
    assert len(re._cache) == 0  # type: ignore[attr-defined]  # no pattern per user name
