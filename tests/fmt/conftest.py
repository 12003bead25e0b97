"""Shared fixtures of the formatter tests, and the ``slow`` marker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: runs real tools (pre-commit installs this repo)")


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a UTF-8 file below tmp_path (creating folders) and return its path."""

    def write_file(relative: str, text: str) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path

    return write_file
