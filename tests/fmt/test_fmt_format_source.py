"""``format_source``: canonicalisation, black, statuses, and what must survive formatting."""

from __future__ import annotations

import textwrap

from ptoc.fmt import FormatResult, format_source
from ptoc.frontend import analyze_source
from ptoc.ir import structural_equal


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def legacy_codes(text: str) -> list[str]:
    return [d.code for d in analyze_source(text).diagnostics if d.code == "W003"]


def assert_same_ir(a: str, b: str) -> None:
    before, after = analyze_source(a).all_programs(), analyze_source(b).all_programs()
    assert [p.name for p in before] == [p.name for p in after]
    assert all(structural_equal(x, y) for x, y in zip(before, after, strict=True))


MESSY = dedent(
    """
    # header comment
    import pypto.language as pl   # the DSL
    # before the decorator
    @pl.program
    class K:
      # before a function decorator
      @pl.function( type = pl.FunctionType.InCore )
      def k(self, x: pl.Tensor[[64, 128], pl.FP32],  # first
            out: pl.Tensor[[64,128],pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
          '''Docstring   with  inner   spacing.'''
          t: pl.Tile[[64,128], pl.FP32] = pl.load(x, [0,0],   # offsets
                       [64, 128])   # shape
          # between statements
          u: pl.Tile[[64, 128], pl.FP32] = pl.add(t,t) #line end
          r: pl.Tensor[[64, 128], pl.FP32] = pl.store(u, [0, 0], [64, 128], out)
          return r
    # at the end
    """
)

MESSY_FORMATTED = dedent(
    '''
    # header comment
    import pypto.language as pl  # the DSL


    # before the decorator
    @pl.program
    class K:
        # before a function decorator
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            x: pl.Tensor[[64, 128], pl.FP32],  # first
            out: pl.Tensor[[64, 128], pl.FP32],
        ) -> pl.Tensor[[64, 128], pl.FP32]:
            """Docstring   with  inner   spacing."""
            t: pl.Tile[[64, 128], pl.FP32] = pl.load(
                x, [0, 0], [64, 128]  # offsets
            )  # shape
            # between statements
            u: pl.Tile[[64, 128], pl.FP32] = pl.add(t, t)  # line end
            r: pl.Tensor[[64, 128], pl.FP32] = pl.store(u, [0, 0], [64, 128], out)
            return r


    # at the end
    '''
)


def test_messy_kernel_is_formatted_with_every_comment_kept() -> None:
    result = format_source(MESSY, "k.py")
    assert result == FormatResult(True, MESSY_FORMATTED, "formatted", "")
    assert_same_ir(MESSY, result.text)


def test_formatting_is_idempotent() -> None:
    assert format_source(MESSY_FORMATTED, "k.py") == FormatResult(
        False, MESSY_FORMATTED, "unchanged", ""
    )


LEGACY = dedent(
    """
    import pypto.language as pl

    @pl.program
    class Legacy:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor((128, 128), pl.FP32), out: pl.Tensor((32, 128), pl.FP32)) -> pl.Tensor((32, 128), pl.FP32):
            t: pl.Tile((32, 128), pl.FP32) = pl.op.block.load(a, 0, 0, 32, 128)
            u = pl.op.block.add(t, t)
            m = pl.load(a, [0, 0], [32, 128], target_memory=pl.MemorySpace.UB)
            r: pl.Tensor((32, 128), pl.FP32) = pl.op.block.store(u, 0, 0, 32, 128, out)
            return r
    """
)

LEGACY_FORMATTED = dedent(
    """
    import pypto.language as pl


    @pl.program
    class Legacy:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Tensor[[32, 128], pl.FP32]
        ) -> pl.Tensor[[32, 128], pl.FP32]:
            t: pl.Tile[[32, 128], pl.FP32] = pl.block.load(a, [0, 0], [32, 128])
            u = pl.block.add(t, t)
            m = pl.load(a, [0, 0], [32, 128], target_memory=pl.MemorySpace.Vec)
            r: pl.Tensor[[32, 128], pl.FP32] = pl.block.store(u, [0, 0], [32, 128], out)
            return r
    """
)


def test_every_legacy_spelling_is_rewritten_and_proven() -> None:
    assert len(legacy_codes(LEGACY)) == 11
    result = format_source(LEGACY, "legacy.py")
    assert result == FormatResult(
        True, LEGACY_FORMATTED, "formatted", "rewrote 11 legacy spellings"
    )
    assert legacy_codes(result.text) == []
    assert_same_ir(LEGACY, result.text)


def test_a_legacy_spelling_inside_a_formatted_file_is_still_rewritten() -> None:
    text = LEGACY_FORMATTED.replace("pl.block.add", "pl.op.block.add")
    result = format_source(text, "legacy.py")
    assert result == FormatResult(True, LEGACY_FORMATTED, "formatted", "rewrote 1 legacy spelling")


