"""The upgrade's proof: the upgraded text, analysed as 2026-08, lowers every function to an IR
structurally equal to the original's (analysed as 2026-03) with the same diagnostics.

The comparison is per function, so that a rewrite that fails it can be found and left out
while the others stay.
"""

from __future__ import annotations

from collections import Counter

from ..diagnostics import Severity
from ..frontend import ModuleAnalysis
from ..ir import structural_equal
from ..ir.function import Function
from ..ir.span import Span

#: Codes about editions and spellings: the upgrade changes these on purpose.
SPELLING_CODES = frozenset({"W003", "W030", "W031", "W032"})
INTERNAL_CODES = frozenset({"E900", "E901"})
MODULE = ""  # the key of what no function covers


def functions_of(analysis: ModuleAnalysis) -> dict[str, Function]:
    """Every function by a name unique in the module (``Program.function``)."""
    found = {f.name: f for f in analysis.functions}
    for program in analysis.programs:
        for function in program.functions:
            found[f"{program.name}.{function.name}"] = function
    return found


def owner(functions: dict[str, Function], span: Span) -> str:
    """The function whose text holds ``span`` (the innermost, if nested), else MODULE."""
    best, size = MODULE, None
    for name, function in functions.items():
        s = function.span
        if s is not None and s.covers(span):
            extent = (s.end_line - s.line, s.end_column)
            if size is None or extent < size:
                best, size = name, extent
    return best


def codes_by_function(analysis: ModuleAnalysis) -> dict[str, Counter[str]]:
    functions = functions_of(analysis)
    found: dict[str, Counter[str]] = {}
    for diagnostic in analysis.diagnostics:
        if diagnostic.code not in SPELLING_CODES:
            found.setdefault(owner(functions, diagnostic.span), Counter())[diagnostic.code] += 1
    return found


def differences(before: ModuleAnalysis, after: ModuleAnalysis) -> dict[str, str]:
    """Function name (or MODULE) -> what differs in it; empty when the proof holds."""
    internal = sorted(INTERNAL_CODES & {d.code for d in after.diagnostics})
    if internal:
        return {MODULE: f"the front end failed on the upgraded text ({internal[0]})"}
    old, new = functions_of(before), functions_of(after)
    if list(old) != list(new) or [p.name for p in before.programs] != [
        p.name for p in after.programs
    ]:
        return {MODULE: f"the functions changed (before: {list(old)}; after: {list(new)})"}
    found: dict[str, str] = {}
    codes_old, codes_new = codes_by_function(before), codes_by_function(after)
    errors = [d.span for d in before.diagnostics if d.severity is Severity.ERROR]
    for name in [MODULE, *old]:
        a, b = codes_old.get(name, Counter()), codes_new.get(name, Counter())
        if a != b:
            found[name] = f"its diagnostics change (before: {describe(a)}; after: {describe(b)})"
        elif name != MODULE and not any(old[name].span.covers(e) for e in errors):
            # 2026-08 types index-like values INDEX where 2026-03 had INT64: the same value
            if not structural_equal(old[name], new[name], index_as_int64=True):
                found[name] = "its IR under 2026-08 differs from the original's"
    return found


def describe(codes: Counter[str]) -> str:
    if not codes:
        return "none"
    return ", ".join(f"{c} x{n}" if n > 1 else c for c, n in sorted(codes.items()))
