"""Element-wise ops of two tiles of different dtypes, per edition (spec §4 and §9): both
editions promote (the code generators convert the narrower tile first), except 2026-08's
tile ÷ tile, which takes tiles of one dtype and one shape: E306 on the rhs with a ``pl.cast``
quick fix, E307 for a broadcast, E306 on the lhs for a dtype TDIV does not take."""

from __future__ import annotations

import pytest

from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.frontend.analysis import ModuleAnalysis
from ptoc.ir.types import TileType

HEADER = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[16, 64], {a}],
        b: pl.Tensor[[16, 64], {b}],
        r: pl.Tensor[[1, 64], {b}],
    ):
        ta = pl.load(a, [0, 0], [16, 64])
        tb = pl.load(b, [0, 0], [16, 64])
        tr = pl.load(r, [0, 0], [1, 64])
        c = {call}
"""
EDITIONS = {"2026-03": Edition.V2026_03, "2026-08": Edition.V2026_08}


def analyse(
    call: str, edition: str, a: str = "pl.FP16", b: str = "pl.FP32"
) -> tuple[str, ModuleAnalysis]:
    text = HEADER.format(a=a, b=b, call=call)
    return text, analyze_source(text, "k.py", edition=(EDITIONS[edition], EditionSource.FLAG))


def result_of(analysis: ModuleAnalysis) -> TileType:
    (program,) = analysis.all_programs()
    last = program.functions[0].body.stmts[-1]
    assert isinstance(last.var.type, TileType)
    return last.var.type


@pytest.mark.parametrize("edition", sorted(EDITIONS))
@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum", "minimum"])
def test_two_tiles_of_different_dtypes_promote_in_both_editions(op: str, edition: str) -> None:
    _, analysis = analyse(f"pl.{op}(ta, tb)", edition)
    assert [d.format() for d in analysis.diagnostics] == []
    assert result_of(analysis).dtype.name == "FP32"


def test_a_2026_03_tile_division_promotes_and_broadcasts() -> None:
    _, analysis = analyse("pl.div(tr, ta)", "2026-03")
    assert [d.format() for d in analysis.diagnostics] == []
    result = result_of(analysis)
    assert (result.dtype.name, result.short()) == ("FP32", "Tile[[16, 64], FP32]")


def test_a_2026_08_tile_division_of_two_dtypes_is_e306_on_the_rhs_with_a_cast_fix() -> None:
    text, analysis = analyse("pl.div(tb, ta)", "2026-08")
    (d,) = analysis.diagnostics
    line = text.splitlines().index("        c = pl.div(tb, ta)") + 1  # 'ta' at columns 23-25
    assert (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column) == (
        "E306",
        line,
        23,
        line,
        25,
    )
    assert d.message == (
        "div of two tiles takes tiles of one dtype in PyPTO 2026-08 (no promotion), got FP32 "
        "and FP16: convert 'rhs' with pl.cast(rhs, pl.FP32)"
    )
    assert [r.message for r in d.related] == ["'ta' is defined here as Tile[[16, 64], FP16]"]
    (fix,) = d.fixes
    (edit,) = fix.edits
    assert (edit.span, edit.new_text) == (d.span, "pl.cast(ta, pl.FP32)")
    fixed = text.replace("pl.div(tb, ta)", "pl.div(tb, pl.cast(ta, pl.FP32))")
    again = analyze_source(fixed, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [x.format() for x in again.diagnostics] == []
    assert result_of(again).dtype.name == "FP32"


def test_a_2026_08_tile_division_does_not_broadcast() -> None:
    text, analysis = analyse("pl.div(tb, tr)", "2026-08")
    (d,) = analysis.diagnostics
    assert (d.code, d.span.column, d.span.end_column) == ("E307", 23, 25)
    assert d.message == (
        "div of two tiles takes tiles of one shape in PyPTO 2026-08 (no broadcasting), got "
        "Tile[[16, 64], FP32] and Tile[[1, 64], FP32]"
    )
    assert d.fixes == ()


def test_a_2026_08_tile_division_takes_the_dtypes_tdiv_takes() -> None:
    _, analysis = analyse("pl.div(ta, tb)", "2026-08", a="pl.INT8", b="pl.INT8")
    (d,) = analysis.diagnostics
    assert (d.code, d.span.column, d.span.end_column) == ("E306", 19, 21)
    assert d.message == (
        "div of two tiles takes INT16, INT32, FP16, FP32 tiles in PyPTO 2026-08, got INT8"
    )


def test_a_2026_08_tile_division_of_one_dtype_and_shape_is_accepted() -> None:
    _, analysis = analyse("pl.div(ta, tb)", "2026-08", a="pl.FP32", b="pl.FP32")
    assert [d.format() for d in analysis.diagnostics] == []
    assert result_of(analysis).dtype.name == "FP32"


def test_a_2026_08_tensor_division_of_two_dtypes_promotes() -> None:
    text = HEADER.format(a="pl.FP16", b="pl.FP32", call="pl.div(a, b)")
    analysis = analyze_source(text, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [d.format() for d in analysis.diagnostics] == []
    (program,) = analysis.all_programs()
    assert program.functions[0].body.stmts[-1].var.type.short() == "Tensor[[16, 64], FP32]"


def test_a_2026_08_tile_comparison_of_two_dtypes_is_e306_on_the_rhs_with_a_cast_fix() -> None:
    # 2026-08's pl.cmp of tiles writes TCMP's packed mask (TCmpCheck: sources of one type).
    text, analysis = analyse("pl.cmp(ta, tb, cmp_type=2)", "2026-08")
    (d,) = analysis.diagnostics
    assert (d.code, d.span.column, d.span.end_column) == ("E306", 23, 25)
    assert d.message == (
        "block.cmp_mask: the operands must be of one dtype (TCMP compares tiles of one type), "
        "got FP16 and FP32: convert 'rhs' with pl.cast(rhs, pl.FP16)"
    )
    (fix,) = d.fixes
    assert [e.new_text for e in fix.edits] == ["pl.cast(tb, pl.FP16)"]
    fixed = text.replace("pl.cmp(ta, tb,", "pl.cmp(ta, pl.cast(tb, pl.FP16),")
    again = analyze_source(fixed, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [x.format() for x in again.diagnostics] == []


def test_a_2026_08_tile_comparison_of_a_dtype_tcmp_does_not_take_is_e306_on_the_lhs() -> None:
    _, analysis = analyse("pl.cmp(ta, tb, cmp_type=2)", "2026-08", a="pl.INT8", b="pl.INT8")
    (d,) = analysis.diagnostics
    assert (d.code, d.span.column, d.span.end_column) == ("E306", 19, 21)
    assert d.message == "block.cmp_mask: the operands must be FP32, FP16 or INT32 tiles, got INT8"
