"""Canonicalisation: apply the front end's W003 quick fixes (legacy spelling -> canonical one).

The front end is the only place that knows what is legacy; this module never looks for legacy
forms itself. It only decides which of the offered fixes can be applied safely together:
fixes whose edits overlap an already chosen fix wait for the next round, and a fix whose range
holds a comment is never applied (its replacement text is one line and would drop the comment).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable, Sequence

from ..diagnostics import Diagnostic, Fix, TextEdit
from ..frontend.analysis import ModuleAnalysis
from ..records import record

LEGACY_CODE = "W003"
MAX_ROUNDS = 8  # nested legacy forms (a seed memory space inside a legacy annotation) need two

Analyzer = Callable[[str, str], ModuleAnalysis]
Position = tuple[int, int]  # 1-based line, 0-based code-point column


@record(frozen=True)
class Canonicalised:
    text: str
    analysis: ModuleAnalysis  # the front end's result for ``text``
    applied: int  # fixes applied over all rounds
    kept: int  # legacy spellings left alone because their range holds a comment


def legacy_fixes(analysis: ModuleAnalysis) -> list[Fix]:
    """The fix of every W003 diagnostic (the preferred one when several are offered)."""
    fixes: list[Fix] = []
    for diagnostic in analysis.diagnostics:
        fix = chosen_fix(diagnostic)
        if fix is not None and fix not in fixes:
            fixes.append(fix)
    return fixes


def chosen_fix(diagnostic: Diagnostic) -> Fix | None:
    if diagnostic.code != LEGACY_CODE or not diagnostic.fixes:
        return None
    preferred = [fix for fix in diagnostic.fixes if fix.preferred]
    fix = (preferred or list(diagnostic.fixes))[0]
    return fix if fix.edits else None


def comment_positions(text: str) -> list[Position]:
    """Where each comment starts (empty if the text cannot be tokenized)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [token.start for token in tokens if token.type == tokenize.COMMENT]


class LineOffsets:
    """Converts (line, column) into an offset of the text, counting lines the way Python's
    parser does (only ``\\n`` ends a line once ``\\r\\n`` has been normalised)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self.starts.append(index + 1)

    def offset(self, line: int, column: int) -> int | None:
        if not 1 <= line <= len(self.starts):
            return None
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return start + column if 0 <= column <= end - start else None


def edit_range(edit: TextEdit, offsets: LineOffsets) -> tuple[int, int] | None:
    span = edit.span
    start = offsets.offset(span.line, span.column)
    end = offsets.offset(span.end_line, span.end_column)
    if start is None or end is None or end < start:
        return None
    return start, end


def holds_comment(edit: TextEdit, comments: Sequence[Position]) -> bool:
    begin = (edit.span.line, edit.span.column)
    end = (edit.span.end_line, edit.span.end_column)
    return any(begin <= position < end for position in comments)


@record(frozen=True)
class RoundPlan:
    edits: list[tuple[int, int, str]]  # (start offset, end offset, replacement)
    fixes: int  # fixes chosen this round
    kept: int  # fixes refused because they hold a comment
    deferred: int  # fixes that overlap a chosen one (retried next round)


def plan_round(text: str, fixes: Sequence[Fix]) -> RoundPlan:
    """Choose the fixes to apply to ``text`` now: all edits of a fix or none of them."""
    offsets = LineOffsets(text)
    comments = comment_positions(text)
    chosen: list[tuple[int, int, str]] = []
    taken = kept = deferred = 0
    for fix in fixes:
        ranges = [edit_range(edit, offsets) for edit in fix.edits]
        if any(r is None for r in ranges):
            continue  # a range outside the text: nothing sensible to apply
        if any(holds_comment(edit, comments) for edit in fix.edits):
            kept += 1
            continue
        edits = [(r[0], r[1], e.new_text) for r, e in zip(ranges, fix.edits, strict=True) if r]
        if any(overlaps(a, b) for i, a in enumerate(edits) for b in edits[:i]):
            continue  # a fix that contradicts itself
        if any(overlaps(edit, other) for edit in edits for other in chosen):
            deferred += 1
            continue
        chosen.extend(edits)
        taken += 1
    return RoundPlan(chosen, taken, kept, deferred)


def overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Ranges that share a character, or two insertions at one point (order is ambiguous)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def apply_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """Apply edits from the end of the text backwards, so earlier offsets stay valid."""
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def canonicalise(
    text: str, path: str, analysis: ModuleAnalysis, analyze: Analyzer
) -> Canonicalised:
    """Apply W003 fixes round after round until none is left that can be applied."""
    applied = kept = 0
    for _ in range(MAX_ROUNDS):
        plan = plan_round(text, legacy_fixes(analysis))
        kept = plan.kept
        if not plan.edits:
            break
        text = apply_edits(text, plan.edits)
        applied += plan.fixes
        analysis = analyze(text, path)
    return Canonicalised(text, analysis, applied, kept)


def pending_fixes(text: str, analysis: ModuleAnalysis) -> int:
    """How many legacy spellings canonicalisation would still rewrite in ``text``."""
    return plan_round(text, legacy_fixes(analysis)).fixes
