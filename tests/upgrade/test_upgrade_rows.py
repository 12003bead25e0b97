"""Each row of spec §15 with a mechanical rewrite: the 2026-03 spelling checks clean as 2026-03,
the 2026-08 spelling as 2026-08, both lower to structurally equal IR, and both the W031 quick
fix and `ptoc upgrade` turn the one into the other. The rows whose meaning differs are left as
written, each with the reason."""

from __future__ import annotations

import textwrap

import pytest

from ptoc.diagnostics import Diagnostic, Severity
from ptoc.editions import Edition, EditionSource
from ptoc.fmt.canonical import LineOffsets, apply_edits, edit_range
from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.ir.equality import structural_equal
from ptoc.upgrade import upgrade_source

OLD = (Edition.V2026_03, EditionSource.FLAG)
NEW = (Edition.V2026_08, EditionSource.FLAG)
T = "pl.Tensor[[64, 64], pl.FP32]"
HEADER = "import pypto.language as pl\n\n\n"


def incore(body: str, params: str = f"a: {T}, out: pl.Out[{T}]", result: str = T) -> str:
    return (
        HEADER
        + f"@pl.function(type=pl.FunctionType.InCore)\ndef k({params}) -> {result}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    ")
    )


def orchestration(body: str) -> str:
    return (
        HEADER
        + "@pl.function(type=pl.FunctionType.Orchestration)\n"
        + f"def f(a: {T}, out: pl.Out[{T}]) -> {T}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    ")
    )


MATMUL_PARAMS = (
    "a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], "
    "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"
)
MATMUL = """
ta = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
tb = pl.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
la = pl.move(ta, target_memory=pl.MemorySpace.Left)
rb = pl.move(tb, target_memory=pl.MemorySpace.Right)
acc = pl.matmul(la, rb)
"""
LOADED = "t = pl.load(a, [0, 0], [64, 64])\n"
STORED = "out = pl.store(t, [0, 0], [64, 64], out)\nreturn out\n"
STORED_NEW = "out = pl.store(t, [0, 0], out)\nreturn out\n"

BLOCK_OPS = """
t = pl.block.load(a, [0, 0], [64, 64])
u = pl.block.add(t, t)
out = pl.block.store(u, [0, 0], [64, 64], out)
return out
"""
TILE_OPS = """
t = pl.tile.load(a, [0, 0], [64, 64])
u = pl.tile.add(t, t)
out = pl.tile.store(u, [0, 0], out)
return out
"""

# (row, 2026-03 text, 2026-08 text, the diagnostics both have)
ROWS = [
    (
        "pl.block.X -> pl.tile.X",
        incore(BLOCK_OPS),
        incore(TILE_OPS),
        [],
    ),
    (
        "pl.op.block.X -> pl.tile.X",
        incore(LOADED + "t = pl.op.block.exp(t)\n" + STORED),
        incore(LOADED + "t = pl.tile.exp(t)\n" + STORED_NEW),
        [],
    ),
    (
        "with pl.incore() -> with pl.at(level=pl.Level.CORE_GROUP)",
        orchestration("with pl.incore():  # the kernel\n    " + LOADED + "    " + STORED),
        orchestration(
            "with pl.at(level=pl.Level.CORE_GROUP):  # the kernel\n    "
            + LOADED
            + "    "
            + STORED_NEW
        ),
        [],
    ),
    (
        "pl.store(t, offs, shapes, out): the whole tile",
        incore(LOADED + STORED),
        incore(LOADED + STORED_NEW),
        [],
    ),
    (
        "pl.store(t, offs, shapes, out): a window",
        incore(
            LOADED + "out = pl.store(\n    t,\n    [0, 0],\n    [32, 32],\n    out,\n)\nreturn out"
        ),
        incore(LOADED + "out = pl.store(\n    t,\n    [0, 0],\n    out, [32, 32],\n)\nreturn out"),
        ["W022"],
    ),
    (
        "pl.l0c_store -> pl.store",
        incore(
            MATMUL + "out = pl.l0c_store(acc, [0, 0], [32, 32], out)\nreturn out",
            MATMUL_PARAMS,
            "pl.Tensor[[32, 32], pl.FP32]",
        ),
        incore(
            MATMUL + "out = pl.store(acc, [0, 0], out)\nreturn out",
            MATMUL_PARAMS,
            "pl.Tensor[[32, 32], pl.FP32]",
        ),
        [],
    ),
    (
        "pl.load(t, offs, shape, SPACE) -> target_memory=SPACE",
        incore("t = pl.load(a, [0, 0], [64, 64], pl.MemorySpace.Vec)\n" + STORED),
        incore("t = pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)\n" + STORED_NEW),
        [],
    ),
    (
        "pl.view / pl.block.view -> pl.slice / pl.tile.slice",
        incore(
            LOADED + "v = pl.view(t, [16, 16], [0, 0])\nw = pl.block.view(t, [16, 16], [0, 16])\n"
            "return out"
        ),
        incore(
            LOADED + "v = pl.slice(t, [16, 16], [0, 0])\nw = pl.tile.slice(t, [16, 16], [0, 16])\n"
            "return out"
        ),
        [],
    ),
    (
        "pl.adds/subs/muls/divs -> pl.add/sub/mul/div",
        incore(
            LOADED + "t = pl.adds(t, 1.0)\nt = pl.subs(t, 1.0)\nt = pl.muls(t, 2.0)\n"
            "t = pl.divs(t, 2.0)\n" + STORED
        ),
        incore(
            LOADED + "t = pl.add(t, 1.0)\nt = pl.sub(t, 1.0)\nt = pl.mul(t, 2.0)\n"
            "t = pl.div(t, 2.0)\n" + STORED_NEW
        ),
        [],
    ),
    (
        "pl.block.create_tile -> pl.tile.create",
        incore("c = pl.block.create_tile([16, 16], dtype=pl.FP32)\nreturn out"),
        incore("c = pl.tile.create([16, 16], dtype=pl.FP32)\nreturn out"),
        [],
    ),
    (
        "pl.tensor.add_scalar etc. -> pl.tensor.adds etc.",
        orchestration(
            "b = pl.tensor.add_scalar(a, 1.0)\nc = pl.tensor.sub_scalar(b, 1.0)\n"
            "d = pl.tensor.mul_scalar(c, 2.0)\ne = pl.tensor.div_scalar(d, 2.0)\n"
            "return e"
        ),
        orchestration(
            "b = pl.tensor.adds(a, 1.0)\nc = pl.tensor.subs(b, 1.0)\n"
            "d = pl.tensor.muls(c, 2.0)\ne = pl.tensor.divs(d, 2.0)\nreturn e"
        ),
        [],
    ),
    (
        "pl.maxs/mins, pl.block.maxs/mins -> pl.maximums/minimums",
        incore(LOADED + "t = pl.maxs(t, 0.0)\nt = pl.block.mins(t, 1.0)\n" + STORED),
        incore(LOADED + "t = pl.maximums(t, 0.0)\nt = pl.tile.minimums(t, 1.0)\n" + STORED_NEW),
        [],
    ),
]


