"""Folding ranges and selection ranges, read from the tree-sitter tree (so they are there while
the text does not parse)."""

from __future__ import annotations

import re

from lsprotocol import types
from tree_sitter import Node

from ..syntax import SyntaxTree, walk
from ..text import LineIndex, units

# Statements whose header folds their body; an `if` folds each branch on its own.
FOLDED = frozenset(
    [
        "function_definition",
        "class_definition",
        "for_statement",
        "while_statement",
        "with_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "finally_clause",
    ]
)
BRANCHES = frozenset(["elif_clause", "else_clause"])
COMMENT_LINE = re.compile(r"[ \t]*#")


def folding_ranges(tree: SyntaxTree, index: LineIndex) -> list[types.FoldingRange]:
    """One range per function, program, loop, scope and `if` branch spanning two lines or more,
    and one per run of two or more whole-line comments; sorted by start line."""
    found: dict[int, types.FoldingRange] = {}
    for node in walk(tree.tree.root_node):
        if node.type in FOLDED or node.type == "if_statement":
            first, last = line_span(tree, index, node)
            if node.type == "if_statement":
                branch = next((c for c in node.children if c.type in BRANCHES), None)
                if branch is not None:
                    last = line_span(tree, index, branch)[0] - 1
            if last > first and first not in found:
                found[first] = types.FoldingRange(start_line=first, end_line=last)
    for first, last in comment_runs(index):
        found.setdefault(
            first,
            types.FoldingRange(
                start_line=first, end_line=last, kind=types.FoldingRangeKind.Comment
            ),
        )
    return [found[line] for line in sorted(found)]


def line_span(tree: SyntaxTree, index: LineIndex, node: Node) -> tuple[int, int]:
    """The first and last 0-based LSP lines of a node."""
    start, end = tree.offsets(node)
    return index.row_column(start)[0], index.row_column(max(end - 1, start))[0]


def comment_runs(index: LineIndex) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    first = None
    for row in range(index.line_count + 1):
        comment = row < index.line_count and COMMENT_LINE.match(index.line(row)) is not None
        if comment and first is None:
            first = row
        elif not comment and first is not None:
            if row - 1 > first:
                runs.append((first, row - 1))
            first = None
    return runs


def selection_range(
    tree: SyntaxTree, index: LineIndex, offset: int, encoding: str
) -> types.SelectionRange:
    """The nodes around a code-point offset, innermost first, each range once."""
    byte = len(index.text[:offset].encode("utf-8", "surrogatepass"))
    node: Node | None = tree.tree.root_node.named_descendant_for_byte_range(byte, byte)
    spans: list[tuple[int, int]] = []
    while node is not None:
        span = tree.offsets(node)
        if not spans or span != spans[-1]:
            spans.append(span)
        node = node.parent
    if not spans or spans[-1] != (0, len(index.text)):
        spans.append((0, len(index.text)))
    selection: types.SelectionRange | None = None
    for start, end in reversed(spans):
        selection = types.SelectionRange(
            range=types.Range(position(index, start, encoding), position(index, end, encoding)),
            parent=selection,
        )
    assert selection is not None
    return selection


def position(index: LineIndex, offset: int, encoding: str) -> types.Position:
    row, column = index.row_column(offset)
    return types.Position(row, units(index.line(row)[:column], encoding))
