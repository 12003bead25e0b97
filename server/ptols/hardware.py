"""The hardware view's state: per-function facts (``ptoc.kernel_facts``: memory map, sync
sites, CCE lines by statement) computed once a document is idle, and the verdicts of runs.

Nothing here compiles on the message loop: facts are computed on their own thread (previews
never queue behind them) and kept per function while it is unchanged; requests answer from
them, or await the job making them. Handlers: ptols.handlers.hardware.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .documents import MAX_LIVE_LOOP_DEPTH

if TYPE_CHECKING:
    from ptoc.diagnostics import Diagnostic
    from ptoc.frontend import ModuleAnalysis
    from ptoc.kernel_facts import FunctionFacts

    from .documents import Document
    from .server import PtolsServer


@dataclass
class RunVerdict:
    """A failed run's diagnostic, kept while the function is unchanged."""

    key: tuple[Any, ...]  # (program, function, structural hash) when it ran
    message: str


def known_facts(doc: Document) -> list[FunctionFacts]:
    """The facts of the current analysis that are known now (instantly: never compiles).
    Kept while neither the analysis nor the memo changes: finding them hashes every function,
    too slow for each hover on a large file."""
    analysis = doc.analysis
    if analysis is None:
        return []
    memo = doc.facts_memo
    known = doc.known_facts
    if known is not None and known[0] is analysis and known[1] == len(memo):
        return known[2]
    from ptoc.kernel_facts import document_facts

    size = len(memo)  # before: facts added meanwhile make the next call look again
    shared = doc.pipelines
    found = document_facts(
        analysis,
        memo,
        compute=False,
        hash_of=shared.structural_hash,
        calls_of=shared.direct_calls,
    )
    doc.known_facts = (analysis, size, found)
    return found


def facts_job(ls: PtolsServer, doc: Document) -> asyncio.Future[Any] | None:
    """The facts of the current analysis, computed on the facts thread (one job per version,
    shared by whoever asks); None when the analysis has errors, or its loops nest deeper than
    live compilation goes (the facts of 90 nested loops took minutes)."""
    analysis, version = doc.analysis, doc.analysis_version
    if analysis is None or analysis.has_errors or doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:
        return None
    running = doc.facts_job
    if running is not None and running[0] == version:
        return running[1]
    from ptoc.kernel_facts import document_facts

    memo = doc.facts_memo
    if len(memo) > 4 * max(len(analysis.function_infos), 64):
        memo.clear()
    shared = doc.pipelines
    job = asyncio.get_running_loop().run_in_executor(
        ls.facts_pool,
        functools.partial(
            shared.run,
            document_facts,
            analysis,
            memo,
            hash_of=shared.structural_hash,
            calls_of=shared.direct_calls,
        ),
    )
    doc.facts_job = (version, job)

    def done(finished: asyncio.Future[Any]) -> None:
        if finished.cancelled() or finished.exception() is not None:
            return
        if doc.analysis_version == version:
            refresh_views(ls)

    job.add_done_callback(done)
    return job


async def specialised_facts(
    ls: PtolsServer, doc: Document, analysis: ModuleAnalysis, n: int
) -> list[FunctionFacts]:
    """The facts of each @pl.jit kernel's n-th specialisation (the editor's chosen one), on the
    facts thread; functions unchanged by the shapes come from the document's memo."""
    from ptoc.kernel_facts import document_facts

    shared = doc.pipelines

    facts: list[FunctionFacts] = await asyncio.get_running_loop().run_in_executor(
        ls.facts_pool,
        functools.partial(
            shared.run,
            document_facts,
            analysis.specialised(n),
            doc.facts_memo,
            hash_of=shared.structural_hash,
            calls_of=shared.direct_calls,
        ),
    )
    return facts


async def compute_facts(ls: PtolsServer, doc: Document, version: int | None) -> None:
    """Once a document is idle (after the buffer hovers): its facts, in the background."""
    if doc.version != version:
        return
    job = facts_job(ls, doc)
    if job is not None:
        await asyncio.shield(job)


def refresh_views(ls: PtolsServer) -> None:
    """Ask the client to fetch inlay hints and CodeLens again (when it supports that): both
    may have been asked for before the facts (or the analysis) were known."""
    workspace = ls.client_capabilities.workspace
    if workspace is None:
        return
    hints = workspace.inlay_hint
    if hints is not None and hints.refresh_support:
        ls.protocol.send_request(types.WORKSPACE_INLAY_HINT_REFRESH, None)
    lenses = workspace.code_lens
    if lenses is not None and lenses.refresh_support:
        ls.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)


def function_key(doc: Document, function: str) -> tuple[Any, ...] | None:
    """What identifies this version of ``function``: a run's verdict holds while it is equal."""
    analysis = doc.analysis
    if analysis is None:
        return None
    from ptoc.ir.equality import structural_hash

    for program in analysis.all_programs():
        fn = program.function(function)
        if fn is not None:
            return (program.name, function, structural_hash(fn))
    return None


def run_diagnostics(doc: Document) -> list[Diagnostic]:
    """E406 on the name of each function whose last run disagreed, while it is unchanged."""
    verdicts = doc.run_verdicts
    analysis = doc.analysis
    if not verdicts or analysis is None:
        return []
    from ptoc.diagnostics import Diagnostic, Severity

    from .features.run import MISMATCH_CODE

    found: list[Diagnostic] = []
    for function, verdict in list(verdicts.items()):
        if function_key(doc, function) != verdict.key:
            del verdicts[function]  # edited since the run
            continue
        info = next((f for f in analysis.function_infos if f.name == function), None)
        if info is not None:
            found.append(Diagnostic(MISMATCH_CODE, Severity.ERROR, verdict.message, info.name_span))
    return found


def keep_ptoas_sync(
    ls: PtolsServer, doc: Document, key: tuple[Any, ...], found: list[Diagnostic]
) -> None:
    """A pto-cpp preview's sync findings join the document's diagnostics (on the kernel's
    lines) while its version is the analysed one; published again when they change."""
    if key[1] != "pto-cpp" or doc.analysis is None:
        return
    before = [d for k, ds in doc.ptoas_sync.items() if k[0] == key[0] for d in ds]
    for stale in [k for k in doc.ptoas_sync if k[0] != key[0]]:
        del doc.ptoas_sync[stale]
    doc.ptoas_sync[key] = found
    after = [d for ds in doc.ptoas_sync.values() for d in ds]
    if before != after:
        ls.publish(doc, ls.diagnostics_of(doc, doc.analysis), doc.analysis_version)


def ptoas_sync_diagnostics(doc: Document, known: list[Diagnostic]) -> list[Diagnostic]:
    """The pto-cpp previews' sync findings of the analysed version (each once, though several
    previews find it), without those on a line where ``known`` has one of the same code (a
    kernel's own sync is checked in the IR by the back end's diagnostics too)."""
    on_known_lines = {(d.code, d.span.file, d.span.line) for d in known}
    found: dict[tuple[str, Any, str], Diagnostic] = {}
    for key, diagnostics in doc.ptoas_sync.items():
        if key[0] != doc.analysis_version:
            continue
        for d in diagnostics:
            if (d.code, d.span.file, d.span.line) not in on_known_lines:
                found.setdefault((d.code, d.span, d.message), d)
    return list(found.values())


__all__ = [
    "RunVerdict",
    "compute_facts",
    "keep_ptoas_sync",
    "ptoas_sync_diagnostics",
    "facts_job",
    "function_key",
    "known_facts",
    "refresh_views",
    "run_diagnostics",
]
