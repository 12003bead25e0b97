"""``[tool.ptoc]`` in ``pyproject.toml``: found the way black finds its configuration.

Walking up from a file's folder, the first folder holding a ``pyproject.toml`` is the project
root and its file is the configuration; a folder holding ``.git`` or ``.hg`` (but no
``pyproject.toml``) ends the walk without one. Keys: ``line-length`` (positive int) and
``prefix`` (the alias of ``pypto.language`` used when printing IR; fmt only reports it) and
``strict-annotations`` (bool: annotation warnings W006-W008 become errors in check, print and
compile) and ``edition`` (``"2026-03"`` or ``"2026-08"``: the language edition of every file
of the project; without it each file's spellings decide). The ``[tool.ptoc.jit]`` table gives
``@pl.jit`` kernels called from elsewhere their shapes: each key is a kernel's name, its value
one specialisation or a list of them, written as a ``# ptoc: specialise`` comment is
(``tile_add = ["a=[128, 128]:FP32 b=[128, 128]:FP32 c=[128, 128]:FP32"]``).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from .editions import EDITION_NAMES, Edition, parse_edition
from .records import record

PYPROJECT = "pyproject.toml"
ROOT_MARKERS = (".git", ".hg")


class ConfigError(Exception):
    """A ``pyproject.toml`` that cannot be read or has a bad ``[tool.ptoc]`` value."""


@record(frozen=True)
class PtocConfig:
    line_length: int | None = None
    prefix: str | None = None
    strict_annotations: bool = False
    edition: Edition | None = None
    source: Path | None = None  # the pyproject.toml the values came from
    # ``[tool.ptoc.jit]``: (kernel name, its specialisations), in the file's order.
    jit: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def jit_for(self, kernel: str) -> tuple[str, ...]:
        """The specialisations ``[tool.ptoc.jit]`` gives the kernel (none: ())."""
        return next((specs for name, specs in self.jit if name == kernel), ())

    def jit_table(self) -> dict[str, tuple[str, ...]]:
        return dict(self.jit)


def find_pyproject(path: str | os.PathLike[str]) -> Path | None:
    """The ``pyproject.toml`` governing ``path`` (a file or a folder), or None."""
    start = Path(os.path.abspath(path))
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        pyproject = candidate / PYPROJECT
        if pyproject.is_file():
            return pyproject
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return None
    return None


def load_config(pyproject: Path) -> PtocConfig:
    """Read ``[tool.ptoc]`` (absent table: all defaults). Raises ConfigError."""
    try:
        with pyproject.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read '{pyproject}': {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"'{pyproject}' is not valid TOML: {exc}") from None
    tool = data.get("tool", {})
    table = tool.get("ptoc", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"'{pyproject}': [tool.ptoc] must be a table")
    return PtocConfig(
        line_length=line_length_value(table, pyproject),
        prefix=prefix_value(table, pyproject),
        strict_annotations=strict_annotations_value(table, pyproject),
        edition=edition_value(table, pyproject),
        source=pyproject,
        jit=jit_value(table, pyproject),
    )


def setting(table: dict[str, Any], key: str) -> Any:
    """``line-length`` may also be written ``line_length``."""
    if key in table:
        return table[key]
    return table.get(key.replace("-", "_"))


def line_length_value(table: dict[str, Any], pyproject: Path) -> int | None:
    value = setting(table, "line-length")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(
            f"'{pyproject}': [tool.ptoc] line-length must be a positive integer, got {value!r}"
        )
    return value


def prefix_value(table: dict[str, Any], pyproject: Path) -> str | None:
    value = setting(table, "prefix")
    if value is None:
        return None
    if not isinstance(value, str) or not value.isidentifier():
        raise ConfigError(f"'{pyproject}': [tool.ptoc] prefix must be a Python name, got {value!r}")
    return value


def strict_annotations_value(table: dict[str, Any], pyproject: Path) -> bool:
    value = setting(table, "strict-annotations")
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ConfigError(
            f"'{pyproject}': [tool.ptoc] strict-annotations must be true or false, got {value!r}"
        )
    return value


def edition_value(table: dict[str, Any], pyproject: Path) -> Edition | None:
    value = setting(table, "edition")
    if value is None:
        return None
    edition = parse_edition(value) if isinstance(value, str) else None
    if edition is None:
        names = " or ".join(f'"{name}"' for name in EDITION_NAMES)
        raise ConfigError(f"'{pyproject}': [tool.ptoc] edition must be {names}, got {value!r}")
    return edition


def jit_value(table: dict[str, Any], pyproject: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``[tool.ptoc.jit]``: kernel name -> a specialisation string or a list of them."""
    value = table.get("jit")
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"'{pyproject}': [tool.ptoc.jit] must be a table of kernel names")
    found: list[tuple[str, tuple[str, ...]]] = []
    for kernel, specs in value.items():
        listed = [specs] if isinstance(specs, str) else specs
        if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
            raise ConfigError(
                f"'{pyproject}': [tool.ptoc.jit] {kernel} must be a string such as "
                f'"a=[128, 128]:FP32" or a list of them, got {specs!r}'
            )
        found.append((kernel, tuple(listed)))
    return tuple(found)


class ConfigCache:
    """One read per ``pyproject.toml`` for a whole run (errors are remembered too)."""

    def __init__(self) -> None:
        self._loaded: dict[Path, PtocConfig | ConfigError] = {}

    def for_file(self, path: str | os.PathLike[str]) -> PtocConfig:
        pyproject = find_pyproject(path)
        if pyproject is None:
            return PtocConfig()
        if pyproject not in self._loaded:
            try:
                self._loaded[pyproject] = load_config(pyproject)
            except ConfigError as exc:
                self._loaded[pyproject] = exc
        loaded = self._loaded[pyproject]
        if isinstance(loaded, ConfigError):
            raise loaded
        return loaded


def effective_line_length(flag: int | None, config: PtocConfig, default: int) -> int:
    """The command-line flag beats the configuration, which beats the default."""
    if flag is not None:
        return flag
    if config.line_length is not None:
        return config.line_length
    return default
