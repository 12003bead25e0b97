"""Language editions: the PyPTO of 2026-03 and the PyPTO of 2026-08.

Both editions are accepted everywhere. Which one is *in force* for a file decides the few
spellings that mean different things in the two (``EditionRules``) and how the file is printed.
It is chosen, first match wins, by: the command line (``--edition``) or the editor's setting,
the project's ``[tool.ptoc] edition``, the spellings only one edition has (``detect``), and the
newest edition for a file that has none.

Spellings that belong to one edition are data: namespaces and non-op helpers in the tables of
this module, op spellings on their registrations (``OpDef.since`` / ``OpDef.edition_names``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from enum import Enum
from functools import lru_cache

from .ir.dtype import DataType
from .records import record


class Edition(Enum):
    V2026_03 = "2026-03"
    V2026_08 = "2026-08"

    @property
    def label(self) -> str:
        return f"PyPTO {self.value}"

    def __str__(self) -> str:
        return self.value


NEWEST = Edition.V2026_08
OLDEST = Edition.V2026_03
EDITION_NAMES = tuple(e.value for e in Edition)


def parse_edition(text: str | None) -> Edition | None:
    """``"2026-08"`` -> the edition; None for anything else (callers report it)."""
    for edition in Edition:
        if text == edition.value:
            return edition
    return None


class EditionSource(Enum):
    """Why an edition is in force for a file (hover, ``ptoc check -v``, the status item)."""

    FLAG = "chosen on the command line"
    EDITOR = "chosen in the editor's settings"
    PROJECT = "set by [tool.ptoc] edition"
    DETECTED = "detected from its spellings"
    DEFAULT = (
        "the newest edition: no spelling of one edition only; spellings that mean different "
        "things in the two keep their 2026-03 meaning"
    )


#: An edition chosen for a file from outside it, and by whom (flag, editor, project).
ChosenEdition = tuple[Edition, "EditionSource"]


@record(frozen=True)
class EditionRules:
    """What the spellings that exist in both editions mean in one of them (spec §15's rows
    marked "different"). The front end and the type rules read these flags; no other code
    asks which edition is in force."""

    # ``not x`` is logical (2026-08); 2026-03 read it on integers as bitwise not.
    not_is_logical: bool
    # A loop helper's unknown keyword: an error (2026-08), ignored with a warning (2026-03).
    loop_keywords_checked: bool
    # A loop with init_values may reassign its carried names instead of yielding (2026-08).
    reassigned_carries: bool
    # ``break`` and ``continue`` are statements of the language (2026-08).
    loop_jumps: bool
    # The dtype of index-like values: loop variables, ``pl.tensor.dim`` and the block-index
    # queries, an annotation's ``pl.INDEX``. 2026-08: INDEX, its own dtype; 2026-03: INT64.
    index_dtype: DataType
    # The dtype of an integer literal: INDEX in 2026-08 (re-typed to the operand it is paired
    # with, spec §4: an INT32 tile or scalar plus ``1`` stays INT32), INT64 in 2026-03.
    int_literal_dtype: DataType
    # The printer writes a loop's bounds in the shortest form: ``pl.range(8)``,
    # ``pl.range(2, 8)`` (2026-08, spec §16); 2026-03 printed all three.
    short_loop_bounds: bool
    # The edition whose meaning the spellings of both editions take (``ops.renames.MEANINGS``,
    # ``OpDef.edition_rules``): the edition itself, except in a file nothing ties to one.
    meanings: Edition


RULES: dict[Edition, EditionRules] = {
    Edition.V2026_03: EditionRules(
        not_is_logical=False,
        loop_keywords_checked=False,
        reassigned_carries=False,
        loop_jumps=False,
        index_dtype=DataType.INT64,
        int_literal_dtype=DataType.INT64,
        short_loop_bounds=False,
        meanings=Edition.V2026_03,
    ),
    Edition.V2026_08: EditionRules(
        not_is_logical=True,
        loop_keywords_checked=True,
        reassigned_carries=True,
        loop_jumps=True,
        index_dtype=DataType.INDEX,
        int_literal_dtype=DataType.INDEX,
        short_loop_bounds=True,
        meanings=Edition.V2026_08,
    ),
}


def rules_for(edition: Edition, source: EditionSource) -> EditionRules:
    """The rules in force. A file that says nothing of its edition is read as the newest
    edition, but nothing the older one accepts is an error there, and a spelling that means
    different things in the two keeps the meaning it always had (2026-03's: the file may be
    older than the edition, and nothing in it says otherwise)."""
    return RULES[OLDEST] if source is EditionSource.DEFAULT else RULES[edition]


# --- spellings of one edition only ------------------------------------------------------------

#: Op namespaces after ``pl.``, by the edition that has them (absent: both).
NAMESPACE_EDITIONS: dict[str, Edition] = {
    "block": Edition.V2026_03,
    "op": Edition.V2026_03,
    "tile": Edition.V2026_08,
    "array": Edition.V2026_08,
    "prefetch": Edition.V2026_08,
}

#: Namespaces one edition spells otherwise: 2026-08's ``pl.tile.X`` is the IR's ``block.X``.
NAMESPACE_ALIASES: dict[str, str] = {"tile": "block"}


def namespace_spellings(namespace: str) -> tuple[str, ...]:
    """``block`` -> ("block", "tile"): every way an IR namespace is spelled after ``pl.``."""
    return (namespace, *(a for a, target in NAMESPACE_ALIASES.items() if target == namespace))


def namespace_in(namespace: str, edition: Edition) -> str:
    """How ``edition`` spells an IR namespace (``block`` in 2026-08: ``tile``)."""
    for alias in namespace_spellings(namespace):
        if NAMESPACE_EDITIONS.get(alias) is edition:
            return alias
    return namespace


#: Helpers, scopes, loops, decorators and types after ``pl.`` that only one edition has (ops
#: carry theirs on their registrations).
HELPER_EDITIONS: dict[str, Edition] = {
    "incore": Edition.V2026_03,
    "auto_incore": Edition.V2026_03,
    "at": Edition.V2026_08,
    "scope": Edition.V2026_08,
    "manual_scope": Edition.V2026_08,
    "cluster": Edition.V2026_08,
    "spmd": Edition.V2026_08,
    "split_aiv": Edition.V2026_08,
    "unroll": Edition.V2026_08,
    "pipeline": Edition.V2026_08,
    "jit": Edition.V2026_08,
    "Level": Edition.V2026_08,
    "Role": Edition.V2026_08,
    "Mem": Edition.V2026_08,
    "TaskId": Edition.V2026_08,
    "TensorView": Edition.V2026_08,
    "Array": Edition.V2026_08,
    "static_assert": Edition.V2026_08,
    "static_print": Edition.V2026_08,
    "func_attr": Edition.V2026_08,
    "dump_tag": Edition.V2026_08,
    "submit": Edition.V2026_08,
    "spmd_submit": Edition.V2026_08,
    "no_dep": Edition.V2026_08,
    "split": Edition.V2026_08,
    "cross_core_slot": Edition.V2026_08,
    "SplitMode": Edition.V2026_08,
    "ScopeMode": Edition.V2026_08,
}


#: Call forms only one edition writes, as regular expressions after ``pl.`` (what they match
#: is the evidence): 2026-03's ``store(tile, [offsets], [shapes], out)`` (2026-08's third
#: argument is the output tensor).
FORM_EDITIONS: dict[str, Edition] = {
    r"(?:block\.)?(?:store|l0c_store)\(\s*[^,()\[\]]+,\s*\[[^\]]*\]\s*,\s*\[": Edition.V2026_03,
}


@record(frozen=True)
class Evidence:
    """One spelling that only one edition has, where the file writes it."""

    edition: Edition
    spelling: str  # as the user wrote it, e.g. ``pl.block.add``
    line: int  # 1-based
    column: int  # 0-based, in code points
    end_column: int


@record(frozen=True)
class Detection:
    """What a file's spellings say: the edition they point to (None: no evidence, or both)
    and the first spelling of each edition found."""

    edition: Edition | None
    first: dict[Edition, Evidence]

    @property
    def mixed(self) -> bool:
        return len(self.first) > 1


class SpellingTable:
    """Every spelling of one edition only, found in the file's text. Reading the text (not the
    syntax tree) keeps detection cheap and lets it see a file that does not parse; a spelling
    inside a string or comment counts too, which is what a reader of the file would take it for.

    Two scanners find the same spellings. A file with few ``pl.`` mentions (every ``ptoc check``
    of an ordinary kernel) looks each dotted name up in the table: compiling the one regular
    expression of every spelling costs more than the whole look-up. A large file, or any file
    once that expression exists in the process (the language server), is scanned by it."""

    #: Below this many ``prefix.`` mentions the look-up scanner is the cheaper one.
    LOOKUP_MENTIONS = 1500

    def __init__(self, spellings: dict[str, Edition], forms: dict[str, Edition]) -> None:
        self._spellings = spellings
        self._forms = forms
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._form_patterns: dict[str, list[tuple[re.Pattern[str], Edition]]] = {}

    def pattern(self, prefix: str) -> re.Pattern[str]:
        found = self._patterns.get(prefix)
        if found is None:
            # ``pl.block.add(`` / ``pl.incore(`` / ``pl.Level.X``: the spelling must end a name.
            # The evidence is the whole dotted name (``pl.block.add``, ``pl.Level.HOST``). The
            # literal prefix comes first and the check of what stands before it after, so the
            # engine can skip to each ``pl.``: a lookbehind first tests every position (2.6x
            # slower on a 2,000-line kernel, on every keystroke). The names are one trie, not
            # an alternation of every name: it compiles in about half the time.
            escaped = re.escape(prefix)
            names = _trie_pattern(self._spellings)
            found = re.compile(rf"{escaped}\.(?<![\w.]{escaped}\.)({names})(?![\w])(?:\.\w+)*")
            self._patterns[prefix] = found
        return found

    def form_patterns(self, prefix: str) -> list[tuple[re.Pattern[str], Edition]]:
        found = self._form_patterns.get(prefix)
        if found is None:
            # The literal prefix before the lookbehind, as in ``pattern``: a 2026-08 file has
            # no 2026-03 form, and a lookbehind first tested every position of it (1.8 ms of
            # each analysis of a 2,000-line kernel).
            escaped = re.escape(prefix)
            found = [
                (re.compile(rf"{escaped}\.(?<![\w.]{escaped}\.){form}"), edition)
                for form, edition in self._forms.items()
            ]
            self._form_patterns[prefix] = found
        return found

    def spellings(self, text: str, prefix: str) -> Iterator[tuple[re.Match[str], str]]:
        """Each place the text writes a one-edition spelling after ``prefix.``, with the
        spelling; the whole dotted name is the match."""
        if prefix in self._patterns or text.count(f"{prefix}.") >= self.LOOKUP_MENTIONS:
            for match in self.pattern(prefix).finditer(text):
                yield match, match.group(1)
            return
        for match in _dotted_names(prefix).finditer(text):
            known = self._longest_known(match.group(1))
            if known is not None:
                yield match, known

    def _longest_known(self, dotted: str) -> str | None:
        parts = dotted.split(".")
        for count in range(len(parts), 0, -1):
            name = ".".join(parts[:count])
            if name in self._spellings:
                return name
        return None

    def detect(self, text: str, prefixes: tuple[str, ...]) -> Detection:
        first: dict[Edition, Evidence] = {}
        line_starts: dict[Edition, int] = {}  # where each edition's evidence line begins

        def note(match: re.Match[str], edition: Edition) -> None:
            # A match before the line of the evidence kept is on an earlier line (counting the
            # lines before each match was quadratic: 0.34 s for a 4,000-submit graph).
            if edition not in first or match.start() < line_starts[edition]:
                first[edition] = _evidence(text, match, edition)
                line_starts[edition] = text.rfind("\n", 0, match.start()) + 1

        for prefix in prefixes:
            for match, spelling in self.spellings(text, prefix):
                note(match, self._spellings[spelling])
            for pattern, edition in self.form_patterns(prefix):
                form = pattern.search(text)
                if form is not None:
                    note(form, edition)
        chosen = next(iter(first)) if len(first) == 1 else None
        return Detection(chosen, first)


@lru_cache(maxsize=8)
def _dotted_names(prefix: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(prefix)}\.(\w+(?:\.\w+)*)")


def _trie_pattern(names: Iterable[str]) -> str:
    """One regular expression matching exactly the names, factored on shared prefixes; at each
    branch the longer name is tried first, as the caller's end-of-name check needs."""
    root: dict[str, dict] = {}
    for name in names:
        node = root
        for char in name:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + emit(node[char]) for char in sorted(node) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _evidence(text: str, match: re.Match[str], edition: Edition) -> Evidence:
    start = match.start()
    line_start = text.rfind("\n", 0, start) + 1
    column = start - line_start
    spelling = match.group(0).split("(")[0]
    return Evidence(edition, spelling, _line_of(text, start), column, column + len(spelling))


def choose(detection: Detection | None) -> tuple[Edition, EditionSource]:
    """The edition in force and why, for a file that no flag, editor or project setting
    chose an edition for: from its spellings, else the newest."""
    if detection is not None and detection.edition is not None:
        return detection.edition, EditionSource.DETECTED
    if detection is not None and detection.mixed:
        # Both editions' spellings: the newer one wins, and the file gets one warning.
        return NEWEST, EditionSource.DETECTED
    return NEWEST, EditionSource.DEFAULT
