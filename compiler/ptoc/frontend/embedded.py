"""Programs written as text: ``pl.parse(code)`` / ``pl.parse_program(code)`` with ``code`` a
string literal, or a name a string literal was assigned to earlier in the same function
(spec §2, step 5). Upstream parses such text with ``pl`` and ``pld`` already bound.

Each text is analysed as a module of its own, laid out at the lines and columns it occupies
in the file, so every span of its IR and diagnostics is already the file's own. A text only
known at run time (an f-string, a value built by code) is left alone and said once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from ..diagnostics import Diagnostic, DiagnosticBag, Severity
from ..records import record
from .analysis import ModuleAnalysis
from .names import DslImports, dsl_path
from .source import SourceText

PARSE_CALLS = ("parse", "parse_program")
_MAY_PARSE = re.compile(r"\.parse(?:_program)?\s*\(")
_IMPORT = "import pypto.language as pl"


@record(frozen=True)
class EmbeddedText:
    """One program text and where it stands in the file."""

    text: str  # the file's layout: blank lines, then the literal's content in place
    call: ast.Call
    guarded: bool  # the call sits in a `try` with handlers: its errors are expected


def embedded_texts(
    tree: ast.Module, source: SourceText, imports: DslImports, bag: DiagnosticBag
) -> list[EmbeddedText]:
    found: list[EmbeddedText] = []
    if not _MAY_PARSE.search(source.text):
        return found  # (walking every node of a large kernel costs more than its analysis)
    for call, strings, guarded in _parse_calls(tree, imports):
        literal = _literal_for(call, strings)
        if literal is None:
            bag.error(
                "I001",
                "the program text of this call is only known when the code runs: it is not checked",
                source.span(call),
            )
            continue
        text = _laid_out(literal, source)
        if text is not None:
            found.append(EmbeddedText(text, call, guarded))
    return found


def merge_embedded(
    tree: ast.Module,
    source: SourceText,
    imports: DslImports,
    bag: DiagnosticBag,
    result: ModuleAnalysis,
    analyse: Callable[[str], ModuleAnalysis],
) -> None:
    """Analyse each program text of the file (``analyse``) and make its results the file's."""
    for embedded in embedded_texts(tree, source, imports, bag):
        found = analyse(embedded.text)
        for diagnostic in adjust(found.diagnostics, embedded.guarded):
            bag.add(diagnostic)
        result.programs.extend(found.programs)
        result.functions.extend(found.functions)
        result.function_infos.extend(found.function_infos)
        result.index.extend(found.index.occurrences)


def adjust(diagnostics: list[Diagnostic], guarded: bool) -> list[Diagnostic]:
    """A guarded call's errors are what its ``except`` expects: information, not errors."""
    if not guarded:
        return diagnostics
    from ..records import replace

    return [
        replace(d, severity=Severity.INFO) if d.severity is Severity.ERROR else d
        for d in diagnostics
    ]


def _parse_calls(
    tree: ast.Module, imports: DslImports
) -> Iterator[tuple[ast.Call, dict[str, ast.Constant], bool]]:
    """Each ``pl.parse(...)`` call with the string literals assigned to plain names before it
    in its function (the latest wins) and whether a ``try`` guards it."""
    scopes: list[ast.Module | ast.FunctionDef] = [tree]
    scopes += [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    for scope in scopes:
        strings: dict[str, ast.Constant] = {}
        yield from _walk_block(scope.body, imports, strings, False)


def _walk_block(
    body: list[ast.stmt], imports: DslImports, strings: dict[str, ast.Constant], guarded: bool
) -> Iterator[tuple[ast.Call, dict[str, ast.Constant], bool]]:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue  # its own scope
        if isinstance(stmt, ast.Try):
            yield from _walk_block(stmt.body, imports, strings, guarded or bool(stmt.handlers))
            for handler in stmt.handlers:
                yield from _walk_block(handler.body, imports, strings, guarded)
            for nodes in (stmt.orelse, stmt.finalbody):
                yield from _walk_block(nodes, imports, strings, guarded)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                path = dsl_path(node.func, imports)
                if path is not None and len(path) == 1 and path[0] in PARSE_CALLS:
                    yield node, dict(strings), guarded
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                value = stmt.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    strings[target.id] = value
                else:
                    strings.pop(target.id, None)


def _literal_for(call: ast.Call, strings: dict[str, ast.Constant]) -> ast.Constant | None:
    argument = call.args[0] if call.args else None
    if argument is None:
        argument = next((k.value for k in call.keywords if k.arg == "code"), None)
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument
    if isinstance(argument, ast.Name):
        return strings.get(argument.id)
    return None


def _laid_out(literal: ast.Constant, source: SourceText) -> str | None:
    """The literal's content at its own lines and columns, everything else blank, and the
    import upstream injects on the first free line. None when the content is not written
    verbatim in the file (escapes, implicit concatenation): positions would not match."""
    segment = source.segment(literal)
    value = literal.value
    assert isinstance(value, str)
    quote = next((q for q in ('"""', "'''", '"', "'") if segment.endswith(q)), None)
    if quote is None:
        return None
    head = segment[: len(segment) - len(value) - len(quote)]
    if not head.endswith(quote) or segment[len(head) : len(segment) - len(quote)] != value:
        return None
    line, column = literal.lineno, source.char_column(literal.lineno, literal.col_offset)
    column += len(head)
    lines = ["" for _ in range(line - 1)]
    content = value.split("\n")
    lines.append(" " * column + content[0])
    lines.extend(content[1:])
    if "import pypto.language" not in value:
        free = next((i for i, text in enumerate(lines) if not text.strip()), None)
        if free is None:
            return None
        lines[free] = _IMPORT
    return "\n".join(lines) + "\n"
