"""The upgrade's proof: a rewrite the 2026-08 IR does not bear out is left as written and
reported, the others stay; a file whose meaning cannot be kept is not written at all."""

from __future__ import annotations

import pytest

from ptoc.diagnostics import TextEdit
from ptoc.frontend.upgrades import Rewrite, UpgradePlan
from ptoc.ir.span import Span
from ptoc.upgrade import upgrade_source, upgrader

KERNEL = """import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[
    [64, 64], pl.FP32
]:
    t = pl.block.load(a, [0, 0], [64, 64])
    u = pl.block.add(t, t)
    out = pl.block.store(u, [0, 0], [64, 64], out)
    return out
"""


def wrong_rewrite(line: int, column: int, end: int, text: str) -> Rewrite:
    span = Span("k.py", line, column, line, end)
    return Rewrite("a wrong row", "old", text, span, (TextEdit(span, text),))


def with_extra(monkeypatch: pytest.MonkeyPatch, extra: Rewrite) -> None:
    real = upgrader.plan_upgrade

    def plan(tree, analysis, imports=None):  # type: ignore[no-untyped-def]
        found = real(tree, analysis, imports)
        return UpgradePlan(sorted([*found.rewrites, extra], key=lambda r: r.span[1:3]), found.kept)

    monkeypatch.setattr(upgrader, "plan_upgrade", plan)


def test_a_rewrite_that_changes_the_ir_is_left_out_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `return out` -> `return a`: another value, so the 2026-08 IR differs
    line = KERNEL.splitlines().index("    return out") + 1
    with_extra(monkeypatch, wrong_rewrite(line, 11, 14, "a"))
    result = upgrade_source(KERNEL, "k.py")
    assert result.status == "upgraded"
    assert result.text.endswith("    return out\n")  # left as it was
    assert "pl.tile.add(t, t)" in result.text and "pl.tile.store(u, [0, 0], out)" in result.text
    (left,) = result.left
    assert (left.line, left.column, left.spelling) == (line, 12, "old")
    assert left.why == (
        "the proof fails with this rewrite: in function 'k', its IR under 2026-08 differs "
        "from the original's"
    )


def test_a_rewrite_that_adds_an_error_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    line = KERNEL.splitlines().index("    return out") + 1
    with_extra(monkeypatch, wrong_rewrite(line, 11, 14, "no_such_name"))
    result = upgrade_source(KERNEL, "k.py")
    assert result.status == "upgraded" and result.text.endswith("    return out\n")
    assert "its diagnostics change (before: none; after: E" in result.left[0].why


def test_a_function_whose_meaning_changes_anyway_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def always_different(before, after):  # type: ignore[no-untyped-def]
        return {"k": "its IR under 2026-08 differs from the original's"}

    monkeypatch.setattr(upgrader, "differences", always_different)
    result = upgrade_source(KERNEL, "k.py")
    assert (result.status, result.text) == ("refused", KERNEL)
    assert "function 'k' cannot be upgraded" in result.reason


def test_the_newline_style_and_byte_order_mark_are_kept() -> None:
    text = "\ufeff" + KERNEL.replace("\n", "\r\n")
    result = upgrade_source(text, "k.py")
    assert result.status == "upgraded"
    assert result.text.startswith("\ufeffimport pypto.language as pl\r\n")
    assert result.text.count("\r\n") == KERNEL.count("\n")
    assert "pl.tile.store(u, [0, 0], out)\r\n" in result.text


def test_a_file_in_2026_08_spelling_is_unchanged_and_plain_python_is_skipped() -> None:
    new = upgrade_source(KERNEL, "k.py").text
    assert upgrade_source(new, "k.py").status == "unchanged"
    assert upgrade_source("x = 1\n", "p.py").status == "skipped"
    broken = upgrade_source("import pypto.language as pl\nx = (\n", "b.py")
    assert broken.status == "error" and "not valid Python" in broken.reason


def test_the_files_own_name_for_the_language_is_kept() -> None:
    aliased = KERNEL.replace("import pypto.language as pl", "import pypto.language as pto")
    aliased = aliased.replace("pl.", "pto.")
    result = upgrade_source(aliased, "k.py")
    assert result.status == "upgraded"
    assert "    t = pto.tile.load(a, [0, 0], [64, 64])\n" in result.text
    dotted = KERNEL.replace("import pypto.language as pl", "import pypto.language")
    dotted = dotted.replace("pl.", "pypto.language.")
    scoped = dotted.replace(
        "    t = pypto.language.block.load",
        "    with pypto.language.incore():\n        pass\n    t = pypto.language.block.load",
    )
    result = upgrade_source(scoped, "k.py")
    assert result.status == "upgraded", result.reason
    assert "with pypto.language.at(level=pypto.language.Level.CORE_GROUP):\n" in result.text
    assert "pypto.language.tile.store(u, [0, 0], out)" in result.text


def test_a_store_window_named_by_a_constant_is_recognised() -> None:
    named = KERNEL.replace(
        "import pypto.language as pl\n", "import pypto.language as pl\n\nW = [64, 64]\n"
    )
    named = named.replace(
        "pl.block.store(u, [0, 0], [64, 64], out)", "pl.block.store(u, [0, 0], W, out)"
    )
    result = upgrade_source(named, "k.py")
    assert result.status == "upgraded"
    assert "    out = pl.tile.store(u, [0, 0], out)\n" in result.text
    half = named.replace("W = [64, 64]", "W = [32, 64]")
    assert "    out = pl.tile.store(u, [0, 0], out, W)\n" in upgrade_source(half, "k.py").text


def test_a_failing_rewrite_beside_a_left_row_is_left_out_and_the_rest_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_sum = KERNEL.replace(
        "    u = pl.block.add(t, t)\n",
        "    u = pl.block.add(t, t)\n    s = pl.block.sum(t, axis=1, keepdim=True)\n",
    )
    line = with_sum.splitlines().index("    return out") + 1
    with_extra(monkeypatch, wrong_rewrite(line, 11, 14, "a"))
    result = upgrade_source(with_sum, "k.py")
    assert result.status == "upgraded", result.reason
    assert "pl.tile.add(t, t)" in result.text and result.text.endswith("    return out\n")
    assert [n.spelling for n in result.left] == ["pl.block.sum", "old"]
