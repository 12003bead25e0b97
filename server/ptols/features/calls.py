"""Finding the call around the cursor from the raw text, which works while the line is
half-typed (unclosed brackets, no closing quote)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ptoc.frontend import ModuleAnalysis, OccurrenceKind
from ptoc.ops import REGISTRY, OpDef, resolve_pld

CHAIN = re.compile(r"([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*$")
WINDOW = 4000  # how far back to look for the opening bracket


@dataclass
class CallContext:
    callee: str  # e.g. "pl.block.load" or "self.kernel"
    callee_offset: int  # offset of the callee's last name in the text
    argument_index: int  # positional index of the argument being written
    keyword: str | None  # the keyword being written (`name=` already typed)
    used_keywords: list[str] = field(default_factory=list)
    positional_count: int = 0


def call_context(text: str, offset: int) -> CallContext | None:
    """The innermost unclosed call before ``offset``."""
    start = max(0, offset - WINDOW)
    depth = 0
    commas = 0
    segment_start = offset
    used: list[str] = []
    keyword: str | None = None
    i = offset - 1
    segments: list[str] = []
    while i >= start:
        ch = text[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    # inside a list argument: keep looking outwards
                    i -= 1
                    commas = 0
                    segments = []
                    segment_start = i + 1
                    continue
                segments.append(text[i + 1 : segment_start])
                match = CHAIN.search(text[start:i])
                if match is None:
                    return None
                callee = re.sub(r"\s+", "", match.group(1))
                args = list(reversed(segments))
                for index, arg in enumerate(args):
                    m = re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", arg)
                    if m:
                        if index == len(args) - 1:
                            keyword = m.group(1)
                        else:
                            used.append(m.group(1))
                positional = sum(
                    1 for a in args[:-1] if not re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", a)
                )
                name_end = start + match.end(1)
                return CallContext(
                    callee, name_end - len(callee.split(".")[-1]), commas, keyword, used, positional
                )
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
            segments.append(text[i + 1 : segment_start])
            segment_start = i
        elif ch == "\n" and depth == 0 and i < offset - 1:
            # a statement boundary with no open bracket: a line that does not continue
            previous = text[max(start, text.rfind("\n", start, i) + 1) : i].rstrip()
            if previous.endswith(":"):
                return None
        i -= 1
    return None


def op_for_callee(
    analysis: ModuleAnalysis | None, callee: str, prefix: str, line: int, column: int
) -> OpDef | None:
    """The op a callee spelling names: the analysed call at that place if any, else by name."""
    if analysis is not None:
        occ = analysis.index.at(line, column)
        if occ is not None and occ.kind is OccurrenceKind.OP and occ.op_name:
            return REGISTRY.get(occ.op_name)
    parts = callee.split(".")
    if parts and parts[0] in (analysis.distributed if analysis is not None else ("pld",)):
        return resolve_pld(("pld", *parts[1:]), None).op
    if not parts or parts[0] != prefix:
        return None
    path = parts[1:]
    if path[:1] == ["op"]:
        path = path[1:]
    if len(path) == 2 and path[0] in ("block", "tensor", "system"):
        return REGISTRY.by_dsl_name(path[0], path[1])
    if len(path) == 1:
        system = REGISTRY.by_dsl_name("system", path[0])  # pl.tpush_to_aiv
        if system is not None and system.unified_always:
            return system
        return REGISTRY.by_dsl_name("block", path[0]) or REGISTRY.by_dsl_name("tensor", path[0])
    return None
