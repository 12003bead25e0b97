"""INDEX, 2026-08's own dtype of index-like values (spec §4): loop variables, ``pl.tensor.dim``,
the block-index queries and an annotation's ``pl.INDEX`` are INDEX under 2026-08 and INT64
under 2026-03 (``EditionRules.index_dtype``); INDEX passes for any integer; the printer writes
``pl.INDEX`` and reads it back; the upgrade's proof reads INDEX as the INT64 it was."""

from __future__ import annotations

import textwrap

from frontend_helpers import where

from ptoc.editions import RULES, Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.ir.dtype import DataType
from ptoc.ir.equality import structural_equal
from ptoc.ir.types import ScalarType
from ptoc.printer import print_program
from ptoc.upgrade import upgrade_source

HEADER = "import pypto.language as pl\n\n"
OLD, NEW = (Edition.V2026_03, EditionSource.FLAG), (Edition.V2026_08, EditionSource.FLAG)
T = "pl.Tensor[[64, 64], pl.FP32]"

KERNEL = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {T}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T}]) -> {T}:
        b = pl.get_block_num()
        for i in pl.range(4):
            row = (i + b) * 16 % n
            t = pl.load(a, [row, 0], [16, 64])
            out = pl.store(t, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {T}, out: pl.Out[{T}]) -> {T}:
        rows = pl.tensor.dim(a, 0)
        out = self.k(a, rows, out)
        return out
"""


def analyse(body: str, edition: tuple[Edition, EditionSource] | None):
    text = HEADER + textwrap.dedent(body)
    return text, analyze_source(text, "k.py", edition=edition)


def dtypes(analysis, *names: str) -> list[str]:
    found = {
        o.name: o.type for o in analysis.index.occurrences if o.is_definition and o.name in names
    }
    return [found[n].dtype.name for n in names]


def test_the_edition_rules_say_which_dtype_index_like_values_get():
    assert RULES[Edition.V2026_03].index_dtype is DataType.INT64
    assert RULES[Edition.V2026_08].index_dtype is DataType.INDEX


def test_index_like_values_are_index_in_2026_08_and_int64_in_2026_03():
    names = ("i", "row", "b", "rows", "n")
    _, old = analyse(KERNEL, OLD)
    _, new = analyse(KERNEL, NEW)
    assert [d.code for d in old.diagnostics] == ["W031"]  # pl.store's 2026-08 form
    assert [d.code for d in new.diagnostics] == []
    assert dtypes(old, *names) == ["INT64"] * 5
    assert dtypes(new, *names) == ["INDEX"] * 5


def test_a_file_no_spelling_ties_to_an_edition_keeps_int64():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Scalar[pl.INT64]):
            for i in pl.range(4):
                y = i + x
    """
    _, a = analyse(body, None)
    assert a.edition is not None and a.edition.source is EditionSource.DEFAULT
    assert dtypes(a, "i", "y") == ["INT64", "INT64"]


def test_an_index_passes_for_any_integer_but_not_for_a_bool():
    body = """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def worker(self, r: pl.Scalar[pl.INT32], flag: pl.Scalar[pl.BOOL]):
                return

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, f: pl.Scalar[pl.BOOL]):
                for r in pl.range(4):
                    wide: pl.Scalar[pl.INT32] = r
                    self.worker(r, f)
                    self.worker(wide, r)
    """
    text, old = analyse(body, OLD)
    _, new = analyse(body, NEW)
    at = lambda needle: where(text, needle)[:2]  # noqa: E731
    line, column = at("wide, r)")
    column += len("wide, ")
    # 2026-03: the INT64 loop variable is another dtype than INT32 (passed as it is: W026)
    assert [(d.code, d.span.line, d.span.column) for d in old.diagnostics] == [
        ("W006", *at("pl.Scalar[pl.INT32] = r")),
        ("W026", *at("r, f)")),
        ("W026", *at("wide, r)")),  # (a variable's type is its value's: INT64)
        ("W026", line, column),
    ]
    # 2026-08: INDEX stands for the INT32 (``wide`` is INDEX too); a BOOL is no integer
    assert [(d.code, d.span.line, d.span.column) for d in new.diagnostics] == [
        ("W026", line, column),
    ]
    assert "got Scalar[INDEX]" in new.diagnostics[0].message


def test_the_printer_writes_pl_index_and_reads_it_back():
    text, a = analyse(KERNEL, NEW)
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    assert "n: pl.Scalar[pl.INDEX]" in printed
    assert "row: pl.Scalar[pl.INDEX] = (i + b) * 16 % n" in printed
    again = analyze_source(printed, "printed.py")
    assert again.edition is not None and again.edition.edition is Edition.V2026_08
    assert [d.code for d in again.diagnostics] == []
    assert structural_equal(a.programs[0], again.programs[0])


