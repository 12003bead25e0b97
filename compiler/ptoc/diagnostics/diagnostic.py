"""Diagnostics: what the compiler says about a file, with exact ranges and fixes."""

from __future__ import annotations

from enum import Enum

from ..ir.span import Span
from ..records import field, record


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@record(frozen=True, slots=True)
class TextEdit:
    span: Span
    new_text: str


@record(frozen=True, slots=True)
class Fix:
    """A quick fix: a title and the edits that apply it (all in the diagnostic's file)."""

    title: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    guess: bool = False  # a did-you-mean: never applied without the user choosing it


def replacement_fixes(span: Span, names: list[str]) -> tuple[Fix, ...]:
    """ "Change to `name`" for each candidate (a did-you-mean); the first is the preferred one."""
    return tuple(
        Fix(f"Change to `{name}`", (TextEdit(span, name),), preferred=index == 0, guess=True)
        for index, name in enumerate(names)
    )


@record(frozen=True, slots=True)
class Related:
    span: Span
    message: str


@record(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()

    def format(self) -> str:
        """``path:line:col: severity[CODE]: message`` with a 1-based column."""
        return (
            f"{self.span.file}:{self.span.line}:{self.span.column + 1}: "
            f"{self.severity.value}[{self.code}]: {self.message}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.span.file,
            "line": self.span.line,
            "column": self.span.column + 1,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column + 1,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
        }


@record
class DiagnosticBag:
    """Collects diagnostics for one file; duplicates (same code, range, message) are dropped."""

    items: list[Diagnostic] = field(default_factory=list)
    _seen: set[tuple[str, Span, str]] = field(default_factory=set)

    def add(self, diagnostic: Diagnostic) -> None:
        key = (diagnostic.code, diagnostic.span, diagnostic.message)
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(diagnostic)

    def error(
        self,
        code: str,
        message: str,
        span: Span,
        related: tuple[Related, ...] = (),
        fixes: tuple[Fix, ...] = (),
    ) -> Diagnostic:
        from .codes import CODES

        info = CODES.get(code)
        severity = info.severity if info is not None else Severity.ERROR
        diagnostic = Diagnostic(code, severity, message, span, related, fixes)
        self.add(diagnostic)
        return diagnostic

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.span.line, d.span.column, d.code, d.message))
