"""Parsing a file as independent segments so that an edit re-parses only its own function.

The text is cut before lines that start a definition (``@``, ``def``, ``class`` at column 0, and
at a class body's indentation inside a class). Each segment is parsed alone, padded with blank
lines so Python's positions are the file's own, and its AST is cached by (text, first line).

A cut is only right at the start of a logical line. A cut anywhere else leaves the segment before
it incomplete (an open bracket, string or backslash continuation), which is a syntax error:
then, and whenever anything fails to parse, the caller falls back to parsing the whole file.
"""

from __future__ import annotations

import ast
import copy
import re

from ..lines import PARSE_FILENAME, split_lines
from ..records import field, record

DEFINITION = re.compile(r"(@|def\s|async\s+def\s|class\s)")


@record
class SegmentCache:
    parsed: dict[tuple[str, int, str], list[ast.stmt]] = field(default_factory=dict)
    used_before: set[tuple[str, int, str]] = field(default_factory=set)

    def trim(self, keep: set[tuple[str, int, str]]) -> None:
        """Keep the segments of the last two parses (memory stays flat over an edit session)."""
        for key in [k for k in self.parsed if k not in keep and k not in self.used_before]:
            del self.parsed[key]
        self.used_before = keep


def _starts(lines: list[str], first: int, last: int, indent: str) -> list[int]:
    """Indexes in [first, last) of lines that start a definition at exactly ``indent``; a
    definition's decorators start it (a cut between them would only force a fallback)."""
    found = []
    size = len(indent)
    for index in range(first, last):
        line = lines[index]
        if not (line.startswith(indent) and DEFINITION.match(line, size)):
            continue
        if size and line[size - 1] not in " \t":
            continue
        if index > first and lines[index - 1].startswith(indent + "@"):
            continue  # decorated: the run of decorators above already starts it
        found.append(index)
    return found


def _parse(
    text: str, first_line: int, wrapper: str, cache: SegmentCache, used: set[tuple[str, int, str]]
) -> list[ast.stmt]:
    key = (text, first_line, wrapper)
    used.add(key)
    hit = cache.parsed.get(key)
    if hit is not None:
        return hit
    padding = "\n" * (first_line - 1 - (1 if wrapper else 0))
    tree = ast.parse(padding + wrapper + text, filename=PARSE_FILENAME)
    body = tree.body[0].body if wrapper else tree.body  # type: ignore[attr-defined]
    cache.parsed[key] = body
    return body


def parse_segmented(text: str, cache: SegmentCache) -> ast.Module | None:
    """The module's AST from cached and fresh segments, or None to fall back to a full parse."""
    lines = split_lines(text)
    if not lines:
        return None
    used: set[tuple[str, int, str]] = set()
    try:
        body = _parse_block(lines, 0, len(lines), cache, used)
    except (SyntaxError, ValueError, RecursionError, MemoryError, IndexError):
        return None
    cache.trim(used)
    return ast.Module(body=body, type_ignores=[])


def _parse_block(
    lines: list[str], first: int, last: int, cache: SegmentCache, used: set[tuple[str, int, str]]
) -> list[ast.stmt]:
    starts = _starts(lines, first, last, "")
    bounds = [first, *[s for s in starts if s > first], last]
    body: list[ast.stmt] = []
    for begin, end in zip(bounds, bounds[1:], strict=False):
        if begin >= end:
            continue
        segment = "".join(lines[begin:end])
        if _is_class_segment(lines, begin, end):
            body.extend(_parse_class(lines, begin, end, cache, used))
        else:
            body.extend(_parse(segment, begin + 1, "", cache, used))
    return body


def _is_class_segment(lines: list[str], begin: int, end: int) -> bool:
    for index in range(begin, end):
        line = lines[index]
        if line.startswith("@"):
            continue
        return line.startswith("class ")
    return False


def _class_body_indent(lines: list[str], header_end: int, end: int) -> str | None:
    for index in range(header_end, end):
        stripped = lines[index].strip()
        if stripped and not stripped.startswith("#"):
            line = lines[index]
            return line[: len(line) - len(line.lstrip(" \t"))]
    return None


def _parse_class(
    lines: list[str], begin: int, end: int, cache: SegmentCache, used: set[tuple[str, int, str]]
) -> list[ast.stmt]:
    header = begin
    while lines[header].startswith("@"):
        header += 1
    indent = _class_body_indent(lines, header + 1, end)
    if indent is None or not indent or not lines[header].rstrip().endswith(":"):
        return _parse("".join(lines[begin:end]), begin + 1, "", cache, used)
    methods = [s for s in _starts(lines, header + 1, end, indent) if s > header]
    head_end = methods[0] if methods else end
    head_text = "".join(lines[begin:head_end])
    # the class header alone needs a body: a `pass` at the body indentation, dropped below
    head = _parse(head_text + indent + "pass\n", begin + 1, "", cache, used)
    if len(head) != 1 or not isinstance(head[0], ast.ClassDef):
        raise SyntaxError("segment is not one class")
    node = copy.copy(head[0])
    node.body = [s for s in node.body if not (isinstance(s, ast.Pass) and s.lineno == head_end + 1)]
    bounds = [*methods, end]
    wrapper = "class _:\n"
    for start, stop in zip(bounds, bounds[1:], strict=False):
        node.body.extend(_parse("".join(lines[start:stop]), start + 1, wrapper, cache, used))
    if not node.body:
        raise SyntaxError("empty class")
    last = node.body[-1]
    node.end_lineno, node.end_col_offset = last.end_lineno, last.end_col_offset
    return [node]
