"""Which edition is in force for a file, and the evidence: the spellings of one edition only,
gathered from ``ptoc.editions``' tables and the op registry's registrations."""

from __future__ import annotations

from ..diagnostics import DiagnosticBag, Related
from ..editions import (
    FORM_EDITIONS,
    HELPER_EDITIONS,
    NAMESPACE_EDITIONS,
    ChosenEdition,
    Detection,
    Edition,
    EditionSource,
    Evidence,
    SpellingTable,
    choose,
    namespace_spellings,
)
from ..ir.span import Span
from ..ops import REGISTRY, OpDef
from ..records import record
from .names import DslImports
from .source import SourceText

# The namespaces whose ops the unified ``pl.X`` spelling reaches.
UNIFIED_NAMESPACES = ("block", "tensor")

_TABLE: SpellingTable | None = None


def spelling_table() -> SpellingTable:
    """Every spelling of one edition only (built once: the registry does not change)."""
    global _TABLE
    if _TABLE is None:
        spellings: dict[str, Edition] = dict(HELPER_EDITIONS)
        spellings.update(NAMESPACE_EDITIONS)
        # A spelling is one edition's only when no op has it in the other (2026-08's new
        # ``tensor.matmul_acc`` does not make the unified ``pl.matmul_acc`` a 2026-08 one).
        owners: dict[str, set[Edition | None]] = {}
        for op in REGISTRY:
            if op.dsl_visible:
                for spelling, owner in op_spelling_editions(op):
                    owners.setdefault(spelling, set()).add(owner)
        for spelling, editions in owners.items():
            only = next(iter(editions))
            if len(editions) == 1 and only is not None:
                spellings.setdefault(spelling, only)
        _TABLE = SpellingTable(spellings, FORM_EDITIONS)
    return _TABLE


def op_spelling_editions(op: OpDef) -> list[tuple[str, Edition | None]]:
    """The op's spellings after ``pl.``, each with the one edition that has it (None: both).
    ``pl.tile.X`` / ``pl.block.X`` are already their namespace's edition: not listed."""
    found: list[tuple[str, Edition | None]] = []
    for name in op.dsl_names or (op.short_name,):
        for namespace in namespace_spellings(op.namespace):
            if NAMESPACE_EDITIONS.get(namespace) is None:
                found.append((f"{namespace}.{name}", op.spelling_edition(name, namespace)))
        if op.namespace in UNIFIED_NAMESPACES:
            found.append((name, op.spelling_edition(name, "")))
    return found


@record(frozen=True)
class EditionInForce:
    edition: Edition
    source: EditionSource
    detection: Detection | None = None

    def describe(self) -> str:
        return f"{self.edition.label} ({self.source.value})"


def decide(
    source: SourceText, imports: DslImports, explicit: ChosenEdition | None, bag: DiagnosticBag
) -> EditionInForce:
    """The edition in force for the file; a file mixing both editions' spellings gets W030."""
    in_force = _decide(source, imports, explicit)
    report_mixed(bag, source, in_force)
    return in_force


def _decide(
    source: SourceText, imports: DslImports, explicit: ChosenEdition | None
) -> EditionInForce:
    prefixes = tuple(sorted(imports.aliases)) or ("pl",)
    if imports.dotted:
        prefixes = (*prefixes, "pypto.language")
    detection = spelling_table().detect(source.text, prefixes)
    if explicit is not None:
        return EditionInForce(explicit[0], explicit[1], detection)
    edition, why = choose(detection)
    return EditionInForce(edition, why, detection)


def report_mixed(bag: DiagnosticBag, source: SourceText, in_force: EditionInForce) -> None:
    """One warning for a file that writes spellings of both editions, on the first spelling
    of the edition not in force, naming the other."""
    detection = in_force.detection
    if detection is None or not detection.mixed:
        return
    other = next(e for e in detection.first if e is not in_force.edition)
    odd, usual = detection.first[other], detection.first[in_force.edition]
    bag.error(
        "W030",
        f"this file mixes the two editions: `{odd.spelling}` is PyPTO {odd.edition} and "
        f"`{usual.spelling}` (line {usual.line}) is PyPTO {usual.edition}; "
        f"{in_force.edition.label} is in force ({in_force.source.value})",
        evidence_span(source, odd),
        related=(Related(evidence_span(source, usual), f"a PyPTO {usual.edition} spelling"),),
    )


def evidence_span(source: SourceText, evidence: Evidence) -> Span:
    return Span(source.path, evidence.line, evidence.column, evidence.line, evidence.end_column)
