"""ptols.attrs_cache: the code attrs generates is compiled once per installation, is the very
code attrs compiles itself, and an attrs of another shape is left alone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import attr
import attr._make as make
import pytest

from ptols import attrs_cache


def make_class() -> type:
    @attr.define(eq=True, order=True)
    class Sample:
        line: int
        name: str = "x"

    return Sample


@pytest.fixture(autouse=True)
def attrs_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(make, "_compile_and_eval", make._compile_and_eval)  # put back after


def refuse(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("compiled again")


def test_the_second_process_compiles_nothing_and_gets_attrs_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    plain = make_class()  # compiled by attrs itself
    attrs_own = make._compile_and_eval
    path = tmp_path / "attrs.marshal"
    first = attrs_cache.install(str(path))
    assert first is not None
    make_class()
    assert first.missed == 1  # attrs writes a class's methods as one script
    first.flush()
    assert path.exists()

    make._compile_and_eval = attrs_own  # the next start of the server:
    second = attrs_cache.install(str(path))
    assert second is not None
    monkeypatch.setattr(attrs_cache, "compile", refuse, raising=False)
    cached = make_class()
    assert second.missed == 0
    for method in ("__init__", "__eq__", "__lt__", "__repr__"):
        assert getattr(cached, method).__code__ == getattr(plain, method).__code__, method
    assert cached(3, "a") == cached(3, "a") and cached(1) < cached(2)
    assert repr(cached(3)) == "Sample(line=3, name='x')"


def test_nothing_is_written_when_python_writes_no_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = attrs_cache.install(str(tmp_path / "attrs.marshal"))
    assert cache is not None
    make_class()
    cache.flush()
    assert not (tmp_path / "attrs.marshal").exists()


def test_an_attrs_that_compiles_elsewhere_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def compile_and_eval(script: str, globs: Any, locs: Any = None) -> None:
        exec(compile(script, "", "exec"), globs, locs)

    monkeypatch.setattr(make, "_compile_and_eval", compile_and_eval)
    assert attrs_cache.install(str(tmp_path / "attrs.marshal")) is None
    assert make._compile_and_eval is compile_and_eval
