"""Which edition is in force for a file, and the evidence: the spellings of one edition only,
gathered from ``ptoc.editions``' tables and the op registry's registrations."""

from __future__ import annotations

from collections.abc import Callable, Iterator

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
        for spelling, owner in _op_spellings():
            owners.setdefault(spelling, set()).add(owner)
        for spelling, editions in owners.items():
            only = next(iter(editions))
            if len(editions) == 1 and only is not None:
                spellings.setdefault(spelling, only)
        _TABLE = SpellingTable(spellings, FORM_EDITIONS)
    return _TABLE


def _op_spellings() -> Iterator[tuple[str, Edition | None]]:
    """Every DSL-visible op's spellings with their editions. The ops registered on demand
    (ops/lazy.py) are all 2026-08's: their spellings come from the index, unimported."""
    deferred = REGISTRY.deferred
    for op in REGISTRY.loaded():
        if op.dsl_visible and (deferred is None or op.name not in deferred.ops):
            yield from op_spelling_editions(op)
    for name, visible, names in deferred.entries() if deferred is not None else ():
        if visible:
            namespace = name.partition(".")[0]
            yield from spelling_editions(namespace, names, lambda _name, _ns: Edition.V2026_08)


def op_spelling_editions(op: OpDef) -> list[tuple[str, Edition | None]]:
    """The op's spellings after ``pl.``, each with the one edition that has it (None: both).
    ``pl.tile.X`` / ``pl.block.X`` are already their namespace's edition: not listed."""
    return spelling_editions(op.namespace, op.dsl_names or (op.short_name,), op.spelling_edition)


def spelling_editions(
    op_namespace: str, names: tuple[str, ...], edition_of: Callable[[str, str], Edition | None]
) -> list[tuple[str, Edition | None]]:
    """An op's spellings after ``pl.`` with ``edition_of(name, namespace)``, the one edition
    that has each (``namespace`` ``""``: the unified ``pl.X``)."""
    found: list[tuple[str, Edition | None]] = []
    for name in names:
        for namespace in namespace_spellings(op_namespace):
            if NAMESPACE_EDITIONS.get(namespace) is None:
                found.append((f"{namespace}.{name}", edition_of(name, namespace)))
        if op_namespace in UNIFIED_NAMESPACES:
            found.append((name, edition_of(name, "")))
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


def edition_of_import(
    source: SourceText, imports: DslImports, importer: ChosenEdition
) -> ChosenEdition:
    """The edition a file read for what another imports from it (``sibling_imports``) is read
    in: the one chosen for the project (flag, editor, ``[tool.ptoc]``) as for the importer,
    else the one its own spellings say, else the importer's."""
    if importer[1] not in (EditionSource.DETECTED, EditionSource.DEFAULT):
        return importer
    own = _decide(source, imports, None)
    return (own.edition, own.source) if own.source is EditionSource.DETECTED else importer


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
