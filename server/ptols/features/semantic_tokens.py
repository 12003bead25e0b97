"""Semantic tokens: what each name in a kernel is, read from the analysis the server already has.

Names come from the symbol index (tiles, tensors and scalars told apart by their deduced type,
loop-carried values marked); the DSL's own spellings after the module's alias (`pl.load`,
`pl.FP32`, `pl.MemorySpace.Vec`, `pl.Tile`) from one scan of the text, classified by the op
registry and ``ptoc.language``. Token types are the protocol's standard ones, so every theme
colours them; the distinctions a theme does not know ride on modifiers (the VS Code extension
maps them to TextMate scopes in its package.json)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from lsprotocol import types

from ptoc import language
from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.types import ScalarType, TensorType, TileType, Type
from ptoc.ops import REGISTRY

from ..capabilities import TOKEN_MODIFIERS, TOKEN_TYPES
from ..convert import Positions
from ..text import UTF32, Stale, units

TYPE = {name: index for index, name in enumerate(TOKEN_TYPES)}
MODIFIER = {name: 1 << index for index, name in enumerate(TOKEN_MODIFIERS)}

NAME_TYPES = {
    OccurrenceKind.VARIABLE: "variable",
    OccurrenceKind.ITER_ARG: "variable",
    OccurrenceKind.LOOP_VAR: "variable",
    OccurrenceKind.PARAMETER: "parameter",
    OccurrenceKind.CONSTANT: "variable",
    OccurrenceKind.FUNCTION: "function",
    OccurrenceKind.PROGRAM: "class",
}
CALLABLES = (OccurrenceKind.FUNCTION, OccurrenceKind.PROGRAM)
VALUE_KINDS: tuple[tuple[type[Type], str], ...] = (
    (TileType, "tile"),
    (TensorType, "tensor"),
    (ScalarType, "scalar"),
)
OP_NAMESPACES = frozenset(["op", *(entry.name for entry in language.NAMESPACES)])
DECORATOR_NAMES = frozenset(entry.name for entry in language.DECORATORS)
DTYPE_NAMES = frozenset(language.DTYPES)
LAYOUT_NAMES = frozenset(language.LAYOUTS)


# A token: (start, end) code-point offsets into the analysed text, type index, modifier bits.
Token = tuple[int, int, int, int]


def value_modifiers(occ: Occurrence) -> int:
    key = (occ.kind, type(occ.type), occ.is_definition)
    bits = MODIFIERS_OF.get(key)
    if bits is None:
        bits = MODIFIERS_OF[key] = modifiers_of(occ)
    return bits


MODIFIERS_OF: dict[tuple[OccurrenceKind, type, bool], int] = {}


def modifiers_of(occ: Occurrence) -> int:
    bits = 0
    for cls, name in VALUE_KINDS:
        if isinstance(occ.type, cls) and occ.kind not in CALLABLES:
            bits |= MODIFIER[name]
    if occ.is_definition:
        bits |= MODIFIER["declaration"]
    if occ.kind is OccurrenceKind.ITER_ARG:
        bits |= MODIFIER["loopCarried"]
    if occ.kind is OccurrenceKind.CONSTANT:
        bits |= MODIFIER["readonly"]
    return bits


def name_tokens(analysis: ModuleAnalysis, starts: list[int], text: str) -> Iterator[Token]:
    """One token per name occurrence (the last part of a dotted one: `self.kernel` -> kernel)."""
    for occ in analysis.index.occurrences:
        kind = NAME_TYPES.get(occ.kind)
        span = occ.span
        if kind is None or span.line != span.end_line or span.line > len(starts):
            continue
        start = starts[span.line - 1] + span.column
        end = starts[span.line - 1] + span.end_column
        dot = text.rfind(".", start, end)
        if dot >= 0:
            start = dot + 1
        yield start, end, TYPE[kind], value_modifiers(occ)


@lru_cache(maxsize=8)
def dsl_pattern(prefix: str) -> re.Pattern[str]:
    """A comment or a one-line string literal (skipped), or a chain `prefix.a.b` (group 1:
    `.a.b`). Lines are scanned one at a time."""
    return re.compile(
        r"#.*"
        r"|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'"
        rf"|(?<![\w.]){re.escape(prefix)}((?:\.[A-Za-z_]\w*)+)"
    )


LONG_STRING = re.compile(r"\"\"\"[\s\S]*?(?:\"\"\"|$)|'''[\s\S]*?(?:'''|$)")
LINE_CACHE_LIMIT = 50_000
LINE_TOKENS: dict[tuple[str, str], tuple[Token, ...]] = {}  # (prefix, line) -> its tokens


def dsl_tokens(text: str, starts: list[int], prefix: str) -> Iterator[Token]:
    """Tokens of every `pl.…` chain outside comments and strings. Lines are scanned one by
    one and a line's tokens kept by its text, so an edit rescans only the lines it changed;
    tokens inside triple-quoted strings are dropped afterwards."""
    long_strings = []
    if '""' in text or "''" in text:
        long_strings = [match.span() for match in LONG_STRING.finditer(text)]
    string_starts = [start for start, _ in long_strings]
    if len(LINE_TOKENS) > LINE_CACHE_LIMIT:
        LINE_TOKENS.clear()
    ends = [*starts[1:], len(text)]
    for line_start, line_end in zip(starts, ends, strict=True):
        line = text[line_start:line_end]
        found = LINE_TOKENS.get((prefix, line))
        if found is None:
            found = LINE_TOKENS[(prefix, line)] = tuple(line_tokens(line, prefix))
        for start, end, kind, modifiers in found:
            start += line_start
            if long_strings:
                inside = bisect.bisect_right(string_starts, start) - 1
                if inside >= 0 and start < long_strings[inside][1]:
                    continue
            yield start, end + line_start, kind, modifiers


def line_tokens(line: str, prefix: str) -> Iterator[Token]:
    if prefix not in line:
        return
    for match in dsl_pattern(prefix).finditer(line):
        chain = match.group(1)
        if chain is not None:
            start = match.start()
            for offset, length, kind, modifiers in chain_tokens(prefix, chain):
                yield start + offset, start + offset + length, kind, modifiers


@lru_cache(maxsize=4096)
def chain_tokens(prefix: str, chain: str) -> tuple[tuple[int, int, int, int], ...]:
    """(offset, length, type, modifiers) of the parts of `prefix` + ``chain`` (`.a.b`)."""
    library = MODIFIER["defaultLibrary"]
    found = [(0, len(prefix), TYPE["namespace"], library)]
    offset = len(prefix) + 1
    parts = chain[1:].split(".")
    for part, (kind, modifiers) in zip(parts, classify(parts), strict=True):
        if kind:
            found.append((offset, len(part), TYPE[kind], modifiers | library))
        offset += len(part) + 1
    return tuple(found)


def classify(parts: list[str]) -> list[tuple[str, int]]:
    """(token type, modifiers) of each part after the alias; "" leaves a part unmarked."""
    found: list[tuple[str, int]] = []
    namespace = ""
    for index, part in enumerate(parts):
        if index == 0 and part in language.ENUMS:
            found.append(("enum", 0))
            namespace = part
        elif namespace in language.ENUMS:
            space = MODIFIER["memorySpace"] if namespace == "MemorySpace" else 0
            found.append(("enumMember", space) if index == 1 else ("", 0))
        elif part in OP_NAMESPACES and index == len(found) and not namespace:
            found.append(("namespace", 0))
        else:
            found.append(surface(part, [p for p in parts[:index] if p != "op"]))
            namespace = part
    return found


def surface(name: str, namespaces: list[str]) -> tuple[str, int]:
    if namespaces:
        op = REGISTRY.by_dsl_name(namespaces[-1], name) if len(namespaces) == 1 else None
        return ("function", 0) if op is not None else ("", 0)
    if name in DTYPE_NAMES:
        return "enumMember", MODIFIER["dtype"]
    if name in LAYOUT_NAMES:
        return "enumMember", 0
    if name in language.TYPE_NAMES:
        return "type", 0
    if name in language.HELPER_NAMES:
        return "macro", 0
    if name in DECORATOR_NAMES:
        return "decorator", 0
    if REGISTRY.by_dsl_name("block", name) or REGISTRY.by_dsl_name("tensor", name):
        return "function", 0
    return "", 0


def tokens(analysis: ModuleAnalysis, text: str, starts: list[int]) -> list[Token]:
    """Every token of the analysed ``text``, sorted, without overlaps."""
    found = sorted(
        [*name_tokens(analysis, starts, text), *dsl_tokens(text, starts, analysis.prefix)]
    )
    kept: list[Token] = []
    end = -1
    for token in found:
        if token[1] > token[0] and token[0] >= end:
            kept.append(token)
            end = token[1]
    return kept


def encode(analysis: ModuleAnalysis, positions: Positions) -> list[int]:
    """The LSP encoding of the tokens (relative lines and starts) in the current text; tokens
    in text changed since the analysis are left out."""
    analysed = positions.analysed
    current = positions.current
    text = current.text
    starts = current.starts
    shift = positions.shift
    plain = text.isascii() or positions.encoding == UTF32  # columns are code points
    data: list[int] = []
    line = last_line = last_start = 0
    next_start = starts[1] if len(starts) > 1 else len(text) + 1
    for start, end, kind, modifiers in tokens(analysis, analysed.text, analysed.starts):
        if shift is not None:
            try:
                start, end = shift.forward(start, end)
            except Stale:
                continue
        if start >= next_start:
            line = bisect.bisect_right(starts, start, line) - 1
            next_start = starts[line + 1] if line + 1 < len(starts) else len(text) + 1
        if plain:
            character, length = start - starts[line], end - start
        else:
            character = units(text[starts[line] : start], positions.encoding)
            length = units(text[start:end], positions.encoding)
        if line != last_line:
            data += (line - last_line, character, length, kind, modifiers)
        else:
            data += (0, character - last_start, length, kind, modifiers)
        last_line, last_start = line, character
    return data


def delta(old: list[int], new: list[int]) -> list[types.SemanticTokensEdit]:
    """One edit turning ``old`` into ``new``: the part between their common prefix and suffix,
    in whole tokens (5 integers each)."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    prefix -= prefix % 5
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    suffix -= suffix % 5
    if prefix == len(old) == len(new):
        return []
    inserted = new[prefix : len(new) - suffix]
    return [types.SemanticTokensEdit(prefix, len(old) - suffix - prefix, inserted or None)]