def test_nested_legacy_spellings_take_two_rounds() -> None:
    # The positional-store fix overlaps the inner call's namespace fix, so it waits for the
    # second round (on the re-analysed text); both must end up applied.
    text = dedent(
        """
        import pypto.language as pl


        @pl.function(type=pl.FunctionType.InCore)
        def f(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
            r = pl.op.block.store(pl.op.block.add(t, t), 0, 0, 64, 64, a)
            return r
        """
    )
    result = format_source(text, "f.py")
    assert result.status == "formatted"
    assert "    r = pl.block.store(pl.block.add(t, t), [0, 0], [64, 64], a)\n" in result.text
    assert result.reason == "rewrote 3 legacy spellings"
    assert legacy_codes(result.text) == []
    assert_same_ir(text, result.text)


def test_a_legacy_form_holding_a_comment_is_rewritten_once_black_moves_the_comment() -> None:
    text = dedent(
        """
        import pypto.language as pl

        @pl.function
        def f(a: pl.Tensor((64, 128),  # shape
                           pl.FP16)) -> pl.Tensor[[64, 128], pl.FP16]:
            return a
        """
    )
    expected = dedent(
        """
        import pypto.language as pl


        @pl.function
        def f(a: pl.Tensor[[64, 128], pl.FP16]) -> pl.Tensor[[64, 128], pl.FP16]:  # shape
            return a
        """
    )
    assert format_source(text, "f.py") == FormatResult(
        True, expected, "formatted", "rewrote 1 legacy spelling"
    )


def test_a_syntax_error_is_an_error_and_the_text_is_untouched() -> None:
    text = "import pypto.language as pl\n\nx = pl.add(a,\n"
    result = format_source(text, "bad.py")
    assert (result.changed, result.text, result.status) == (False, text, "error")
    assert (result.line, result.column) == (3, 11)
    assert result.reason


def test_a_syntax_error_in_a_plain_python_file_named_explicitly() -> None:
    text = "def f(:\n    pass\n"
    result = format_source(text, "plain.py", explicit=True)
    assert (result.status, result.text, result.line, result.column) == ("error", text, 1, 7)


def test_a_file_without_pypto_is_skipped_unless_named_explicitly() -> None:
    text = "x = [1,2,\n  3]\n"
    assert format_source(text, "plain.py") == FormatResult(
        False, text, "skipped", "does not import pypto.language"
    )
    assert format_source(text, "plain.py", explicit=True) == FormatResult(
        True, "x = [1, 2, 3]\n", "formatted", ""
    )


def test_line_length_is_passed_to_black() -> None:
    text = "import pypto.language as pl\n\nSHAPE = [128, 128, 128, 128]\n"
    result = format_source(text, "s.py", line_length=20)
    assert result.text == (
        "import pypto.language as pl\n\nSHAPE = [\n    128,\n    128,\n    128,\n    128,\n]\n"
    )


def test_crlf_newlines_and_a_byte_order_mark_are_kept() -> None:
    text = "\ufeffimport pypto.language as pl\r\nX  =  1\r\n"
    result = format_source(text, "crlf.py")
    assert result == FormatResult(
        True, "\ufeffimport pypto.language as pl\r\n\r\nX = 1\r\n", "formatted", ""
    )
    assert format_source(result.text, "crlf.py").status == "unchanged"


def test_a_file_with_type_errors_is_formatted_and_keeps_its_diagnostics() -> None:
    text = dedent(
        """
        import pypto.language as pl
        @pl.function
        def ok(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            return a
        @pl.function
        def bad(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP16]:
            b: pl.Tensor[[64,64], pl.FP32] = pl.add(a,c)
            return b
        """
    )
    result = format_source(text, "bad.py")
    assert result.status == "formatted"
    assert "b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, c)" in result.text
    codes = [d.code for d in analyze_source(text).diagnostics]
    assert codes == [d.code for d in analyze_source(result.text).diagnostics] == ["E200", "W007"]


def test_an_empty_file_is_unchanged() -> None:
    assert format_source("", "empty.py", explicit=True) == FormatResult(False, "", "unchanged", "")


def test_a_legacy_form_whose_range_keeps_a_comment_is_left_alone() -> None:
    text = dedent(
        """
        import pypto.language as pl


        @pl.function
        def f(
            a: pl.Tensor(
                (64, 128),  # shape
                pl.FP16,
            ),
        ) -> pl.Tensor[[64, 128], pl.FP16]:
            return a
        """
    )
    assert format_source(text, "f.py") == FormatResult(
        False, text, "unchanged", "kept 1 legacy spelling whose range holds a comment"
    )
