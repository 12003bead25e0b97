"""Options shared by the whole suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ptoas",
        default=None,
        help="the PTOAS binary for tests/ptoas (default: $PTOAS, else "
        "../shared/vendor/ptoas-v0.57/ptoas)",
    )
