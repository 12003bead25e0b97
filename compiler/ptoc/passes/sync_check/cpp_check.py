"""The checker over the PTO route's C++: the sync PTOAS inserts (``--enable-insert-sync``).

Each kernel of PTOAS's C++ (``cpp_syntax``), as each core runs it, is read into the
checker's instruction stream (``cpp_stream``) with its statements on the kernel's source lines
(``cpp_locations``), and walked as the IR route's stream is. Findings are E410-E415 on those
lines; statements the reader did not understand are one W410 per kernel, the rest checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...diagnostics import Diagnostic, Severity
from ...ir.span import Span
from ..target import DEFAULT_TARGET, Target
from .checker import CPP_WORDS, SyncChecker
from .cpp_locations import mlir_operations, statement_locator
from .cpp_stream import CppStreamReader, cores_of
from .cpp_syntax import CppFunction, CppStatement, kernel_functions

#: How many statements a W410 quotes.
QUOTED = 3


def verify_cpp(
    cpp: str,
    mlir: str,
    line_spans: Sequence[Span | None],
    functions: dict[str, Span],
    target: Target = DEFAULT_TARGET,
    only: frozenset[str] | None = None,
) -> list[Diagnostic]:
    """Every synchronisation defect of the kernels of PTOAS's ``cpp`` (those named in
    ``only``, when given). ``mlir`` and its ``line_spans`` are what PTOAS was given;
    ``functions``: each kernel's C++ name -> the span of its source function."""
    operations = mlir_operations(mlir, line_spans)
    found: dict[tuple[str, Span, str], Diagnostic] = {}
    for function in kernel_functions(cpp):
        if only is not None and function.name not in only:
            continue
        fallback = functions.get(function.name, Span.unknown())
        for diagnostic in verify_kernel(
            function, operations.get(function.name, []), fallback, target
        ):
            found.setdefault((diagnostic.code, diagnostic.span, diagnostic.message), diagnostic)
    return list(found.values())


def verify_kernel(
    function: CppFunction,
    operations: Sequence[tuple[str, Span | None]],
    fallback: Span,
    target: Target = DEFAULT_TARGET,
) -> list[Diagnostic]:
    locate = statement_locator(function, operations, fallback)
    found: list[Diagnostic] = []
    unknown: dict[int, tuple[CppStatement, str]] = {}
    for core in cores_of(function):
        reader = CppStreamReader(function, core, locate)
        checker = SyncChecker(reader.nodes, target, frozenset(reader.chained), CPP_WORDS)
        found += checker.run()
        for statement, why in reader.unknown:
            unknown.setdefault(statement.line, (statement, why))
    if unknown:
        found.append(not_understood(function, list(unknown.values()), fallback))
    return found


def not_understood(
    function: CppFunction, statements: list[tuple[CppStatement, str]], span: Span
) -> Diagnostic:
    quoted = "; ".join(f"line {s.line} `{s.text}` ({why})" for s, why in statements[:QUOTED])
    more = f" and {len(statements) - QUOTED} more" if len(statements) > QUOTED else ""
    return Diagnostic(
        "W410",
        Severity.WARNING,
        f"the sync check did not understand {len(statements)} statement(s) of PTOAS's C++ for "
        f"'{function.name}': {quoted}{more}; the rest of it was checked",
        span,
    )
