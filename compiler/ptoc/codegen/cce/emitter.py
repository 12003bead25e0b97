"""CodeEmitter: accumulates lines of C++ with block indentation (seed 000, section 1)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...ir.span import Span
from ..common import SpanTracking

INDENT = "    "


class CodeEmitter(SpanTracking):
    """Lines of output text, each prefixed with the current indentation (4 spaces a level).

    Seed names: ``EmitLine`` -> ``emit_line``, ``EmitBlock`` -> ``emit_block``,
    ``IncreaseIndent``/``DecreaseIndent`` -> ``indent``/``dedent``, ``GetCode`` -> ``code``.
    """

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._spans: list[Span | None] = []  # per line, the statement it was emitted for
        self._level = 0
        self._indent = ""  # INDENT * _level, kept with it: every line is prefixed with it

    def emit_line(self, line: str = "") -> None:
        """One line at the current indentation; an empty line gets no trailing spaces."""
        if line:
            self._lines.append(self._indent + line)
            self._spans.append(self.span)
        else:
            self._lines.append("")
            self._spans.append(None)

    def emit_block(self, text: str) -> None:
        """Pre-formatted text, line by line, as-is (no indentation added)."""
        added = text.splitlines()
        self._lines.extend(added)
        self._spans.extend(self.span if line else None for line in added)

    def indent(self) -> None:
        self._level += 1
        self._indent = INDENT * self._level

    def dedent(self) -> None:
        if self._level == 0:
            raise ValueError("CodeEmitter.dedent below level 0")
        self._level -= 1
        self._indent = INDENT * self._level

    @contextmanager
    def block(self, opener: str, closer: str = "}") -> Iterator[None]:
        """``opener`` at this level, the body one level in, ``closer`` back at this level."""
        self.emit_line(opener)
        self.indent()
        try:
            yield
        finally:
            self.dedent()
            self.emit_line(closer)

    @property
    def level(self) -> int:
        return self._level

    @property
    def lines(self) -> list[str]:
        return list(self._lines)

    @property
    def spans(self) -> list[Span | None]:
        """Per line, the source it was generated for (None: blank or not from a statement)."""
        return list(self._spans)

    def code(self) -> str:
        """The text so far, every line ending in a newline."""
        lines = self._lines
        return "\n".join(lines) + "\n" if lines else ""

    def clear(self) -> None:
        self._lines.clear()
        self._spans.clear()
        self._level = 0
        self._indent = ""
