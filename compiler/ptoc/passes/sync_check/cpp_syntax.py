"""The statements of the C++ PTOAS emits, as a tree: what ``cpp_stream`` reads.

PTOAS's EmitC output is regular: each kernel is ``extern "C" __global__ AICORE void
NAME(params) { ... }``, a statement per line, ``for (...) {`` and ``if (...) { } else { }``
blocks, and ``#if defined(__DAV_VEC__)`` / ``#endif`` around what one core runs. This reader
splits the text into statements at ``;``, ``{`` and ``}`` outside parentheses (a statement
may span lines), keeps each statement's first line, and nests blocks; it understands no more
C++ than that form needs. Comments are dropped; preprocessor lines are kept as directives.
"""

from __future__ import annotations

import re

from ...records import record

_ENTRY = re.compile(r'extern\s+"C"\s+__global__\s+AICORE\s+\w+\s+(?P<name>\w+)\s*\(')


@record(frozen=True, slots=True)
class CppStatement:
    """One statement (without its ``;``) and the 1-based line it starts on."""

    text: str
    line: int


@record(frozen=True, slots=True)
class CppDirective:
    """A preprocessor line: ``#if defined(__DAV_VEC__)``, ``#endif`` ..."""

    text: str
    line: int


@record(frozen=True, slots=True)
class CppBlock:
    """``header { body }`` (``for (...)``, ``if (...)``, ``else``, a function's signature);
    an ``if`` followed by ``else`` keeps that block's body as ``orelse``."""

    header: str
    line: int
    body: tuple[CppNode, ...]
    orelse: tuple[CppNode, ...] | None = None


CppNode = CppStatement | CppDirective | CppBlock


@record(frozen=True, slots=True)
class CppFunction:
    name: str
    line: int
    body: tuple[CppNode, ...]
    parameters: tuple[str, ...] = ()


class _Splitter:
    """Characters -> statements and nested blocks."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, int, list[CppNode]]] = [("", 0, [])]
        self.text: list[str] = []
        self.start = 0
        self.depth = 0  # parentheses and brackets open in the current statement

    def feed_line(self, raw: str, number: int) -> None:
        stripped = raw.strip()
        if stripped.startswith("#") and not self.pending():
            self.stack[-1][2].append(CppDirective(stripped, number))
            return
        for char in _without_comment(raw):
            self.feed(char, number)
        self.feed(" ", number)

    def pending(self) -> bool:
        return bool("".join(self.text).strip())

    def feed(self, char: str, number: int) -> None:
        if not self.pending() and not char.isspace():
            self.start = number
        if char in "([":
            self.depth += 1
        elif char in ")]":
            self.depth = max(0, self.depth - 1)
        elif self.depth == 0 and char == ";":
            self.flush_statement()
            return
        elif self.depth == 0 and char == "{":
            self.stack.append(("".join(self.text).strip(), self.start, []))
            self.text = []
            return
        elif self.depth == 0 and char == "}":
            self.flush_statement()
            if len(self.stack) > 1:
                header, line, body = self.stack.pop()
                self.close(CppBlock(header, line, tuple(body)))
            return
        self.text.append(char)

    def flush_statement(self) -> None:
        text = " ".join("".join(self.text).split())
        if text:
            self.stack[-1][2].append(CppStatement(text, self.start))
        self.text = []

    def close(self, block: CppBlock) -> None:
        siblings = self.stack[-1][2]
        previous = siblings[-1] if siblings else None
        if _is_else(block.header) and isinstance(previous, CppBlock):
            attached = _with_else(previous, block)
            if attached is not None:
                siblings[-1] = attached
                return
        siblings.append(block)

    def result(self) -> tuple[CppNode, ...]:
        self.flush_statement()
        while len(self.stack) > 1:  # unbalanced text: close what is open
            header, line, body = self.stack.pop()
            self.close(CppBlock(header, line, tuple(body)))
        return tuple(self.stack[0][2])


def _is_else(header: str) -> bool:
    return header == "else" or re.match(r"else\s+if\b", header) is not None


def _with_else(block: CppBlock, orelse: CppBlock) -> CppBlock | None:
    """``block`` (an if, or an if / else if chain) with ``orelse`` as its last else: an
    ``else if (c) {...}`` is an else holding ``if (c) {...}``. None: no if to take it."""
    if not block.header.startswith("if"):
        return None
    if block.orelse is None:
        if orelse.header == "else":
            return CppBlock(block.header, block.line, block.body, orelse.body)
        nested = CppBlock(orelse.header[4:].strip(), orelse.line, orelse.body)
        return CppBlock(block.header, block.line, block.body, (nested,))
    if len(block.orelse) == 1 and isinstance(block.orelse[0], CppBlock):
        inner = _with_else(block.orelse[0], orelse)
        if inner is not None:
            return CppBlock(block.header, block.line, block.body, (inner,))
    return None


def _without_comment(line: str) -> str:
    """The line without a ``//`` comment (outside a string literal)."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", index):
            return line[:index]
    return line


def parse_cpp(text: str) -> tuple[CppNode, ...]:
    splitter = _Splitter()
    for number, raw in enumerate(text.split("\n"), start=1):
        splitter.feed_line(raw, number)
    return splitter.result()


def kernel_functions(text: str) -> list[CppFunction]:
    """The kernel entries (``extern "C" __global__ AICORE``) of PTOAS's C++, in order."""
    found: list[CppFunction] = []
    for node in parse_cpp(text):
        if isinstance(node, CppBlock):
            match = _ENTRY.match(node.header)
            if match is not None:
                listed = node.header[match.end() : node.header.rfind(")")]
                names = tuple(re.findall(r"(\w+)\s*(?:,|$)", listed))
                found.append(CppFunction(match["name"], node.line, node.body, names))
    return found
