"""Per-function caching: an edit inside one function re-analyses only that function."""

from __future__ import annotations

from ptoc.frontend import AnalysisCache, analyze_source
from ptoc.ir import structural_equal

SOURCE = """import pypto.language as pl

@pl.program
class P:
    @pl.function
    def a(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        y = pl.add(x, x)
        return y

    @pl.function
    def b(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        z = self.a(x)
        return z

    @pl.function
    def c(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        w = pl.mul(x, x)
        return w
"""


def test_edit_inside_one_function_reuses_the_others():
    cache = AnalysisCache()
    first = analyze_source(SOURCE, "k.py", cache)
    assert first.reused_functions == 0
    edited = SOURCE.replace("w = pl.mul(x, x)", "w = pl.sub(x, x)")
    second = analyze_source(edited, "k.py", cache)
    assert second.reused_functions == 2  # a and b come from the cache, c is re-analysed
    fresh = analyze_source(edited, "k.py")
    for cached_program, fresh_program in zip(second.programs, fresh.programs, strict=True):
        assert structural_equal(cached_program, fresh_program)
    assert second.diagnostics == fresh.diagnostics
    assert len(second.index.occurrences) == len(fresh.index.occurrences)


def test_signature_change_invalidates_callers():
    cache = AnalysisCache()
    analyze_source(SOURCE, "k.py", cache)
    edited = SOURCE.replace(
        "def a(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:",
        "def a(self, x: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:",
    )
    result = analyze_source(edited, "k.py", cache)
    assert result.reused_functions == 0
    # b now calls a with an FP32 tensor: the caller is re-checked and the error is found
    assert [d.code for d in result.diagnostics] == ["E111", "W007"]


def test_errors_of_cached_functions_are_still_reported():
    cache = AnalysisCache()
    broken = SOURCE.replace("y = pl.add(x, x)", "y = pl.add(x, undefined)")
    first = analyze_source(broken, "k.py", cache)
    second = analyze_source(broken.replace("pl.mul(x, x)", "pl.sub(x, x)"), "k.py", cache)
    assert second.reused_functions == 2
    assert [d.code for d in second.diagnostics] == [d.code for d in first.diagnostics] == ["E200"]


def test_line_shift_recomputes_positions():
    cache = AnalysisCache()
    analyze_source(SOURCE, "k.py", cache)
    shifted = SOURCE.replace("@pl.program", "# a comment\n@pl.program")
    result = analyze_source(shifted, "k.py", cache)
    fresh = analyze_source(shifted, "k.py")
    spans = sorted((o.span.line, o.span.column, o.name) for o in result.index.occurrences)
    assert spans == sorted((o.span.line, o.span.column, o.name) for o in fresh.index.occurrences)


def test_signature_diagnostics_survive_reuse():
    cache = AnalysisCache()
    text = SOURCE.replace(
        "def c(self, x: pl.Tensor[[64, 64], pl.FP32])",
        "def c(self, x, y: pl.Tensor[[64, 64], pl.FP31])",
    )
    first = analyze_source(text, "k.py", cache)
    second = analyze_source(text.replace("y = pl.add(x, x)", "y = pl.sub(x, x)"), "k.py", cache)
    assert second.reused_functions == 2
    assert (
        [d.code for d in first.diagnostics]
        == [d.code for d in second.diagnostics]
        == ["E100", "E105"]
    )


def test_constant_change_invalidates_signatures():
    cache = AnalysisCache()
    text = "import pypto.language as pl\nN = 64\n\n" + SOURCE.split("\n", 1)[1].replace(
        "[64, 64]", "[N, 64]"
    )
    analyze_source(text, "k.py", cache)
    changed = analyze_source(text.replace("N = 64", "N = 32"), "k.py", cache)
    fresh = analyze_source(text.replace("N = 64", "N = 32"), "k.py")
    assert changed.reused_functions == 0
    assert [str(p.type.short()) for p in changed.programs[0].functions[0].params] == [
        "Tensor[[32, 64], FP32]"
    ]
    assert changed.diagnostics == fresh.diagnostics
