"""Names a kernel file imports from the files of its folder (``from .config import BATCH``,
``from .kernels.norm import norm``), read from their text, never imported: constants with
their values, ``@pl.jit.inline`` kernels inlined into this file's JIT kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.frontend import analyze_source
from ptoc.graph import TaskGraph, function_graph

CONFIG = """
ROWS = 4 * 16
COLS = 64
"""

NORM = """
raise SystemExit("read, never imported")

import pypto.language as pl

from ..config import COLS, ROWS


@pl.jit.inline
def norm(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="norm"):
        out[:, 0:COLS] = pl.mul(x[:, 0:COLS], SCALE)
    return out


SCALE = 0.5


def helper(n):
    return n


@pl.jit.inline
def helped(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="helped"):
        out[:, 0 : helper(COLS)] = pl.add(x, x)
    return out


@pl.jit.inline
def wrong(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wrong"):
        out[:, 0:COLS] = pl.add(x, undefined_name)
    return out
"""

ENTRY = """import pypto.language as pl

from .config import COLS, ROWS
from .kernels.norm import {imported}


@pl.jit
def entry(x: pl.Tensor, mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    mid = {imported}(x, mid)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
        out[:, 0:COLS] = pl.add(mid[:, 0:COLS], mid[:, 0:COLS])
    return out
"""


def package(tmp_path: Path, imported: str) -> Path:
    (tmp_path / "kernels").mkdir()
    (tmp_path / "config.py").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "kernels" / "norm.py").write_text(NORM, encoding="utf-8")
    entry = tmp_path / "entry.py"
    entry.write_text(ENTRY.format(imported=imported), encoding="utf-8")
    return entry


def test_an_imported_inline_kernel_is_a_task_of_the_entry(tmp_path: Path) -> None:
    entry = package(tmp_path, "norm")
    analysis = analyze_source(entry.read_text(encoding="utf-8"), str(entry))
    assert analysis.diagnostics == []
    graph = function_graph(analysis, "entry")
    assert isinstance(graph, TaskGraph)
    assert [(t.kernel, Path(t.span.file).name, t.span.line) for t in graph.tasks] == [
        ("norm", "norm.py", 11),  # its region, at its own file's line
        ("tail", "entry.py", 10),
    ]
    # (named as the inlined kernel's region writes it: its parameter `out`, the entry's mid)
    assert [(e.source, e.target, e.kind, e.label) for e in graph.edges] == [(0, 1, "data", "out")]


def test_imported_constants_have_their_values(tmp_path: Path) -> None:
    entry = package(tmp_path, "norm")
    analysis = analyze_source(entry.read_text(encoding="utf-8"), str(entry))
    hovered = {o.name: o.detail for o in analysis.index.occurrences if o.name in ("ROWS", "COLS")}
    assert "64" in hovered["ROWS"] and "64" in hovered["COLS"]
    # the inlined kernel's own names are not this file's symbols (their lines, 9-13 of its
    # file, are the entry's here: its names were hovered in the entry)
    assert {o.span.file for o in analysis.index.occurrences} == {str(entry)}


@pytest.mark.parametrize("imported", ["helped", "wrong"])
def test_a_kernel_the_reader_cannot_bring_in_stays_unknown_without_false_errors(
    tmp_path: Path, imported: str
) -> None:
    # `helped` calls a helper of its file (not brought in); `wrong` is brought in, and what
    # its own file's check says (an undefined name) is not this file's diagnostic
    entry = package(tmp_path, imported)
    analysis = analyze_source(entry.read_text(encoding="utf-8"), str(entry))
    assert analysis.diagnostics == []
    graph = function_graph(analysis, "entry")
    assert isinstance(graph, TaskGraph)
    assert [t.kernel for t in graph.tasks][-1] == "tail"


def test_a_file_without_a_folder_reads_no_imports() -> None:
    analysis = analyze_source(ENTRY.format(imported="norm"), "<string>")
    assert analysis.diagnostics == []
