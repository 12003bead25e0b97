"""The cache of code compiled from generated source (ptoc.codecache)."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from ptoc import codecache

SOURCE = "def double(x):\n    return 2 * x\n"


@pytest.fixture
def cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh process's view: nothing read yet, the cache file in ``tmp_path``."""
    path = tmp_path / "__pycache__" / "generated.marshal"
    monkeypatch.setattr(codecache, "PATH", str(path))
    monkeypatch.setattr(codecache, "_codes", None)
    return path


def run(code: CodeType) -> Any:
    scope: dict[str, Any] = {}
    exec(code, scope)
    return scope["double"](21)


def test_code_compiled_once_is_read_back_by_the_next_process(
    cache_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert run(codecache.compiled(SOURCE)) == 42
    assert cache_file.exists()

    def refuse(*_: object) -> CodeType:
        raise AssertionError("compiled again")

    monkeypatch.setattr(codecache, "_codes", None)  # the next process
    monkeypatch.setattr(codecache, "compile", refuse, raising=False)
    code = codecache.compiled(SOURCE)
    assert run(code) == 42
    assert code.co_filename == "<string>"  # tracebacks read as with exec(source)


def test_nothing_is_written_without_bytecode(
    cache_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert run(codecache.compiled(SOURCE)) == 42
    assert not cache_file.parent.exists()


def test_a_new_source_is_added_to_what_the_file_holds(
    cache_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    codecache.compiled(SOURCE)
    other = SOURCE.replace("2 *", "3 *")
    monkeypatch.setattr(codecache, "_codes", None)
    codecache.compiled(other)
    assert sorted(codecache.load(str(cache_file))) == sorted([SOURCE, other])


@pytest.mark.parametrize(
    "content",
    [
        b"",  # empty
        b"not marshal data",
        marshal.dumps((sys.hexversion, {SOURCE: compile(SOURCE, "<string>", "exec")}))[:-3],
        marshal.dumps((sys.hexversion - 1, {SOURCE: compile(SOURCE, "<string>", "exec")})),
        marshal.dumps((sys.hexversion, [SOURCE])),
    ],
    ids=["empty", "garbage", "truncated", "other-python", "not-a-dict"],
)
def test_a_damaged_or_foreign_file_is_ignored(cache_file: Path, content: bytes) -> None:
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(content)
    assert codecache.load(str(cache_file)) == {}
    assert run(codecache.compiled(SOURCE)) == 42


def test_an_unwritable_folder_only_costs_the_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(codecache, "PATH", str(blocker / "__pycache__" / "generated.marshal"))
    monkeypatch.setattr(codecache, "_codes", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert run(codecache.compiled(SOURCE)) == 42
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_full_cache_starts_afresh(cache_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(codecache, "LIMIT", 2)
    sources = [SOURCE.replace("2 *", f"{k} *") for k in range(3)]
    for source in sources:
        codecache.compiled(source)
    assert sorted(codecache.load(str(cache_file))) == [sources[2]]
