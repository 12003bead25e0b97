"""Semantic tokens: what each name in a kernel is, read from the analysis the server already has.

Names come from the symbol index (tiles, tensors and scalars told apart by their deduced type,
loop-carried values marked); the DSL's own spellings after the module's alias (`pl.load`,
`pl.FP32`, `pl.MemorySpace.Vec`, `pl.Tile`) from a scan of each line, classified by the op
registry and ``ptoc.language``. Token types are the protocol's standard ones, so every theme
colours them; the distinctions a theme does not know ride on modifiers (the VS Code extension
maps them to TextMate scopes in its package.json)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from lsprotocol import types

from ptoc import language
from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.types import ScalarType, TensorType, TileType, Type
from ptoc.ops import REGISTRY

from ..capabilities import TOKEN_MODIFIERS, TOKEN_TYPES
from ..convert import Positions
from ..text import UTF32, LineIndex, Stale, common_prefix, common_suffix, units

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


# A token within one line: (column, end column) in code points, type index, modifier bits.
Token = tuple[int, int, int, int]
NAME_TYPE_BY_ID = {id(kind): TYPE[name] for kind, name in NAME_TYPES.items()}


def value_modifiers(occ: Occurrence) -> int:
    key = (id(occ.kind), type(occ.type), occ.is_definition)
    bits = MODIFIERS_OF.get(key)
    if bits is None:
        bits = MODIFIERS_OF[key] = modifiers_of(occ)
    return bits


MODIFIERS_OF: dict[tuple[int, type, bool], int] = {}  # kinds by id: Enum hashes in Python


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


def name_token(occ: Occurrence) -> Token | None:
    """The token of a name occurrence on one line (the last part of a dotted one:
    `self.kernel` -> kernel), or None."""
    kind = NAME_TYPE_BY_ID.get(id(occ.kind))
    span = occ.span
    if kind is None or span.line != span.end_line:
        return None
    end = span.end_column
    column = end - len(occ.name) if end - span.column > len(occ.name) else span.column
    return column, end, kind, value_modifiers(occ)


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
DOCUMENTS_KEPT = 16
# (path, prefix) -> each line of that document's last scan -> its tokens. Only the lines of a
# document's current text are kept (an edit rescans only the lines it changed): a cache of every
# line ever seen grew with each edit up to its limit (tens of MB, issue #33).
LINE_TOKENS: dict[tuple[str, str], dict[str, tuple[Token, ...]]] = {}


def document_line_tokens(path: str, lines: list[str], prefix: str) -> list[tuple[Token, ...]]:
    """The tokens of the `pl.…` chains of each line, from the document's last scan where a line
    is unchanged; the document's cache then holds exactly these lines."""
    key = (path, prefix)
    previous = LINE_TOKENS.pop(key, {})
    current: dict[str, tuple[Token, ...]] = {}
    found = []
    for line in lines:
        tokens = current.get(line)
        if tokens is None:
            tokens = previous.get(line)
            if tokens is None:
                tokens = tuple(scan_line(line, prefix))
            current[line] = tokens
        found.append(tokens)
    LINE_TOKENS[key] = current
    while len(LINE_TOKENS) > DOCUMENTS_KEPT:
        del LINE_TOKENS[next(iter(LINE_TOKENS))]
    return found


def scan_line(line: str, prefix: str) -> Iterator[Token]:
    if prefix not in line:
        return
    for match in dsl_pattern(prefix).finditer(line):
        chain = match.group(1)
        if chain is not None:
            start = match.start()
            for offset, length, kind, modifiers in chain_tokens(prefix, chain):
                yield start + offset, start + offset + length, kind, modifiers


def in_long_strings(text: str) -> list[tuple[int, int]]:
    """The offsets of the triple-quoted strings of a text (their lines' tokens are dropped)."""
    if '""' not in text and "''" not in text:
        return []
    return [match.span() for match in LONG_STRING.finditer(text)]


