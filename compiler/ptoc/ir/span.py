"""Source ranges carried by every IR node and diagnostic."""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """A range in a source file (a NamedTuple: the front end makes tens of thousands).

    Lines are 1-based; columns are 0-based code-point offsets into the line (not UTF-8 bytes,
    not UTF-16 units: the front end converts from Python's byte offsets, the server to UTF-16).
    The end is exclusive.
    """

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def unknown(file: str = "<unknown>") -> Span:
        return Span(file, 0, 0, 0, 0)

    @property
    def is_known(self) -> bool:
        return self.line > 0

    def contains(self, line: int, column: int) -> bool:
        """Whether the position (1-based line, 0-based column) lies inside, end inclusive."""
        if (line, column) < (self.line, self.column):
            return False
        return (line, column) <= (self.end_line, self.end_column)

    def covers(self, other: Span) -> bool:
        return (self.line, self.column) <= (other.line, other.column) and (
            other.end_line,
            other.end_column,
        ) <= (self.end_line, self.end_column)

    def merge(self, other: Span) -> Span:
        start = min((self.line, self.column), (other.line, other.column))
        end = max((self.end_line, self.end_column), (other.end_line, other.end_column))
        return Span(self.file, start[0], start[1], end[0], end[1])

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column + 1}"


NO_SPAN = Span.unknown()
