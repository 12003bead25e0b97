"""A tree-sitter syntax tree per document, updated incrementally on every edit.

It stays useful while the text does not parse as Python (unclosed brackets, half a line):
document symbols, completion context and signature help read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Tree

if TYPE_CHECKING:
    from ptoc.ir.span import Span

PYTHON = Language(tree_sitter_python.language())


def _point(text: bytes, offset: int) -> tuple[int, int]:
    row = text.count(b"\n", 0, offset)
    line_start = text.rfind(b"\n", 0, offset) + 1
    return row, offset - line_start


@dataclass
class SyntaxTree:
    text: bytes
    tree: Tree

    @staticmethod
    def parse(text: str) -> SyntaxTree:
        data = text.encode("utf-8")
        return SyntaxTree(data, Parser(PYTHON).parse(data))

    def update(self, new_text: str) -> SyntaxTree:
        """Reparse after an edit, reusing the old tree: the edit is the span between the common
        prefix and the common suffix of the old and new text."""
        new = new_text.encode("utf-8")
        old = self.text
        if new == old:
            return self
        limit = min(len(old), len(new))
        start = 0
        while start < limit and old[start] == new[start]:
            start += 1
        old_end, new_end = len(old), len(new)
        while old_end > start and new_end > start and old[old_end - 1] == new[new_end - 1]:
            old_end -= 1
            new_end -= 1
        self.tree.edit(
            start_byte=start,
            old_end_byte=old_end,
            new_end_byte=new_end,
            start_point=_point(old, start),
            old_end_point=_point(old, old_end),
            new_end_point=_point(new, new_end),
        )
        return SyntaxTree(new, Parser(PYTHON).parse(new, self.tree))

    def node_at(self, row: int, byte_column: int) -> Node | None:
        """The smallest named node at a 0-based (row, byte column)."""
        root = self.tree.root_node
        point = (row, byte_column)
        return root.named_descendant_for_point_range(point, point)

    def text_of(self, node: Node) -> str:
        return self.text[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def walk(node: Node):
    """Pre-order traversal without recursion (deep files stay safe)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def node_span(tree: SyntaxTree, node: Node, path: str = "") -> Span:
    """A node's range as a ptoc Span (1-based lines, code-point columns)."""
    from ptoc.ir.span import Span

    def column(row: int, byte_col: int) -> int:
        start = 0
        for _ in range(row):
            start = tree.text.find(b"\n", start) + 1
        return len(tree.text[start : start + byte_col].decode("utf-8", errors="replace"))

    (r0, c0), (r1, c1) = node.start_point, node.end_point
    return Span(path, r0 + 1, column(r0, c0), r1 + 1, column(r1, c1))
