"""Source text positions: Python's AST counts columns in UTF-8 bytes; ptoc counts code points."""

from __future__ import annotations

import ast

from ..ir.span import Span
from ..lines import split_lines

_new_tuple = tuple.__new__


class SourceText:
    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.lines = split_lines(text) or [""]
        self.ascii = text.isascii()
        self._ascii: dict[int, bool] = {}
        self._mentions: dict[frozenset[str], bool] = {}

    def mentions(self, words: frozenset[str]) -> bool:
        """Whether the text contains any of ``words`` (asked once per file and word set: the
        checks of constructs most files never write skip them at this price)."""
        found = self._mentions.get(words)
        if found is None:
            found = self._mentions[words] = any(word in self.text for word in words)
        return found

    def line(self, lineno: int) -> str:
        """The text of a 1-based line, without its line break ('' past the end)."""
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1].rstrip("\r\n")
        return ""

    def char_column(self, lineno: int, byte_column: int) -> int:
        is_ascii = self._ascii.get(lineno)
        if is_ascii is None:
            is_ascii = self.line(lineno).isascii()
            self._ascii[lineno] = is_ascii
        if is_ascii:
            return byte_column
        encoded = self.line(lineno).encode("utf-8")
        return len(encoded[:byte_column].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> Span:
        # The front end asks for tens of thousands of spans, most of them once each: read the
        # four positions directly and build the tuple without NamedTuple's Python-level __new__.
        try:
            lineno = node.lineno  # type: ignore[attr-defined]
            col = node.col_offset  # type: ignore[attr-defined]
            end_lineno = node.end_lineno  # type: ignore[attr-defined]
            end_col = node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return self._span(node)
        if not (lineno and end_lineno and self.ascii) or end_col is None:
            return self._span(node)
        return _new_tuple(Span, (self.path, lineno, col, end_lineno, end_col))

    def _span(self, node: ast.AST) -> Span:
        """``span`` for nodes without every position, and off ASCII (byte columns differ)."""
        lineno = getattr(node, "lineno", 0)
        if not lineno:
            return Span(self.path, 0, 0, 0, 0)
        end_lineno = getattr(node, "end_lineno", None) or lineno
        col = getattr(node, "col_offset", 0)
        end_col = getattr(node, "end_col_offset", None)
        if end_col is None:
            end_col = col
        if not self.ascii:  # byte offsets differ from code-point columns only off ASCII
            col = self.char_column(lineno, col)
            end_col = self.char_column(end_lineno, end_col)
        return Span(self.path, lineno, col, end_lineno, end_col)

    def attr_name_span(self, node: ast.Attribute) -> Span:
        """The span of the final name of ``a.b.name``."""
        full = self.span(node)
        return Span(
            self.path,
            full.end_line,
            full.end_column - len(node.attr),
            full.end_line,
            full.end_column,
        )

    def segment(self, node: ast.AST) -> str:
        """The source text of a node (``ast.get_source_segment`` re-splits the whole file on
        every call, which is quadratic over a large file)."""
        span = self.span(node)
        if not span.is_known:
            return ""
        if span.file != self.path:  # a node of another file (``sibling_imports``): as written
            return ast.unparse(node)
        if span.line == span.end_line:
            return self.line(span.line)[span.column : span.end_column]
        parts = [self.lines[span.line - 1][span.column :]]
        parts.extend(self.lines[span.line : span.end_line - 1])
        parts.append(self.line(span.end_line)[: span.end_column])
        return "".join(parts)
