"""The server's own model of a document's text: LSP lines, LSP positions, applying edits.

Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (ptoc.lines). A position's character counts code units
of the negotiated encoding; one past a line's end (or past the last line) means that end, as the
LSP specification says, so the server's text stays what the editor shows. A column inside a
character's code units (half a surrogate pair: no editor sends one) means before that character.
"""

from __future__ import annotations

import bisect
from itertools import accumulate, repeat
from operator import add
from typing import TypeVar

from lsprotocol import types

from ptoc.lines import BREAK

# What the prefix and suffix searches compare: texts, their bytes, semantic token data.
Compared = TypeVar("Compared", str, bytes, list[int])

UTF8 = types.PositionEncodingKind.Utf8
UTF16 = types.PositionEncodingKind.Utf16
UTF32 = types.PositionEncodingKind.Utf32
BOM = "\ufeff"


class Stale(Exception):
    """A position or range falls in text that changed since the analysis answering for it."""


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in code units of ``encoding``."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


def code_points(text: str, count: int, encoding: str) -> int:
    """How many code points of ``text`` its first ``count`` code units hold (clamped)."""
    if encoding == UTF32 or text.isascii():
        return min(max(count, 0), len(text))
    if encoding == UTF8:
        return len(text.encode("utf-8")[: max(count, 0)].decode("utf-8", errors="ignore"))
    head = text.encode("utf-16-le")[: 2 * max(count, 0)]
    return len(head.decode("utf-16-le", errors="ignore"))


class LineIndex:
    """Line starts of one text, for offset <-> (line, column) conversions."""

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            self.starts = [0] + [match.end() for match in BREAK.finditer(text)]
        else:  # only \n breaks: the same starts, from C loops (3x faster on a large file)
            widths = map(add, map(len, text.split("\n")[:-1]), repeat(1))
            self.starts = list(accumulate(widths, initial=0))

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, row: int) -> str:
        """The text of a 0-based line without its line break."""
        start = self.starts[row]
        end = self.starts[row + 1] if row + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, row: int, column: int) -> int:
        """The offset of a 0-based (line, code-point column), clamped into the text and the line."""
        if row < 0:
            return 0
        if row >= len(self.starts):
            return len(self.text)
        return self.starts[row] + min(max(column, 0), len(self.line(row)))

    def row_column(self, offset: int) -> tuple[int, int]:
        """The 0-based (line, code-point column) of an offset."""
        offset = min(max(offset, 0), len(self.text))
        row = bisect.bisect_right(self.starts, offset) - 1
        return row, offset - self.starts[row]

    def offset_of(self, position: types.Position, encoding: str) -> int:
        """An LSP position -> offset; a character past the line's end means the end."""
        row = position.line
        if row < 0:
            return 0
        if row >= len(self.starts):
            return len(self.text)
        return self.starts[row] + code_points(self.line(row), position.character, encoding)

    def position_of(self, offset: int, encoding: str) -> types.Position:
        row, column = self.row_column(offset)
        line = self.line(row)
        return types.Position(row, units(line[:column], encoding))


def apply_change(
    text: str, index: LineIndex, change: types.TextDocumentContentChangeEvent, encoding: str
) -> str:
    """The text after one `didChange` content change."""
    if isinstance(change, types.TextDocumentContentChangePartial):
        start = index.offset_of(change.range.start, encoding)
        end = index.offset_of(change.range.end, encoding)
        if end < start:
            start, end = end, start
        return text[:start] + change.text + text[end:]
    return change.text


def common_prefix(a: Compared, b: Compared) -> int:
    """Length of the common prefix; a binary search over slice comparisons (C speed)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: Compared, b: Compared, limit: int) -> int:
    """Length of the common suffix, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


class TextShift:
    """Offsets of an older text mapped to a newer one: the text before the first change and
    after the last one is shared; anything between changed and cannot be mapped."""

    def __init__(self, old: str, new: str) -> None:
        self.prefix = common_prefix(old, new)
        suffix = common_suffix(old, new, min(len(old), len(new)) - self.prefix)
        self.old_end = len(old) - suffix
        self.new_end = len(new) - suffix

    def forward(self, start: int, end: int) -> tuple[int, int]:
        """An old [start, end) -> the new one; Stale when it overlaps the change."""
        if end <= self.prefix:
            return start, end
        if start >= self.old_end:
            delta = self.new_end - self.old_end
            return start + delta, end + delta
        raise Stale()

    def backward(self, offset: int) -> int:
        """A new offset -> the old one; Stale inside the changed text."""
        if offset <= self.prefix:
            return offset
        if offset >= self.new_end:
            return offset - (self.new_end - self.old_end)
        raise Stale()
