"""Turning source text into a Python AST, tolerating what users actually type.

* The seed documents spell the yield helper ``pl.yield(...)``, which Python cannot parse
  (``yield`` is a keyword). Such attribute tokens are rewritten to a same-length placeholder so
  every other position stays exact, and each rewrite becomes an E008 diagnostic with a fix.
* A syntax error is reported with Python's position; the offending line is then blanked and the
  file parsed again, so the rest of the file is still analysed (functions touching a blanked line
  are marked damaged and report only the syntax error).
"""

from __future__ import annotations

import ast
import io
import re

from ..diagnostics import Diagnostic, Fix, Severity, TextEdit
from ..ir.span import Span
from ..lines import PARSE_FILENAME, split_lines
from ..records import field, record
from .segments import SegmentCache, parse_segmented
from .source import SourceText

SEED_YIELD_PLACEHOLDER = "_yld_"  # same length as "yield"
_SEED_YIELD = re.compile(r"\.\s*yield\b")  # `.yield` but not `.yield_`: tokenize only then
MAX_RECOVERIES = 50


@record
class ParsedModule:
    tree: ast.Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seed_yields: set[tuple[int, int]] = field(
        default_factory=set
    )  # (line, char column) of placeholders
    blanked_lines: set[int] = field(default_factory=set)


def _rewrite_seed_yields(text: str, source: SourceText) -> tuple[str, list[tuple[int, int]]]:
    """Replace ``<name>.yield`` attribute tokens; returns the new text and (line, column) hits."""
    if not _SEED_YIELD.search(text):
        return text, []
    import tokenize  # only seed files spell `.yield`: the others don't pay its import

    hits: list[tuple[int, int]] = []
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if (
                token.type == tokenize.NAME
                and token.string == "yield"
                and previous is not None
                and previous.type == tokenize.OP
                and previous.string == "."
            ):
                hits.append(token.start)
            if token.type not in (tokenize.NL, tokenize.COMMENT):
                previous = token
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the parser reports the real problem
    if not hits:
        return text, []
    lines = source.lines[:]
    for line, col in hits:
        current = lines[line - 1]
        lines[line - 1] = current[:col] + SEED_YIELD_PLACEHOLDER + current[col + 5 :]
    return "".join(lines), hits


def _syntax_diagnostic(error: SyntaxError, source: SourceText) -> Diagnostic:
    line = error.lineno or 1
    column = max((error.offset or 1) - 1, 0)
    end_line = error.end_lineno or line
    end_column = max((error.end_offset or 0) - 1, column + 1)
    if end_line == line and end_column <= column:
        end_column = column + 1
    text = source.line(line)
    if column > len(text):
        column = len(text)
    message = error.msg
    if message.startswith("invalid syntax") and text.strip():
        message = f"{message} (in `{text.strip()[:60]}`)"
    span = Span(source.path, line, column, end_line, end_column)
    return Diagnostic("E000", Severity.ERROR, message, span)


_INDENTED_BLOCK = re.compile(r"expected an indented block after .* on line (\\d+)")


def _recover(lines: list[str], error: SyntaxError, modified: dict[int, int]) -> bool:
    """Rewrite the smallest piece of text that lets parsing continue; False when stuck.

    Lines are only ever replaced (never inserted), so every other position stays exact.
    """
    match = _INDENTED_BLOCK.match(error.msg)
    if match:
        header = int(match.group(1))
        if header not in modified and 1 <= header <= len(lines) and "#" not in lines[header - 1]:
            text = lines[header - 1]
            ending = "\n" if text.endswith("\n") else ""
            lines[header - 1] = text.rstrip("\r\n") + " pass" + ending
            modified[header] = 1
            return True
    bad = error.lineno or 1
    if not 1 <= bad <= len(lines):
        return False
    attempts = modified.get(bad, 0)
    if attempts >= 3:
        return False
    original = lines[bad - 1]
    ending = "\n" if original.endswith("\n") else ""
    if attempts == 0:
        indent = original[: len(original) - len(original.lstrip(" \t"))]
        lines[bad - 1] = indent + "pass" + ending
    elif attempts == 1:
        previous = next((lines[i] for i in range(bad - 2, -1, -1) if lines[i].strip()), "")
        indent = previous[: len(previous) - len(previous.lstrip(" \t"))]
        lines[bad - 1] = indent + "pass" + ending
    else:
        lines[bad - 1] = ending
    modified[bad] = attempts + 1
    return True


def parse_module(source: SourceText, segments: SegmentCache | None = None) -> ParsedModule:
    if segments is not None and not _SEED_YIELD.search(source.text):
        tree = parse_segmented(source.text, segments)
        if tree is not None:
            return ParsedModule(tree=tree)
    text, hits = _rewrite_seed_yields(source.text, source)
    result = ParsedModule(tree=None)
    for line, col in hits:
        span = Span(source.path, line, col, line, col + 5)
        fix = Fix("Replace `yield` with `yield_`", (TextEdit(span, "yield_"),), preferred=True)
        result.diagnostics.append(
            Diagnostic(
                "E008",
                Severity.ERROR,
                "`pl.yield(...)` is not valid Python (`yield` is a keyword); "
                "write `pl.yield_(...)`",
                span,
                fixes=(fix,),
            )
        )
        result.seed_yields.add((line, col))
    lines: list[str] | None = None  # split for the first recovery only
    modified: dict[int, int] = {}  # line -> how many times recovery rewrote it
    for _ in range(MAX_RECOVERIES):
        try:
            parsed = text if lines is None else "".join(lines)
            result.tree = ast.parse(parsed, filename=PARSE_FILENAME, type_comments=False)
            return result
        except SyntaxError as error:
            bad = error.lineno or 1
            caused_by_recovery = bad in modified or (
                bool(modified) and error.msg.startswith("expected an indented block")
            )
            if not caused_by_recovery:
                result.diagnostics.append(_syntax_diagnostic(error, source))
            if lines is None:
                lines = split_lines(text)
            if not _recover(lines, error, modified):
                return result
            result.blanked_lines.update(modified)
        except (RecursionError, MemoryError):
            result.diagnostics.append(
                Diagnostic(
                    "E901",
                    Severity.ERROR,
                    "the file nests too deeply for the parser",
                    Span(source.path, 1, 0, 1, len(source.line(1))),
                )
            )
            return result
        except ValueError as error:  # e.g. a NUL byte
            result.diagnostics.append(
                Diagnostic("E000", Severity.ERROR, str(error), Span(source.path, 1, 0, 1, 0))
            )
            return result
    return result
    return result
