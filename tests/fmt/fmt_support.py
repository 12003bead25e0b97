"""Paths shared by the formatter tests (a uniquely named module: every test folder has its
own conftest.py, so ``import conftest`` would be ambiguous)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PROGRAMS = Path(__file__).resolve().parent / "programs"
