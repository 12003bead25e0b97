"""The one error the interpreter raises: what cannot run, with where it is in the source."""

from __future__ import annotations

from ..ir.span import NO_SPAN, Span


class InterpError(Exception):
    """A program (or its inputs) that cannot be evaluated: an out-of-bounds window, a dynamic
    dimension without a value, an unsupported op or dtype, an integer division by zero."""

    def __init__(self, message: str, span: Span = NO_SPAN) -> None:
        super().__init__(message)
        self.message = message
        self.span = span

    def __str__(self) -> str:
        if self.span.is_known:
            return f"{self.span}: {self.message}"
        return self.message
