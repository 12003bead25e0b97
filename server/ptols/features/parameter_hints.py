"""Parameter-name inlay hints (`offsets:`, `shapes:`) before the positional arguments of op
calls; the names are the registry's, in the order signature help shows them."""

from __future__ import annotations

import re

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ops import REGISTRY

from ..convert import Positions
from ..text import Stale

KEYWORD = re.compile(r"\s*[A-Za-z_]\w*\s*=(?!=)")
MAX_CALL = 4000  # characters of one call's argument list looked at
OPENING = "([{"
CLOSING = ")]}"


def positional_arguments(text: str, start: int) -> list[tuple[int, str]]:
    """(offset, text) of each positional argument of the call whose `(` follows ``start``
    (after blanks), up to its first keyword argument."""
    index = start
    while index < len(text) and text[index] in " \t":
        index += 1
    if index >= len(text) or text[index] != "(":
        return []
    found: list[tuple[int, str]] = []
    depth, quote, begin = 0, "", index + 1
    for position in range(index + 1, min(len(text), index + MAX_CALL)):
        char = text[position]
        if quote:
            quote = "" if char == quote and text[position - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char in OPENING:
            depth += 1
        elif char in CLOSING and depth:
            depth -= 1
        elif depth == 0 and char in ",)":
            argument = text[begin:position]
            if KEYWORD.match(argument):
                break
            if argument.strip():
                offset = begin + len(argument) - len(argument.lstrip())
                found.append((offset, argument.strip()))
            if char == ")":
                break
            begin = position + 1
    return found


def parameter_hints(
    analysis: ModuleAnalysis, positions: Positions, first_line: int, last_line: int
) -> list[types.InlayHint]:
    """Hints for the op calls on 1-based lines ``first_line``..``last_line``; an argument that
    already says its parameter's name (`offsets` for offsets) gets none."""
    text = positions.analysed.text
    hints: list[types.InlayHint] = []
    for occ in analysis.index.between(first_line, last_line):
        op = REGISTRY.get(occ.op_name) if occ.kind is OccurrenceKind.OP and occ.op_name else None
        if op is None:
            continue
        end = positions.analysed.offset(occ.span.end_line - 1, occ.span.end_column)
        arguments = positional_arguments(text, end)
        for param, (offset, argument) in zip(op.params, arguments, strict=False):
            if argument == param.name or argument.endswith("." + param.name):
                continue
            start = offset
            if positions.shift is not None:
                try:
                    start, _ = positions.shift.forward(offset, offset)
                except Stale:
                    continue
            hints.append(
                types.InlayHint(
                    position=positions.offset_range(start, start).start,
                    label=f"{param.name}:",
                    kind=types.InlayHintKind.Parameter,
                    padding_right=True,
                )
            )
    return hints
