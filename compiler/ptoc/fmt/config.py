"""``[tool.ptoc]``: the formatter's view of the project configuration (``ptoc.config``, which
the driver reads too)."""

from ..config import (
    PYPROJECT,
    ROOT_MARKERS,
    ConfigCache,
    ConfigError,
    PtocConfig,
    effective_line_length,
    find_pyproject,
    load_config,
)

__all__ = [
    "PYPROJECT",
    "ROOT_MARKERS",
    "ConfigCache",
    "ConfigError",
    "PtocConfig",
    "effective_line_length",
    "find_pyproject",
    "load_config",
]
