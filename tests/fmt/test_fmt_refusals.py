"""Every safety proof can fail, and a failed proof leaves the text untouched."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import black
import pytest

from ptoc.fmt import FormatResult, format_source, formatter
from ptoc.fmt.canonical import Canonicalised
from ptoc.fmt.proofs import prove_same_comments, prove_same_ir, prove_same_python
from ptoc.frontend import analyze_source

KERNEL = textwrap.dedent(
    '''\
    """Adds a tile to itself."""
    import pypto.language as pl
    LIMIT = 1
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        t: pl.Tile[[64, 128], pl.FP32] = pl.load(x, [0, 0], [64, 128])
        u: pl.Tile[[64, 128], pl.FP32] = pl.add(t, t)  # line end
        r: pl.Tensor[[64, 128], pl.FP32] = pl.store(u, [0, 0], [64, 128], out)
        return r
    '''
)

REAL_FORMAT_STR = black.format_str


def fake_black(monkeypatch: pytest.MonkeyPatch, change: Callable[[str], str]) -> None:
    def format_str(src_contents: str, *, mode: black.Mode) -> str:
        return change(REAL_FORMAT_STR(src_contents, mode=mode))

    monkeypatch.setattr(black, "format_str", format_str)


def refused(reason: str) -> FormatResult:
    return FormatResult(False, KERNEL, "refused", reason)


def test_the_kernel_formats_with_the_real_black() -> None:
    assert format_source(KERNEL, "k.py").status == "formatted"


def test_black_changing_the_meaning_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_black(monkeypatch, lambda text: text.replace("pl.add(t, t)", "pl.sub(t, t)"))
    assert format_source(KERNEL, "k.py") == refused(
        "black changed the meaning of the code (the statement at line 13 of its output differs)"
    )


def test_black_dropping_a_comment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_black(monkeypatch, lambda text: text.replace("  # line end", ""))
    assert format_source(KERNEL, "k.py") == refused("the comments changed (1 before, 0 after)")


def test_black_rewording_a_comment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_black(monkeypatch, lambda text: text.replace("# line end", "# line stop"))
    assert format_source(KERNEL, "k.py") == refused(
        "the comments changed (number 1 was 'line end', is 'line stop')"
    )


def test_unstable_formatting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0

    def flip(text: str) -> str:
        nonlocal calls
        calls += 1  # odd calls parenthesise the constant, even ones do not: same AST
        return text.replace("LIMIT = 1", "LIMIT = (1)") if calls % 2 else text

    fake_black(monkeypatch, flip)
    assert format_source(KERNEL, "k.py") == refused(
        "formatting is not stable (formatting the result again changes it)"
    )


def test_a_wrong_canonical_rewrite_is_caught_by_the_ir_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def bad_canonicalise(
        text: str, path: str, analysis: object, analyze: Callable[..., object]
    ) -> Canonicalised:
        wrong = text.replace("pl.add(t, t)", "pl.mul(t, t)")
        return Canonicalised(wrong, analyze_source(wrong, path), 1, 0)

    monkeypatch.setattr(formatter, "canonicalise", bad_canonicalise)
    assert format_source(KERNEL, "k.py") == refused("the IR of function 'k' changed")


def test_a_front_end_crash_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import ptoc.frontend

    def crash(text: str, path: str = "<string>") -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(ptoc.frontend, "analyze_source", crash)
    assert format_source(KERNEL, "k.py") == refused(
        "the front end could not analyse the original (E900), so its IR cannot be compared"
    )


def test_black_rejecting_the_file_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def reject(src_contents: str, *, mode: black.Mode) -> str:
        raise black.InvalidInput("Cannot parse: 1:4: nope")

    monkeypatch.setattr(black, "format_str", reject)
    assert format_source(KERNEL, "k.py") == FormatResult(
        False, KERNEL, "error", "black cannot format this file: Cannot parse: 1:4: nope"
    )


# --- the proofs one by one ------------------------------------------------------------------------


def test_docstring_proof() -> None:
    before = 'def f():\n    """Doc  string.\n\n    More."""\n'
    reindented = 'def f():\n    """Doc  string.\n\n        More.   """\n'
    assert prove_same_comments(before, reindented) is None
    reworded = 'def f():\n    """Doc string.\n\n    More."""\n'
    assert prove_same_comments(before, reworded) == (
        "the docstrings changed (number 1 was 'Doc  string.\\n\\nMore.', is 'Doc "
        "string.\\n\\nMore.')"
    )


def test_comment_proof_accepts_what_black_does_to_comments() -> None:
    before = "x = [1,  #first\n  2]  #type:ignore\ny = 1 #\u00a0second\n"
    after = "x = [1, 2]  # first  # type: ignore\ny = 1  # second\n"
    assert prove_same_comments(before, after) is None


def test_ast_proof_accepts_what_black_does_to_docstrings_and_del() -> None:
    before = 'def f():\n  u"""  Doc.  """\n  del (a, b)\n'
    after = 'def f():\n    """Doc."""\n    del a, b\n'
    assert prove_same_python(before, after) is None
    assert prove_same_python(before, after.replace("del a, b", "del a")) == (
        "black changed the meaning of the code (the statement at line 3 of its output differs)"
    )


ERRORS = textwrap.dedent(
    """\
    import pypto.language as pl


    @pl.function
    def ok(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, a)
        return b


    @pl.function
    def bad(a: pl.Tensor[[64, 64], pl.FP32], c: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        e = pl.add(a, c)
        b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, a)
        return b
    """
)


def test_ir_proof_with_errors_compares_the_error_free_functions() -> None:
    before = analyze_source(ERRORS, "e.py")
    assert [d.code for d in before.diagnostics] == ["E307"]
    head, _, tail = ERRORS.rpartition("pl.add(a, a)")  # the call in `bad`
    changed_bad = head + "pl.mul(a, a)" + tail
    assert prove_same_ir(before, analyze_source(changed_bad, "e.py")) is None
    changed_ok = ERRORS.replace("pl.add(a, a)", "pl.mul(a, a)", 1)
    assert prove_same_ir(before, analyze_source(changed_ok, "e.py")) == (
        "the IR of function 'ok' changed"
    )


def test_ir_proof_requires_the_same_diagnostics() -> None:
    before = analyze_source(ERRORS, "e.py")
    fixed = ERRORS.replace("pl.add(a, c)", "pl.add(c, c)")
    assert prove_same_ir(before, analyze_source(fixed, "e.py")) == (
        "the diagnostics changed (before: E307; after: none)"
    )


def test_ir_proof_requires_the_same_programs() -> None:
    before = analyze_source(ERRORS, "e.py")
    renamed = ERRORS.replace("def ok(", "def fine(")
    assert prove_same_ir(before, analyze_source(renamed, "e.py")) == (
        "the programs changed (before: ['ok', 'bad']; after: ['fine', 'bad'])"
    )


def test_a_bug_in_fmt_itself_is_a_refusal_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> object:
        raise KeyError("oops")

    monkeypatch.setattr(formatter, "run_passes", broken)
    assert format_source(KERNEL, "k.py") == refused("internal error: KeyError: 'oops'")


def test_a_canonical_rewrite_that_breaks_the_syntax_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def breaking_canonicalise(
        text: str, path: str, analysis: object, analyze: Callable[..., object]
    ) -> Canonicalised:
        wrong = text.replace("pl.add(t, t)", "pl.add(t, t")
        return Canonicalised(wrong, analyze_source(wrong, path), 1, 0)

    monkeypatch.setattr(formatter, "canonicalise", breaking_canonicalise)
    result = format_source(KERNEL, "k.py")
    assert (result.status, result.text) == ("refused", KERNEL)
    assert result.reason.startswith("rewriting the legacy spellings gave invalid Python (")
