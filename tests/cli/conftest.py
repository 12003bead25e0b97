"""Fixtures for the CLI tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a UTF-8 file below tmp_path (creating folders) and return its path."""

    def write_file(relative: str, text: str) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write_file


@pytest.fixture
def shared_build_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulator builds go to the execution suite's cache (they are shared with it)."""
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PTOC_CACHE_DIR", str(root / ".cache" / "ptoc-exec"))
