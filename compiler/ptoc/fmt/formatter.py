"""``format_source``: canonical spellings, then black, then the proofs; never raises."""

from __future__ import annotations

import ast
from typing import Literal

from ..frontend.analysis import ModuleAnalysis
from ..records import record
from .canonical import canonicalise, pending_fixes
from .proofs import (
    first_line,
    prove_same_comments,
    prove_same_ir,
    prove_same_python,
    prove_stable,
)

DEFAULT_LINE_LENGTH = 88
BOM = "\ufeff"
MAX_PASSES = 3
MAX_CHARS = 256 * 1024
MAX_LINE_CHARS = 64 * 1024

FormatStatus = Literal["unchanged", "formatted", "skipped", "refused", "error"]


@record(frozen=True)
class FormatResult:
    """What formatting one text gave. ``text`` is the input itself unless ``status`` is
    ``formatted``. For ``error``, ``line``/``column`` (1-based, 0 when unknown) locate the
    problem; ``reason`` says why a file was skipped, refused or not parsed, and for formatted
    files notes what canonicalisation did."""

    changed: bool
    text: str
    status: FormatStatus
    reason: str = ""
    line: int = 0
    column: int = 0


def analyze(text: str, path: str) -> ModuleAnalysis:
    """The front end through the driver; a crash is an E900 diagnostic (the IR proof refuses)."""
    from ..driver import analyze as analyze_text

    return analyze_text(text, path)


def black_format(text: str, line_length: int) -> str:
    import black

    return black.format_str(text, mode=black.Mode(line_length=line_length))


def split_encoding(text: str) -> tuple[str, str, str]:
    """(byte-order mark or '', newline of the first line, text with '\\n' newlines)."""
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    first_end = body.find("\n")
    newline = "\r\n" if first_end > 0 and body[first_end - 1] == "\r" else "\n"
    if newline == "\r\n":
        body = body.replace("\r\n", "\n")
    return bom, newline, body


def syntax_problem(text: str, analysis: ModuleAnalysis) -> tuple[int, int, str] | None:
    """(1-based line, 1-based column, message) of the first syntax error, if any."""
    for diagnostic in analysis.diagnostics:
        if diagnostic.code == "E000":
            return diagnostic.span.line, diagnostic.span.column + 1, diagnostic.message
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 0, exc.offset or 0, exc.msg
    except ValueError as exc:  # e.g. a NUL byte in the source
        return 0, 0, str(exc)
    return None


def format_source(
    text: str,
    path: str = "<string>",
    line_length: int = DEFAULT_LINE_LENGTH,
    *,
    explicit: bool = False,
) -> FormatResult:
    """Format one PyPTO source text: apply the front end's W003 fixes, run black, and return
    the result only if it provably means the same (see ``proofs``). ``explicit`` formats a
    file that does not import ``pypto.language`` (as when it is named on the command line)."""
    try:
        return format_text(text, path, line_length, explicit)
    except RecursionError:
        return FormatResult(
            False, text, "refused", "the file nests too deeply to prove anything about it"
        )
    except Exception as exc:  # a bug in fmt itself: say so, and never touch the file
        return FormatResult(False, text, "refused", f"internal error: {type(exc).__name__}: {exc}")