def lines_of_tokens(
    analysis: ModuleAnalysis, index: LineIndex
) -> Iterator[tuple[int, Sequence[Token]]]:
    """(0-based line, its tokens sorted and without overlaps) of each line that has any."""
    analysis.index.freeze()  # sorted by position: walked in step with the lines
    occurrences = analysis.index.occurrences
    taken = 0
    strings = in_long_strings(index.text)
    string_starts = [start for start, _ in strings]
    prefix = analysis.prefix
    text, starts = index.text, index.starts
    lines = text.split("\n") if "\r" not in text else [index.line(r) for r in range(len(starts))]
    for row, chains in enumerate(document_line_tokens(analysis.path, lines, prefix)):
        found: list[Token] | tuple[Token, ...] = chains
        if strings and found and crosses_string(row, starts, len(text), strings, string_starts):
            line_start = starts[row]
            found = [t for t in found if not inside(line_start + t[0], strings, string_starts)]
        named: list[Token] = []
        while taken < len(occurrences) and occurrences[taken].span.line <= row + 1:
            token = name_token(occurrences[taken])
            if token is not None and occurrences[taken].span.line == row + 1:
                named.append(token)
            taken += 1
        if not named:
            if found:
                yield row, found  # the chains of one line never overlap
            continue
        kept: list[Token] = []
        end = -1
        for token in sorted([*found, *named]):
            if token[1] > token[0] and token[0] >= end:
                kept.append(token)
                end = token[1]
        yield row, kept


def crosses_string(
    row: int, starts: list[int], size: int, spans: list[tuple[int, int]], string_starts: list[int]
) -> bool:
    """Whether line ``row`` shares a character with a triple-quoted string (most lines share
    none: their tokens need no check one by one)."""
    end = starts[row + 1] if row + 1 < len(starts) else size
    index = bisect.bisect_left(string_starts, end) - 1
    return index >= 0 and spans[index][1] > starts[row]


def inside(offset: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    index = bisect.bisect_right(starts, offset) - 1
    return index >= 0 and offset < spans[index][1]


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


def encode(analysis: ModuleAnalysis, positions: Positions) -> list[int]:
    """The LSP encoding of the tokens (relative lines and starts) in the current text; tokens
    in text changed since the analysis are left out."""
    return [number for chunk in encode_lines(analysis, positions) for number in chunk]


def encode_lines(analysis: ModuleAnalysis, positions: Positions) -> Iterator[list[int]]:
    """``encode`` one line at a time (each line's part of the data), so that a caller on the
    message loop can let other requests go between lines."""
    if positions.shift is not None:
        yield encode_shifted(analysis, positions)
        return
    index = positions.current
    plain = positions.encoding == UTF32 or index.text.isascii()  # columns are code units
    last_row = 0
    for row, tokens in lines_of_tokens(analysis, index):
        line = "" if plain else index.line(row)
        if plain or line.isascii():
            columns = tokens
        else:
            columns = [
                (units(line[:c], positions.encoding), units(line[:e], positions.encoding), k, m)
                for c, e, k, m in tokens
            ]
        data: list[int] = []
        last = 0
        for number, (column, end, kind, modifiers) in enumerate(columns):
            if number == 0:
                data += (row - last_row, column, end - column, kind, modifiers)
            else:
                data += (0, column - last, end - column, kind, modifiers)
            last = column
        last_row = row
        yield data


def encode_shifted(analysis: ModuleAnalysis, positions: Positions) -> list[int]:
    """``encode`` for an analysis of an older text: each token mapped through the edits."""
    analysed, current = positions.analysed, positions.current
    assert positions.shift is not None
    data: list[int] = []
    last_row = last_column = 0
    for row, tokens in lines_of_tokens(analysis, analysed):
        for column, end, kind, modifiers in tokens:
            start_offset = analysed.starts[row] + column
            try:
                start, stop = positions.shift.forward(start_offset, start_offset + end - column)
            except Stale:
                continue
            position = current.position_of(start, positions.encoding)
            length = units(current.text[start:stop], positions.encoding)
            line, character = position.line, position.character
            delta_start = character - last_column if line == last_row else character
            data += (line - last_row, delta_start, length, kind, modifiers)
            last_row, last_column = line, character
    return data


def delta(old: list[int], new: list[int]) -> list[types.SemanticTokensEdit]:
    """One edit turning ``old`` into ``new``: the part between their common prefix and suffix,
    in whole tokens (5 integers each)."""
    prefix = common_prefix(old, new)
    prefix -= prefix % 5
    suffix = common_suffix(old, new, min(len(old), len(new)) - prefix)
    suffix -= suffix % 5
    if prefix == len(old) == len(new):
        return []
    inserted = new[prefix : len(new) - suffix]
    return [types.SemanticTokensEdit(prefix, len(old) - suffix - prefix, inserted or None)]
