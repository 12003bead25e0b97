"""``upgrade_source``: rewrite a 2026-03 kernel in 2026-08 spelling, keeping only the rewrites
the proof accepts; never raises."""

from __future__ import annotations

import ast
from typing import Literal

from ..diagnostics import TextEdit
from ..editions import Edition, EditionSource
from ..fmt.canonical import LineOffsets, apply_edits, edit_range
from ..fmt.formatter import split_encoding
from ..frontend import ModuleAnalysis
from ..frontend.upgrades import Kept, Rewrite, plan_upgrade
from ..ir.span import Span
from ..records import field, record
from .proof import MODULE, differences, functions_of, owner

OLD = (Edition.V2026_03, EditionSource.FLAG)
NEW = (Edition.V2026_08, EditionSource.FLAG)
MAX_ANALYSES = 64  # a bound on the proof's retries for one file

UpgradeStatus = Literal["unchanged", "upgraded", "refused", "skipped", "error"]


@record(frozen=True)
class Left:
    """A line the upgrade left as written, and why."""

    line: int
    column: int
    spelling: str
    why: str


@record(frozen=True)
class UpgradeResult:
    """What upgrading one text gave. ``text`` is the input unless ``status`` is ``upgraded``;
    ``left`` names every 2026-03 spelling kept as written; ``reason`` says why a file was
    skipped, refused or not parsed."""

    status: UpgradeStatus
    text: str
    rewritten: int = 0
    left: list[Left] = field(default_factory=list)
    reason: str = ""
    edits: list[TextEdit] = field(default_factory=list)  # in the original's positions

    @property
    def changed(self) -> bool:
        return self.status == "upgraded"


def analyze(text: str, path: str, edition: tuple[Edition, EditionSource]) -> ModuleAnalysis:
    from ..driver import analyze as analyze_text

    return analyze_text(text, path, edition=edition)


def upgrade_source(text: str, path: str = "<string>", *, explicit: bool = False) -> UpgradeResult:
    """Upgrade one text (see the module). ``explicit``: upgrade a file even when it does not
    import ``pypto.language`` (it then has nothing to upgrade)."""
    try:
        return upgrade_text(text, path, explicit)
    except RecursionError:
        return UpgradeResult("refused", text, reason="the file nests too deeply to prove anything")
    except Exception as exc:  # a bug in the upgrade itself: say so, never touch the file
        return UpgradeResult("refused", text, reason=f"internal error: {type(exc).__name__}: {exc}")


def upgrade_text(text: str, path: str, explicit: bool) -> UpgradeResult:
    bom, newline, source = split_encoding(text)
    if not explicit and "pypto" not in source:
        return UpgradeResult("skipped", text, reason="does not import pypto.language")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        return UpgradeResult("error", text, reason=f"not valid Python: {exc}")
    before = analyze(source, path, OLD)
    if not before.uses_pypto:
        return UpgradeResult("skipped", text, reason="does not import pypto.language")
    plan = plan_upgrade(tree, before)
    proven = Prover(source, path, before, plan.kept).prove(plan.rewrites)
    left = [left_note(k.span, k.spelling, k.why) for k in plan.kept] + proven.left
    left.sort(key=lambda note: (note.line, note.column))
    if proven.failure:
        return UpgradeResult("refused", text, 0, left, proven.failure)
    if not proven.rewrites:
        return UpgradeResult("unchanged", text, 0, left)
    edits = [e for r in proven.rewrites for e in r.edits]
    upgraded = bom + proven.text.replace("\n", newline)
    return UpgradeResult("upgraded", upgraded, len(proven.rewrites), left, edits=edits)


def left_note(span: Span, spelling: str, why: str) -> Left:
    return Left(span.line, span.column + 1, spelling, why)


@record
class Proven:
    rewrites: list[Rewrite]
    text: str
    left: list[Left]
    failure: str = ""  # why no upgraded text can be written at all


class Prover:
    """Applies the rewrites and analyses the result as 2026-08; a function that the proof
    fails on loses the rewrite responsible (found by leaving each out in turn), or all of
    its rewrites when no single one is."""

    def __init__(self, source: str, path: str, before: ModuleAnalysis, kept: list[Kept]):
        self.source, self.path, self.before = source, path, before
        self.functions = functions_of(before)
        self.kept_in = {owner(self.functions, k.span) for k in kept}
        self.analyses = 0

    def attempt(self, rewrites: list[Rewrite]) -> tuple[str, dict[str, str]]:
        self.analyses += 1
        text = apply(self.source, rewrites)
        return text, differences(self.before, analyze(text, self.path, NEW))

    def prove(self, rewrites: list[Rewrite]) -> Proven:
        active, left = list(rewrites), list[Left]()
        text, failing = self.attempt(active)
        while failing and self.analyses < MAX_ANALYSES:
            name, why = next(iter(failing.items()))
            mine = [r for r in active if owner(self.functions, r.span) == name]
            if name == MODULE or not mine:  # it differs whatever is left out
                return Proven([], self.source, left, self.unprovable(name, why))
            culprit = self.culprit(active, mine, name)
            for rewrite in culprit:
                active.remove(rewrite)
                note = f"the proof fails with this rewrite: in function '{name}', {why}"
                left.append(left_note(rewrite.span, rewrite.old, note))
            text, failing = self.attempt(active)
        if failing:
            return Proven([], self.source, left, "the proof took too many attempts")
        return Proven(active, text, left)

    def culprit(self, active: list[Rewrite], mine: list[Rewrite], name: str) -> list[Rewrite]:
        for rewrite in mine:
            if self.analyses >= MAX_ANALYSES:
                break
            _, failing = self.attempt([r for r in active if r is not rewrite])
            if name not in failing:
                return [rewrite]
        return mine

    def unprovable(self, name: str, why: str) -> str:
        where = "the module" if name == MODULE else f"function '{name}'"
        if name in self.kept_in:
            return f"{where} means something else in 2026-08 (see the lines left): {why}"
        return f"{where} cannot be upgraded: {why}"


def apply(text: str, rewrites: list[Rewrite]) -> str:
    offsets = LineOffsets(text)
    edits: list[tuple[int, int, str]] = []
    for rewrite in rewrites:
        for edit in rewrite.edits:
            found = edit_range(edit, offsets)
            if found is not None:
                edits.append((found[0], found[1], edit.new_text))
    return apply_edits(text, edits)
