"""The Python-syntax IR printer: IR -> source text in the language's canonical form, which
the front end parses back into a structurally equal IR.

Module-level output (``print_program``, ``print_function``, ``print_stmt``) is formatted by
black; ``print_expr`` and ``print_type`` return one-line fragments written the way black
would leave them.
"""

from __future__ import annotations

from ..editions import Edition
from ..ir.expr import Expr
from ..ir.function import Function, Program
from ..ir.span import Span
from ..ir.stmt import Stmt
from ..ir.types import Type
from .black_format import (
    DEFAULT_LINE_LENGTH,
    black_texts,
    format_printed,
    set_black_runner,
)
from .expressions import ExprPrinter
from .module import ModulePrinter
from .op_names import op_spelling
from .statements import StmtPrinter


def print_program(
    program: Program,
    prefix: str = "pl",
    line_length: int = DEFAULT_LINE_LENGTH,
    edition: Edition = Edition.V2026_03,
) -> str:
    """A printed-IR module: header comment, import, symbolic dims, ``@pl.program`` class, in
    ``edition``'s spelling."""
    return ModulePrinter(prefix, line_length, edition).program(program)


def print_program_mapped(
    program: Program,
    prefix: str = "pl",
    line_length: int = DEFAULT_LINE_LENGTH,
    edition: Edition = Edition.V2026_03,
) -> tuple[str, list[Span | None]]:
    """``print_program`` and, per output line, the span of the statement printed there."""
    return ModulePrinter(prefix, line_length, edition).program_mapped(program)


def print_function(fn: Function, prefix: str = "pl", line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """A module holding ``fn`` as a standalone ``@pl.function`` (calls print as ``f(...)``)."""
    return ModulePrinter(prefix, line_length).standalone_function(fn)


def print_type(t: Type, prefix: str = "pl") -> str:
    return ExprPrinter(prefix).types.type(t)


def print_expr(e: Expr, prefix: str = "pl") -> str:
    return ExprPrinter(prefix).expr(e)


def print_stmt(s: Stmt, prefix: str = "pl", line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """The statement as block text at column 0 (nested bodies indented), ending in a newline.
    A lone YieldStmt has no enclosing construct, so it prints as ``pl.yield_(...)``."""
    lines = StmtPrinter(prefix).lines(s) or ["pass"]
    return format_printed(lines, line_length)


__all__ = [
    "black_texts",
    "op_spelling",
    "print_expr",
    "print_function",
    "print_program",
    "print_program_mapped",
    "print_stmt",
    "print_type",
    "set_black_runner",
]
