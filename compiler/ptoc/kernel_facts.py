"""What the hardware view in the editor shows about each function, computed once per version
of the function: its memory map, where InsertSync put synchronisation, the CCE lines each
statement became, and its predicted per-pipe timeline (when pto-isa's cost tables are there).

One run of the default pipeline per function (with its callees, as ``ptoc compile
--function`` does) gives all three; ``memo`` keeps the result while the function is unchanged,
so after an edit only the edited function is compiled again (the language server computes
this in the background and answers from it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, Severity
from .ir.function import Function, Program
from .ir.span import Span
from .memory_map import PIPELINE, FunctionMap, function_map
from .records import field, record
from .sync_sites import SyncSite, function_sync_sites

if TYPE_CHECKING:
    from .frontend.analysis import ModuleAnalysis
    from .timeline import Timeline

#: The most instructions of a kernel the editor's timeline lays out (``ptoc compile
#: --timeline`` lays out 200,000): a stream that long took 0.5 s to lay out and 9 MB to send,
#: and the answer over a second; the pane lists the first 20,000, the cut is noted.
LIVE_INSTRUCTIONS = 50_000


@record
class FunctionFacts:
    """The facts of one source function (and of the kernels outlined from it)."""

    program: str
    function: str
    span: Span
    memory: list[FunctionMap] = field(default_factory=list)
    sync: list[SyncSite] = field(default_factory=list)
    #: Statement span -> the CCE lines generated for it (sync included), in order.
    cce: dict[Span, list[str]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The predicted timeline of each kernel lowered from it (none without pto-isa's tables).
    timelines: list[Timeline] = field(default_factory=list)


def function_facts(program: Program, fn: Function) -> FunctionFacts:
    from .codegen.cce import generate_cce
    from .driver import narrow, run_pipeline
    from .ir.function import FunctionType

    facts = FunctionFacts(program.name, fn.name, fn.span)
    lowered = run_pipeline(narrow(program, fn.name), PIPELINE)
    facts.diagnostics = list(lowered.diagnostics)
    own = [f for f in lowered.program.functions if fn.span.covers(f.span)]
    allocated = lowered.after("AllocateMemoryAddr")
    if allocated is not None:
        for placed in allocated.functions:
            found = function_map(placed) if fn.span.covers(placed.span) else None
            if found is not None:
                facts.memory.append(found)
    for lowered_fn in own:
        facts.sync += function_sync_sites(lowered_fn)
    facts.sync.sort(key=lambda site: (site.span.line, site.span.column))
    if any(d.severity is Severity.ERROR for d in lowered.diagnostics):
        return facts
    kernels = [f for f in own if f.func_type is not FunctionType.Orchestration]
    facts.timelines = _timelines(kernels)
    for lowered_fn in kernels:
        generated = generate_cce(lowered_fn)
        for line, span in zip(generated.text.split("\n"), generated.line_spans, strict=False):
            if span is not None and line.strip():
                facts.cce.setdefault(span, []).append(line.strip())
    return facts


def _timelines(kernels: list[Function]) -> list[Timeline]:
    from .timeline import installed_tables, predict

    tables = installed_tables()
    if tables is None:
        return []
    found = [predict(fn, tables, limit=LIVE_INSTRUCTIONS) for fn in kernels]
    return [t for t in found if t.events]  # a function of scalars only has no pipe work


def document_facts(
    analysis: ModuleAnalysis,
    memo: dict[Any, Any] | None = None,
    *,
    compute: bool = True,
    hash_of: Callable[[Function], int] | None = None,
    calls_of: Callable[[Function], list[str]] | None = None,
) -> list[FunctionFacts]:
    """The facts of every function in which the front end found no error (programs a builder
    makes are left out, as for ``backend_diagnostics``). ``compute=False`` answers from
    ``memo`` alone. ``hash_of`` / ``calls_of``: a function's structural hash and the functions
    it calls (``ptoc.driver.direct_calls``), which a caller may keep per function.

    A function's facts are kept while it and every function it reaches are unchanged (same
    structure, same place): its pipeline inlines them."""
    from .driver import callees, direct_calls
    from .ir.equality import structural_hash

    hash_of = hash_of or structural_hash
    calls_of = calls_of or direct_calls
    memo = memo if memo is not None else {}
    errors = [d.span for d in analysis.diagnostics if d.severity is Severity.ERROR]
    found: list[FunctionFacts] = []
    for program in analysis.all_programs():
        if program.name in analysis.built:
            continue
        computed: dict[str, FunctionFacts | None] = {}  # this program's facts, by function
        launchers: list[tuple[int, Function, Any, set[str]]] = []
        for fn in program.functions:
            computed[fn.name] = None
            if any(fn.span.covers(span) for span in errors):
                continue
            reached = set(callees(program, fn.name, calls_of))
            key = _facts_key(program, fn, reached, hash_of)
            facts = memo.get(key)
            if facts is None:
                if not compute:
                    continue
                if launches_only(fn):
                    launchers.append((len(found), fn, key, reached))
                    continue
                try:
                    facts = function_facts(program, fn)
                except Exception:  # the passes must not raise; compile reports it if they do
                    facts = FunctionFacts(program.name, fn.name, fn.span)
                memo[key] = facts
            computed[fn.name] = facts
            found.append(facts)
        for at, fn, key, reached in reversed(launchers):
            kernels = [computed[f.name] for f in program.functions if f.name in reached]
            facts = launcher_facts(program, fn, [k for k in kernels if k is not None])
            memo[key] = facts
            found.insert(at, facts)
    return found


def _facts_key(
    program: Program, fn: Function, reached: set[str], hash_of: Callable[[Function], int]
) -> tuple[Any, ...]:
    """What a function's facts depend on: it and every function it reaches (same structure,
    same place). The structural hash leaves parameter types out: a @pl.jit kernel's differ
    from one specialisation to another."""
    return (
        program.name,
        fn.name,
        tuple(
            (f.span, hash_of(f), tuple(str(p.type) for p in f.params))
            for f in program.functions
            if f.name in reached
        ),
    )


def launches_only(fn: Function) -> bool:
    """Whether ``fn`` is an orchestration function without an InCore scope: lowering it makes
    no kernel of its own, so it has no tile to map, no sync, no CCE line and no timeline."""
    from .ir.function import FunctionType
    from .ir.stmt import ScopeKind, ScopeStmt
    from .ir.walk import walk_stmts

    return fn.func_type is FunctionType.Orchestration and not any(
        isinstance(s, ScopeStmt) and s.kind is ScopeKind.InCore for s in walk_stmts(fn.body)
    )


def launcher_facts(program: Program, fn: Function, reached: list[FunctionFacts]) -> FunctionFacts:
    """The facts of a function that ``launches_only``, without running the pipeline over it:
    empty but for the diagnostics of the kernels it reaches (``reached``: their facts), which
    a run over it with its callees reports. The pipeline over a 2,000-``pl.submit``
    orchestration was most of the time ``ptols/timeline`` took on it (issue #33)."""
    diagnostics = [d for facts in reached if facts.function != fn.name for d in facts.diagnostics]
    return FunctionFacts(
        program.name, fn.name, fn.span, diagnostics=list(dict.fromkeys(diagnostics))
    )


__all__ = [
    "FunctionFacts",
    "document_facts",
    "function_facts",
    "launcher_facts",
    "launches_only",
]