def format_text(text: str, path: str, line_length: int, explicit: bool) -> FormatResult:
    bom, newline, source = split_encoding(text)

    def untouched(
        status: FormatStatus, reason: str, line: int = 0, column: int = 0
    ) -> FormatResult:
        return FormatResult(False, text, status, reason, line, column)

    if not explicit and "pypto" not in source:  # cheap: no import of pypto.language
        return untouched("skipped", "does not import pypto.language")
    too_large = size_problem(source)
    if too_large is not None:
        return untouched("refused", too_large)
    before = analyze(source, path)
    if not explicit and not before.uses_pypto:
        return untouched("skipped", "does not import pypto.language")
    problem = syntax_problem(source, before)
    if problem is not None:
        line, column, message = problem
        return untouched("error", message, line, column)

    try:
        passes = run_passes(source, path, before, line_length)
    except BlackRejected as exc:
        return untouched("error", f"black cannot format this file: {exc}")

    notes = canonical_notes(passes.applied, passes.kept)
    formatted = passes.text
    result = bom + (formatted.replace("\n", "\r\n") if newline == "\r\n" else formatted)
    if result == text:
        return FormatResult(False, text, "unchanged", notes)

    for proof in (
        lambda: passes.failure,
        lambda: prove_stable(formatted, lambda t: black_format(t, line_length)),
        lambda: stable_spelling(formatted, passes.analysis),
        lambda: prove_same_comments(source, formatted),
        lambda: prove_same_ir(before, passes.analysis),
    ):
        failure = proof()
        if failure is not None:
            return untouched("refused", failure)
    return FormatResult(True, result, "formatted", notes)


def size_problem(source: str) -> str | None:
    """Why ``source`` is too large to format, if it is. black takes about 70 us a character
    (20 s for 256 KiB, a minute for a 1 MB line) and cannot be made faster from outside, so
    larger texts are refused at once rather than blocking for minutes."""
    if len(source) > MAX_CHARS:
        return (
            f"the file has {len(source):,} characters; ptoc fmt formats at most "
            f"{MAX_CHARS:,} (black would take minutes)"
        )
    for number, line in enumerate(source.split("\n"), 1):
        if len(line) > MAX_LINE_CHARS:
            return (
                f"line {number} has {len(line):,} characters; ptoc fmt formats lines of at "
                f"most {MAX_LINE_CHARS:,} (black would take minutes)"
            )
    return None


class BlackRejected(Exception):
    """black raised on a text that Python parses (syntax newer than black knows, ...)."""


@record(frozen=True)
class Passes:
    text: str  # the text after the last pass
    analysis: ModuleAnalysis  # the front end's result for it
    applied: int  # legacy spellings rewritten
    kept: int  # legacy spellings kept because their range holds a comment
    failure: str | None  # the first failed AST proof, if any


def run_passes(source: str, path: str, before: ModuleAnalysis, line_length: int) -> Passes:
    """Canonicalise then black, again while black's layout made more fixes applicable (a
    comment black moves out of a legacy annotation). Each black run must keep the AST."""
    text, analysis, applied, kept = source, before, 0, 0
    for _ in range(MAX_PASSES):
        canonical = canonicalise(text, path, analysis, analyze)
        applied, kept = applied + canonical.applied, canonical.kept
        broken = syntax_problem(canonical.text, canonical.analysis) if canonical.applied else None
        if broken is not None:
            invalid = f"rewriting the legacy spellings gave invalid Python ({broken[2]})"
            return Passes(canonical.text, canonical.analysis, applied, kept, invalid)
        try:
            formatted = black_format(canonical.text, line_length)
        except Exception as exc:  # black.InvalidInput: syntax black's parser does not know
            raise BlackRejected(first_line(exc)) from exc
        failure = prove_same_python(canonical.text, formatted)
        if failure is not None:
            return Passes(formatted, canonical.analysis, applied, kept, failure)
        if formatted != canonical.text:
            analysis = analyze(formatted, path)
        else:
            analysis = canonical.analysis
        text = formatted
        if not pending_fixes(text, analysis):
            break
    return Passes(text, analysis, applied, kept, None)


def stable_spelling(formatted: str, after: ModuleAnalysis) -> str | None:
    remaining = pending_fixes(formatted, after)
    if remaining:
        return f"formatting is not stable ({remaining} legacy spelling(s) would still be rewritten)"
    return None


def canonical_notes(applied: int, kept: int) -> str:
    notes = []
    if applied:
        notes.append(f"rewrote {applied} legacy spelling{'s' if applied != 1 else ''}")
    if kept:
        notes.append(
            f"kept {kept} legacy spelling{'s' if kept != 1 else ''} whose range holds a comment"
        )
    return "; ".join(notes)
