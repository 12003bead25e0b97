"""ptols.generated_code: the code attrs and cattrs generate is compiled once per installation
and is the very code they compile themselves."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import attr
import attr._make
import cattrs
import cattrs.gen
import pytest

from ptoc.codecache import load
from ptols import generated_code


def make_class() -> type:
    @attr.define(eq=True, order=True)
    class Sample:
        line: int
        name: str = "x"

    return Sample


@pytest.fixture(autouse=True)
def libraries_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever this test installs is taken away afterwards."""
    for module in (attr._make, cattrs.gen):
        monkeypatch.delattr(module, "compile", raising=False)
    monkeypatch.setattr(generated_code, "installed", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def refuse(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("compiled again")


def next_process(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (attr._make, cattrs.gen):
        monkeypatch.delattr(module, "compile", raising=False)


def hook_code(cls: type) -> Any:
    return cattrs.Converter().get_structure_hook(cls).__code__


def test_the_second_start_compiles_nothing_and_gets_the_libraries_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = make_class()  # compiled by attrs itself
    plain_hook = hook_code(plain)  # by cattrs itself
    path = tmp_path / "generated.marshal"
    first = generated_code.install(str(path))
    hook_code(make_class())
    assert first.missed == 2  # attrs writes a class's methods as one script; cattrs, one hook
    generated_code.flush()
    assert path.exists()

    next_process(monkeypatch)
    second = generated_code.install(str(path))
    monkeypatch.setattr(generated_code, "builtin_compile", refuse)
    cached = make_class()
    cached_hook = hook_code(cached)
    assert second.missed == 0
    for method in ("__init__", "__eq__", "__lt__", "__repr__"):
        assert getattr(cached, method).__code__ == getattr(plain, method).__code__, method
    assert cached_hook == plain_hook
    assert cached(3, "a") == cached(3, "a") and cached(1) < cached(2)
    assert repr(cached(3)) == "Sample(line=3, name='x')"
    assert cattrs.Converter().structure({"line": 4}, cached) == cached(4)


def test_nothing_is_written_when_python_writes_no_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = generated_code.install(str(tmp_path / "generated.marshal"))
    make_class()
    assert cache.missed == 1
    generated_code.flush()
    assert not (tmp_path / "generated.marshal").exists()


def test_other_uses_of_compile_get_the_builtin_as_the_module_would() -> None:
    cache = generated_code.GeneratedCodeCache("/nonexistent/generated.marshal")
    compile_there = cache.compiler_for(attr._make)  # a module with `annotations` in effect
    source = b"def f(x: int) -> int:\n    return x\n"
    code = compile_there(source, "<bytes>", "exec")  # bytes: not cached
    assert cache.missed == 0
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    assert namespace["f"].__annotations__ == {"x": "int", "return": "int"}  # postponed


def make_other() -> type:
    @attr.define
    class Other:
        size: int

    return Other


def test_a_flush_keeps_what_the_same_start_uses_later_and_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "generated.marshal"
    generated_code.install(str(path))
    hook_code(make_class())
    generated_code.flush()
    assert len(load(str(path))) == 2

    next_process(monkeypatch)
    generated_code.install(str(path))
    make_other()  # a miss before the start has used the two entries kept
    generated_code.flush()
    assert len(load(str(path))) == 3

    next_process(monkeypatch)
    monkeypatch.setattr(generated_code, "LIMIT", 3)
    third = generated_code.install(str(path))
    make_class()

    @attr.define
    class Third:
        name: str

    assert third.missed == 1
    generated_code.flush()
    assert len(load(str(path))) == 2  # 4 entries, over the limit: only what this start used