def test_structural_equality_may_read_index_as_int64():
    _, old = analyse(KERNEL, OLD)
    _, new = analyse(KERNEL, NEW)
    assert not structural_equal(old.programs[0], new.programs[0])
    assert structural_equal(old.programs[0], new.programs[0], index_as_int64=True)
    # still a difference of any other dtype
    int32 = KERNEL.replace("pl.Scalar[pl.INDEX]", "pl.Scalar[pl.INT32]")
    _, narrow = analyse(int32, NEW)
    assert not structural_equal(old.programs[0], narrow.programs[0], index_as_int64=True)


def test_the_upgrade_proves_a_loop_whose_variable_becomes_index():
    text = HEADER + textwrap.dedent(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T}, out: pl.Out[{T}]) -> {T}:
                for i in pl.range(4):
                    row = i * 16
                    t = pl.block.load(a, [row, 0], [16, 64])
                    out = pl.block.store(t, [row, 0], [16, 64], out)
                return out
    """)
    result = upgrade_source(text, "k.py")
    assert result.status == "upgraded", result.reason
    assert "pl.tile.store(t, [row, 0], out)" in result.text
    upgraded = analyze_source(result.text, "k.py")
    assert upgraded.edition is not None and upgraded.edition.edition is Edition.V2026_08
    row = next(o.type for o in upgraded.index.occurrences if o.name == "row" and o.is_definition)
    assert row == ScalarType(DataType.INDEX)


def test_an_integer_literal_beside_an_index_gives_an_index_on_either_side():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Scalar[pl.INT64], y: pl.Scalar[pl.INT32]):
            for i in pl.range(4):
                left = 16 * i
                right = i * 16
                named = x * i
                narrow = y + i
    """
    _, new = analyse(body, NEW)
    _, old = analyse(body, OLD)
    names = ("left", "right", "named", "narrow")
    # a named INT64 first keeps promotion's rule (equal widths: the first operand's)
    assert dtypes(new, *names) == ["INDEX", "INDEX", "INT64", "INDEX"]
    assert dtypes(old, *names) == ["INT64"] * 4


def test_a_loop_whose_bounds_are_all_explicit_int64_constants_counts_in_int64():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Scalar[pl.INT64]):
            for i in pl.range(pl.const(0, pl.INT64), pl.const(8, pl.INT64), pl.const(2, pl.INT64)):
                a = i
            for j in pl.range(pl.const(8, pl.INT64)):
                b = j
            for m in pl.range(pl.const(0, pl.INT64), 8):
                c = m
            for n in pl.range(pl.const(8, pl.INT32)):
                d = n
    """
    _, new = analyse(body, NEW)
    assert [d.code for d in new.diagnostics] == []
    assert dtypes(new, "i", "j", "m", "n") == ["INT64", "INT64", "INDEX", "INDEX"]


QUERIES = """
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[64, 32], pl.FP32], x: pl.Scalar[pl.INT32], w: pl.Scalar[pl.FP32]):
        c = pl.const(3, pl.INDEX)
        c64 = pl.const(3, pl.INT64)
        d = pl.cast(x, pl.INDEX)
        d64 = pl.cast(x, pl.INT64)
        e = pl.cast(w, pl.INDEX)
        r = a.shape[0]
        M, N = a.shape
        s = r + M * N + 1
"""


def test_pl_const_and_pl_cast_read_index_per_edition():
    names = ("c", "c64", "d", "d64", "e")
    _, new = analyse(QUERIES, NEW)
    assert [d.code for d in new.diagnostics] == []
    assert dtypes(new, *names) == ["INDEX", "INT64", "INDEX", "INT64", "INDEX"]
    # 2026-03: pl.INDEX is INT64 (pl.cast of a scalar is 2026-08's: E310, no type)
    _, old = analyse(QUERIES, OLD)
    assert [d.code for d in old.diagnostics] == ["E310"] * 3
    assert dtypes(old, "c", "c64") == ["INT64", "INT64"]


def test_shape_dims_queried_as_scalars_are_index_in_2026_08_and_int64_in_2026_03():
    names = ("r", "M", "N", "s")
    _, new = analyse(QUERIES, NEW)
    _, old = analyse(QUERIES, OLD)
    assert dtypes(new, *names) == ["INDEX"] * 4
    assert dtypes(old, *names) == ["INT64"] * 4
    # the tensor's own shape keeps its dims as written (INT64 constants)
    a = dtypes_of(new, "a")
    assert [dim.dtype.name for dim in a.shape] == ["INT64", "INT64"]


def dtypes_of(analysis, name: str):
    return next(o.type for o in analysis.index.occurrences if o.is_definition and o.name == name)
