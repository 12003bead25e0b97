"""What the front end produces for one file: IR, diagnostics, and an index of every name
occurrence with its type and definition (hover / go-to-definition read it)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from enum import Enum
from operator import attrgetter
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..graph.memo import GraphMemo
from ..ir.function import Function, Program
from ..ir.span import Span
from ..ir.types import Type
from ..records import field, record

if TYPE_CHECKING:
    from .edition import EditionInForce


class OccurrenceKind(Enum):
    VARIABLE = "variable"
    PARAMETER = "parameter"
    ITER_ARG = "iter_arg"
    LOOP_VAR = "loop_var"
    FUNCTION = "function"  # a program function (definition or self.f call)
    OP = "op"  # pl.add, pl.block.load, ...
    HELPER = "helper"  # pl.range, pl.yield_, ...
    TYPE = "type"  # an annotation
    DTYPE = "dtype"
    CONSTANT = "constant"  # a module-level constant
    PROGRAM = "program"
    EXPRESSION = "expression"  # any other expression (arithmetic, comparison, subscript, list)


@record(frozen=True, slots=True)
class Occurrence:
    span: Span
    name: str
    kind: OccurrenceKind
    type: Type | None = None
    definition: Span | None = None  # where the name is defined (None for ops: see op_name)
    op_name: str | None = None  # the registered op, for OP occurrences
    is_definition: bool = False
    detail: str = ""  # extra hover text (e.g. the function signature)


_POSITION = attrgetter("span.line", "span.column")  # an occurrence's sort key


@record
class SymbolIndex:
    """Occurrences sorted by position; lookups are a binary search."""

    occurrences: list[Occurrence] = field(default_factory=list)
    _keys: list[tuple[int, int]] = field(default_factory=list)

    def add(self, occurrence: Occurrence) -> None:
        self.occurrences.append(occurrence)  # unsorted now: _keys is shorter

    def extend(self, occurrences: Iterable[Occurrence]) -> None:
        self.occurrences.extend(occurrences)

    def freeze(self) -> None:
        """Sort now (the analysis thread calls this) so lookups never pay for it."""
        self._sorted()

    def between(self, first_line: int, last_line: int) -> list[Occurrence]:
        """Occurrences starting on lines first_line..last_line (1-based, inclusive)."""
        self._sorted()
        lo = bisect.bisect_left(self._keys, (first_line, -1))
        hi = bisect.bisect_right(self._keys, (last_line, 1 << 30))
        return self.occurrences[lo:hi]

    def _sorted(self) -> None:
        if len(self._keys) != len(self.occurrences):
            self.occurrences.sort(key=_POSITION)
            self._keys = list(map(_POSITION, self.occurrences))

    def at(self, line: int, column: int) -> Occurrence | None:
        """The innermost occurrence containing (1-based line, 0-based column)."""
        self._sorted()
        i = bisect.bisect_right(self._keys, (line, column))
        best: Occurrence | None = None
        for occ in reversed(self.occurrences[max(0, i - 64) : i]):
            if occ.span.contains(line, column):
                if best is None or best.span.covers(occ.span):
                    best = occ
        return best


@record
class FunctionInfo:
    """Where a function is and what it is called, for symbols and caching."""

    name: str
    span: Span  # the whole def
    name_span: Span
    program: str | None


@record
class ModuleAnalysis:
    path: str
    text: str
    uses_pypto: bool = False  # imports pypto.language, or is a printed IR file
    diagnostics: list[Diagnostic] = field(default_factory=list)
    programs: list[Program] = field(default_factory=list)  # @pl.program classes / printed IR
    functions: list[Function] = field(default_factory=list)  # standalone @pl.function
    index: SymbolIndex = field(default_factory=SymbolIndex)
    function_infos: list[FunctionInfo] = field(default_factory=list)
    prefix: str = "pl"  # the alias the file imports pypto.language under
    # The aliases of ``pypto.language.distributed`` (``pld``), for completion after them.
    distributed: tuple[str, ...] = ()
    # The language edition in force for the file and why (None: not a kernel file).
    edition: EditionInForce | None = None
    reused_functions: int = 0  # functions whose analysis came from the cache
    # Programs and functions defined inside a builder function (``def build(n): @pl.program
    # class P ...``): their shapes may use the builder's values, known only when it runs.
    built: set[str] = field(default_factory=set)
    # Each @pl.jit entry's programs specialised from the calls in the file, in call order (the
    # first is in ``programs``; with none, the kernel's symbolic program is).
    jit_specialisations: dict[str, list[Program]] = field(default_factory=dict)
    jit_functions: dict[str, Span] = field(default_factory=dict)  # every JIT function's def
    # Each @pl.jit entry's program for every shape (its parameters of symbolic extents): what
    # its task graph is drawn from when no call in the file gives it shapes.
    jit_symbolic: dict[str, Program] = field(default_factory=dict)
    # Where each specialisation comes from ("call at line 42", "[tool.ptoc.jit] k #1"), in step
    # with ``jit_specialisations``.
    jit_labels: dict[str, list[str]] = field(default_factory=dict)
    # What each specialisation is (its parameters' types, ``CallSite.key``), in step with
    # ``jit_specialisations``: the editor keeps a chosen one by it across edits.
    jit_keys: dict[str, list[str]] = field(default_factory=dict)
    # Per JIT function whose symbols are symbolic (no call gives shapes): its bare tensors and
    # their element types' variables (``{"a": "dtype(a)"}``, ``ir.dtype.DtypeVariable``).
    jit_dtype_variables: dict[str, dict[str, str]] = field(default_factory=dict)
    # What a call of each @pl.jit entry must pass, per parameter ("a needs rank 2, at least
    # [64, 64]", "n is a run-time value (pl.RUNTIME)"): the hover lists them, signature help
    # documents each parameter with its own.
    jit_param_notes: dict[str, dict[str, str]] = field(default_factory=dict)
    # The task graphs built for the warnings W040-W043, which ``ptoc graph`` and the editor's
    # task-graph view reuse (``graph.select.function_graph``).
    task_graphs: GraphMemo = field(default_factory=GraphMemo, repr=False)

    def specialise(self, n: int) -> None:
        """Make each @pl.jit entry's n-th specialisation (1-based, in call order) its program;
        an entry called fewer times is left out."""
        kept = [p for p in self.programs if p.name not in self.jit_specialisations]
        chosen = [found[n - 1] for found in self.jit_specialisations.values() if len(found) >= n]
        self.programs = kept + chosen

    def built_concretely(self) -> ModuleAnalysis | None:
        """The file analysed again with each builder's parameters the values its first call
        in the file passes (where constant; else its defaults): the programs it builds when
        run, of concrete sizes. None when that analysis has errors (the programs then stand
        for every size) or the file has no builder."""
        if not self.built:
            return None
        from ..editions import EditionSource
        from . import analyze_source

        chosen = None
        if self.edition is not None and self.edition.source not in (
            EditionSource.DETECTED,
            EditionSource.DEFAULT,
        ):
            chosen = (self.edition.edition, self.edition.source)
        again = analyze_source(self.text, self.path, edition=chosen, builder_defaults=True)
        return None if again.has_errors else again

    def specialised(self, n: int) -> ModuleAnalysis:
        """A copy whose programs are each @pl.jit entry's n-th specialisation (``specialise``
        on a copy: the analysis itself is shared, by the editor's requests say)."""
        from ..records import replace

        copy = replace(self, programs=list(self.programs))
        copy.specialise(n)
        return copy

    def jit_entry_of(self, function: str) -> str | None:
        """The @pl.jit entry whose programs define ``function`` (itself, or a JIT function it
        calls)."""
        for entry, found in self.jit_specialisations.items():
            programs = [*found, self.jit_symbolic.get(entry)]
            if entry == function or any(p is not None and p.function(function) for p in programs):
                return entry
        return None

    def no_such_specialisation(self, function: str, n: int) -> str | None:
        """Why ``--specialise n`` gives ``function`` no program (its kernel has fewer calls),
        in words for the command line (``ptoc graph`` and ``ptoc run`` say it alike); None
        when it does, or ``function`` is no JIT function."""
        entry = self.jit_entry_of(function)
        if entry is None:
            return None
        calls = len(self.jit_specialisations[entry])
        if calls >= n:
            return None
        if calls == 0:
            return (
                f"'{function}' is a @pl.jit kernel, and no call of it in this file passes "
                "tensors ptoc can read (such as torch.zeros((128, 128), dtype=torch.float32)): "
                "no shapes to run or compile it with"
            )
        return (
            f"'{function}' has {calls} specialisation(s) in this file, not {n}: --specialise N "
            "takes the N-th call (or # ptoc: specialise line) of its kernel"
        )

    def nothing_to_compile(self) -> str:
        """Why the file has no program, in words for the command line."""
        if self.jit_specialisations:
            return (
                "has @pl.jit kernels but no call of them in the file (or not that many, with "
                "--specialise) passes tensors ptoc can read, such as "
                "torch.zeros((128, 128), dtype=torch.float32): no shapes to generate code for"
            )
        return "contains no @pl.program or @pl.function"

    def all_programs(self) -> list[Program]:
        """Programs, with each standalone function wrapped in a program of its own name, except
        those a program calls: they are part of that program (and printed once, there)."""
        used = {id(fn) for program in self.programs for fn in program.functions}
        wrapped = [
            Program(fn.name, (fn,), span=fn.span) for fn in self.functions if id(fn) not in used
        ]
        return self.programs + wrapped

    @property
    def has_errors(self) -> bool:
        return any(d.severity.value == "error" for d in self.diagnostics)
