"""A tree-sitter syntax tree per document, brought up to date incrementally when read.

It stays useful while the text does not parse as Python (unclosed brackets, half a line):
document symbols read it. Positions come from byte offsets and LSP's lines, never from
tree-sitter's rows (which count only ``\\n``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Tree

from .text import common_prefix, common_suffix

BREAK = re.compile(rb"\r\n|\r|\n")  # LSP's line breaks (tree-sitter's rows count only \n)
PYTHON = Language(tree_sitter_python.language())


def _point(text: bytes, offset: int) -> tuple[int, int]:
    row = text.count(b"\n", 0, offset)
    line_start = text.rfind(b"\n", 0, offset) + 1
    return row, offset - line_start


COMMENT_LINE = re.compile(rb"^[ \t]*#[^\r\n]*", re.MULTILINE)


def _masked(data: bytes) -> bytes:
    """The bytes tree-sitter parses: whole-line comments blanked to spaces (same offsets).
    tree-sitter-python's scanner is quadratic in a run of comment lines (2,000 trailing
    comment lines: 0.8 s per parse); blank lines cost nothing, and symbols need no comments."""
    if b"#" not in data:
        return data
    return COMMENT_LINE.sub(lambda match: b" " * len(match.group()), data)


@dataclass
class SyntaxTree:
    text: bytes  # the document's UTF-8 bytes
    tree: Tree
    parsed: bytes = b""  # what tree-sitter read: ``text`` with comment lines blanked
    _ascii: bool | None = field(default=None, repr=False)
    _lines: tuple[list[int], list[int]] | None = field(default=None, repr=False)

    @staticmethod
    def parse(text: str) -> SyntaxTree:
        data = text.encode("utf-8", "surrogatepass")
        parsed = _masked(data)
        return SyntaxTree(data, Parser(PYTHON).parse(parsed), parsed)

    def update(self, new_text: str) -> SyntaxTree:
        """Reparse after an edit, reusing the old tree: the edit is the span between the common
        prefix and the common suffix of the old and new text."""
        data = new_text.encode("utf-8", "surrogatepass")
        if data == self.text:
            return self
        new = _masked(data)
        old = self.parsed
        start = common_prefix(old, new)
        suffix = common_suffix(old, new, min(len(old), len(new)) - start)
        old_end, new_end = len(old) - suffix, len(new) - suffix
        self.tree.edit(
            start_byte=start,
            old_end_byte=old_end,
            new_end_byte=new_end,
            start_point=_point(old, start),
            old_end_point=_point(old, old_end),
            new_end_point=_point(new, new_end),
        )
        return SyntaxTree(data, Parser(PYTHON).parse(new, self.tree), new)

    def node_at(self, row: int, byte_column: int) -> Node | None:
        """The smallest named node at a 0-based (row, byte column)."""
        root = self.tree.root_node
        point = (row, byte_column)
        return root.named_descendant_for_point_range(point, point)

    def offset(self, byte: int) -> int:
        """A byte offset -> the code-point offset into the text."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if self._ascii:
            return byte
        if self._lines is None:
            byte_starts = [0] + [match.end() for match in BREAK.finditer(self.text)]
            point_starts = [0]
            for start, end in zip(byte_starts, byte_starts[1:], strict=False):
                point_starts.append(
                    point_starts[-1] + len(self.text[start:end].decode("utf-8", "replace"))
                )
            self._lines = byte_starts, point_starts
        byte_starts, point_starts = self._lines
        row = bisect.bisect_right(byte_starts, byte) - 1
        head = self.text[byte_starts[row] : byte].decode("utf-8", "replace")
        return point_starts[row] + len(head)

    def offsets(self, node: Node) -> tuple[int, int]:
        """A node's [start, end) as code-point offsets into the text."""
        return self.offset(node.start_byte), self.offset(node.end_byte)

    def text_of(self, node: Node) -> str:
        return self.text[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal without recursion (deep files stay safe)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
