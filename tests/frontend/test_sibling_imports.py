"""Names a kernel file imports from the files of its folder (``from .config import BATCH``,
``from .kernels.norm import norm``), read from their text, never imported: constants with
their values, ``@pl.jit.inline`` kernels inlined into this file's JIT kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.editions import ChosenEdition, Edition, EditionSource
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


DIMS = """import pypto.language as pl

N = pl.dynamic("N")
COLS = 64
{extra}
"""

# (a 2026-03 spelling: the file says which edition it is written in)
OLD_SPELLING = """

@pl.function(type=pl.FunctionType.InCore)
def old(a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    t = pl.block.load(a, [0, 0], [16, 64])
    return a
"""

# (2026-08 by its spelling: pl.tile.*)
KERNEL = """import pypto.language as pl

from .dims import COLS, N

M = pl.dynamic("M")


@pl.function(type=pl.FunctionType.InCore)
def k(
    a: pl.Tensor[[N, COLS], pl.FP32],
    b: pl.Tensor[[M, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
) -> pl.Tensor[[16, 64], pl.FP32]:
    t = pl.tile.load(a, [0, 0], [16, 64])
    out = pl.tile.store(t, [0, 0], out)
    return out
"""


def dim_dtypes(tmp_path: Path, extra: str, edition: ChosenEdition | None) -> tuple[str, str]:
    """The dtypes of the imported pl.dynamic dimension N and of the file's own M."""
    (tmp_path / "dims.py").write_text(DIMS.format(extra=extra), encoding="utf-8")
    kernel = tmp_path / "kernel.py"
    kernel.write_text(KERNEL, encoding="utf-8")
    analysis = analyze_source(KERNEL, str(kernel), edition=edition)
    # (pl.tile.* under a 2026-03 flag: W031, a warning)
    assert [d.code for d in analysis.diagnostics if d.code != "W031"] == []
    (fn,) = analysis.functions
    imported, own = (p.type.shape[0] for p in fn.params[:2])  # type: ignore[attr-defined]
    assert (imported.name, own.name) == ("N", "M")
    return imported.type.dtype.name, own.type.dtype.name


@pytest.mark.parametrize(
    ("extra", "edition", "dtypes"),
    [
        # a file of no spelling of its own is read in the importer's edition: 2026-08's INDEX
        ("", None, ("INDEX", "INDEX")),
        ("", (Edition.V2026_03, EditionSource.FLAG), ("INT64", "INT64")),
        # one that says it is 2026-03 is read in 2026-03, unless the project says otherwise
        (OLD_SPELLING, None, ("INT64", "INDEX")),
        (OLD_SPELLING, (Edition.V2026_08, EditionSource.PROJECT), ("INDEX", "INDEX")),
    ],
)
def test_an_imported_dynamic_dim_is_of_its_file_s_edition_s_index_dtype(
    tmp_path: Path, extra: str, edition: ChosenEdition | None, dtypes: tuple[str, str]
) -> None:
    assert dim_dtypes(tmp_path, extra, edition) == dtypes
