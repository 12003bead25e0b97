"""Every program in the language reference (docs/language.md) compiles for both targets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity

LANGUAGE = Path(__file__).resolve().parents[2] / "docs" / "language.md"
BLOCKS = [
    block
    for block in re.findall(r"```python\n(.*?)```", LANGUAGE.read_text(encoding="utf-8"), re.S)
    if "def " in block
]


def test_the_reference_has_programs() -> None:
    assert len(BLOCKS) >= 1


@pytest.mark.parametrize("target", ["cce", "pto"])
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_reference_program_compiles(index: int, target: str) -> None:
    result = driver.compile_source(BLOCKS[index], target, path=f"block{index}.py")
    problems = [d.format() for d in result.diagnostics if d.severity is not Severity.HINT]
    assert problems == []
    assert result.programs and all(p.text.strip() for p in result.programs)
