"""What every code generator returns, and the exception used inside one to abandon a construct."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..ir.span import NO_SPAN, Span


@dataclass
class CodegenResult:
    """Generated text plus the diagnostics found while generating it.

    The text is always produced (possibly with ``// error: ...`` markers) so an editor
    preview can show everything that did lower; ``diagnostics`` says what did not.
    """

    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.diagnostics


class CodegenError(Exception):
    """Raised inside a generator for a construct it cannot lower.

    It never escapes a public entry point: the entry point turns it into a diagnostic
    with ``code`` and ``span`` (a code from ``ptoc.diagnostics.codes``).
    """

    def __init__(self, code: str, message: str, span: Span = NO_SPAN) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.span = span