ROWS.append(
    (
        "@pl.function(attrs={...}) -> pl.func_attr({...})",
        HEADER + f'@pl.function(type=pl.FunctionType.InCore, attrs={{"k": 1}})\n'
        f'def k(a: {T}) -> {T}:\n    """Doc."""\n    return a\n',
        HEADER + "@pl.function(type=pl.FunctionType.InCore)\n"
        f'def k(a: {T}) -> {T}:\n    """Doc."""\n    pl.func_attr({{"k": 1}})\n    return a\n',
        [],
    )
)


def shown(analysis: ModuleAnalysis) -> list[str]:
    """The codes a user sees as problems (errors and warnings)."""
    problems = (Severity.ERROR, Severity.WARNING)
    return sorted(d.code for d in analysis.diagnostics if d.severity in problems)


def apply_fixes(text: str, diagnostics: list[Diagnostic]) -> str:
    offsets = LineOffsets(text)
    edits = []
    for diagnostic in diagnostics:
        (fix,) = diagnostic.fixes
        for edit in fix.edits:
            found = edit_range(edit, offsets)
            assert found is not None
            edits.append((*found, edit.new_text))
    return apply_edits(text, edits)


@pytest.mark.parametrize(("row", "old", "new", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_a_row_of_the_table(row: str, old: str, new: str, expected: list[str]) -> None:
    before = analyze_source(old, "k.py", edition=OLD)
    after = analyze_source(new, "k.py", edition=NEW)
    assert shown(before) == expected
    assert shown(after) == expected
    # (2026-08's int literals are INDEX where 2026-03's are INT64: the upgrade's proof)
    assert structural_equal(before.functions[0], after.functions[0], index_as_int64=True)
    # ptoc upgrade writes exactly the 2026-08 text
    result = upgrade_source(old, "k.py")
    assert (result.status, result.text, result.left) == ("upgraded", new, [])
    # the W031 quick fixes, offered when 2026-08 is chosen, write it too
    chosen = analyze_source(old, "k.py", edition=NEW)
    other = [d for d in chosen.diagnostics if d.code == "W031"]
    assert other and all(d.severity is Severity.WARNING for d in other)
    assert apply_fixes(old, other) == new


def test_w031_is_only_for_an_edition_chosen_outside_the_file() -> None:
    old = ROWS[0][1]
    detected = analyze_source(old, "k.py")
    assert detected.edition is not None and detected.edition.source is EditionSource.DETECTED
    assert "W031" not in [d.code for d in detected.diagnostics]
    for source in (EditionSource.FLAG, EditionSource.EDITOR, EditionSource.PROJECT):
        chosen = analyze_source(old, "k.py", edition=(Edition.V2026_08, source))
        assert [d.code for d in chosen.diagnostics].count("W031") == 3
    as_old = analyze_source(old, "k.py", edition=OLD)
    assert "W031" not in [d.code for d in as_old.diagnostics]


def test_w031_names_both_spellings_and_its_range_is_the_old_one() -> None:
    old = ROWS[0][1]
    chosen = analyze_source(old, "k.py", edition=NEW)
    first = next(d for d in chosen.diagnostics if d.code == "W031")
    assert first.message == (
        "`pl.block.load(a, [0, 0], [64, 64])` is the PyPTO 2026-03 spelling; PyPTO 2026-08 "
        "(chosen on the command line) writes `pl.tile.load(a, [0, 0], [64, 64])`"
    )
    line = old.splitlines()[first.span.line - 1]
    assert line[first.span.column : first.span.end_column] == "pl.block.load"
    assert first.fixes[0].title == "Change to `pl.tile.load(a, [0, 0], [64, 64])`"


# --- rows whose meaning differs in 2026-08: left as written, with the reason ---------------------

INT_PARAMS = f"a: pl.Tensor[[64, 64], pl.INT32], out: pl.Out[{T}]"
DIFFERENT = [
    (
        incore("v = pl.tensor.view(a, [16, 16], [0, 16])\nreturn out"),
        "pl.tensor.view",
        "third argument is a valid shape in 2026-08",
    ),
    (
        incore(LOADED + "s = pl.sum(t, axis=1, keepdim=True)\nreturn out"),
        "pl.sum",
        "axis reduction of a tile",
    ),
    (
        incore(LOADED + "s = pl.block.max(t, axis=1, keepdim=True)\nreturn out"),
        "pl.block.max",
        "axis reduction of a tile",
    ),
    (
        incore("i = pl.block.get_block_idx()\nreturn out"),
        "pl.block.get_block_idx",
        "UINT64 in 2026-03 and INDEX in 2026-08",
    ),
    (
        incore(
            "x: pl.Scalar[pl.INT32] = pl.tensor.read(a, [0, 0])\ny = not x\nreturn out", INT_PARAMS
        ),
        "not x",
        "bitwise in 2026-03 and logical in 2026-08",
    ),
    (
        incore(
            "x: pl.Scalar[pl.INT32] = pl.tensor.read(a, [0, 0])\ny = x + 1\nreturn out", INT_PARAMS
        ),
        "x + 1",
        "an integer literal is INT64 in 2026-03",
    ),
    (
        incore("t = pl.full([64, 64], dtype=pl.FP32, value=0.0)\nreturn out"),
        "pl.full",
        "top-level `pl.full` builds a tensor in 2026-08",
    ),
]


@pytest.mark.parametrize(("old", "spelling", "why"), DIFFERENT, ids=[d[1] for d in DIFFERENT])
def test_a_row_whose_meaning_differs_is_left_with_the_reason(
    old: str, spelling: str, why: str
) -> None:
    result = upgrade_source(old, "k.py")
    # left alone: nothing else to upgrade, or (where 2026-08 reads the row otherwise) refused
    assert result.status in ("unchanged", "refused") and result.text == old
    (left,) = result.left
    line = next(n for n, text in enumerate(old.splitlines(), 1) if spelling in text)
    assert (left.line, left.column, left.spelling) == (
        line,
        old.splitlines()[line - 1].index(spelling) + 1,
        spelling,
    )
    assert why in left.why
    chosen = analyze_source(old, "k.py", edition=NEW)
    assert "W031" not in [d.code for d in chosen.diagnostics]  # no quick fix changes a meaning


def test_a_left_row_leaves_the_rest_of_its_line_and_file_upgraded() -> None:
    old = incore(
        LOADED + "s = pl.block.sum(t, axis=1, keepdim=True)\nu = pl.block.exp(t)\n" + STORED
    )
    result = upgrade_source(old, "k.py")
    assert result.status == "upgraded"
    assert "s = pl.block.sum(t, axis=1, keepdim=True)\n    u = pl.tile.exp(t)\n" in result.text
    assert [n.spelling for n in result.left] == ["pl.block.sum"]


# --- W031 the other way: a 2026-08 spelling where 2026-03 was chosen ------------------------------

EXACTLY_BACK = {
    "pl.block.X -> pl.tile.X",
    "with pl.incore() -> with pl.at(level=pl.Level.CORE_GROUP)",
    "pl.store(t, offs, shapes, out): the whole tile",
    "pl.l0c_store -> pl.store",
    "pl.view / pl.block.view -> pl.slice / pl.tile.slice",
    "pl.tensor.add_scalar etc. -> pl.tensor.adds etc.",
}


@pytest.mark.parametrize(("row", "old", "new", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_w031_quick_fixes_write_a_2026_08_row_back_in_2026_03_spelling(
    row: str, old: str, new: str, expected: list[str]
) -> None:
    chosen = analyze_source(new, "k.py", edition=OLD)
    other = [d for d in chosen.diagnostics if d.code == "W031"]
    assert all("is the PyPTO 2026-08 spelling; PyPTO 2026-03" in d.message for d in other)
    back = apply_fixes(new, other)
    again = analyze_source(back, "k.py", edition=OLD)
    assert "W031" not in [d.code for d in again.diagnostics]
    assert shown(again) == expected
    before = analyze_source(old, "k.py", edition=OLD)
    assert structural_equal(before.functions[0], again.functions[0])
    if row in EXACTLY_BACK:
        assert back == old.replace("pl.op.block.", "pl.block.")
