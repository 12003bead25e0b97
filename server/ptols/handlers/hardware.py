"""The hardware view's requests (docs/lsp-extensions.md): ptols/sourceMap, ptols/memoryMap,
ptols/run, ptols/timeline, ptols/passDiff and CodeLens, answered with the classes of
ptols.protocol."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from .. import capabilities, hardware
from ..documents import MAX_LIVE_LOOP_DEPTH, MAX_LIVE_PASS_DIFF_STATEMENTS
from ..isolated import JobFailed
from ..protocol import (
    MemoryMapParams,
    MemoryMapResult,
    PassDiffParams,
    PassDiffResult,
    RunParams,
    RunResult,
    SourceMapParams,
    SourceMapResult,
    TaskGraphParams,
    TaskGraphResult,
    TimelineParams,
    TimelineResult,
)
from .common import features, open_document, pypto_document
from .extensions import to_preview_diagnostic, too_deep_diagnostic, too_large_for_pass_diff

if TYPE_CHECKING:
    from ptoc.diagnostics import Diagnostic
    from ptoc.frontend import ModuleAnalysis
    from ptoc.kernel_facts import FunctionFacts

    from ..documents import Document
    from ..features import preview as preview_feature
    from ..server import PtolsServer

CODE_LENS_OPTIONS = types.CodeLensOptions(**capabilities.CODE_LENS_OPTIONS)  # capabilities.py


def check_function(analysis: ModuleAnalysis, function: str | None, method: str) -> None:
    problem = features.preview.request_problem(analysis, "cce", function)
    if problem is not None:
        raise JsonRpcInvalidParams(f"ptols: {method}: {problem}")


async def source_map(ls: PtolsServer, params: SourceMapParams) -> SourceMapResult:
    doc = open_document(ls, params.text_document.uri, "sourceMap")
    target = ls.settings.default_target if params.target is None else params.target
    pipeline = ls.settings.pipeline if params.pipeline is None else params.pipeline
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return SourceMapResult(doc.version, "", [])
    problem = features.preview.request_problem(analysis, target, params.function)
    if problem is not None:
        raise JsonRpcInvalidParams(f"ptols: sourceMap: {problem}")
    version = doc.analysis_version
    if doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:
        return SourceMapResult(version, "", [])  # as the preview: too costly to compile live
    strict = ls.settings.strict_for(analysis.path)
    key = (version, target, params.function, pipeline, strict, None)  # (ptols/preview's key)
    result: preview_feature.PreviewResult | None = doc.previews.get(key)
    if result is None:  # the preview's own job and cache: the content is the preview's
        result = await asyncio.shield(ls.preview_job(doc, key, analysis))
    assert result is not None
    entries = features.hardware.source_map_entries(result.line_spans, ls.positions(doc))
    return SourceMapResult(version, result.content, entries)


def statement_count(analysis: ModuleAnalysis) -> int:
    """The IR statements of the document's programs (what the pass explorer prints per stage)."""
    from ptoc.ir.walk import walk_stmts

    return sum(
        len(walk_stmts(fn.body)) for program in analysis.all_programs() for fn in program.functions
    )


async def pass_diff(ls: PtolsServer, params: PassDiffParams) -> PassDiffResult:
    """The pass explorer: the printed IR before and after each pass of the pipeline."""
    doc = open_document(ls, params.text_document.uri, "passDiff")
    pipeline = ls.settings.pipeline if params.pipeline is None else params.pipeline
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return PassDiffResult(doc.version, pipeline or "default", [], [])
    check_function(analysis, params.function, "passDiff")
    version = doc.analysis_version
    if doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:  # as the preview: too costly live
        too_deep = too_deep_diagnostic(doc.analysed_loop_depth)
        return PassDiffResult(version, pipeline or "default", [], [too_deep])
    statements = statement_count(analysis)
    if statements > MAX_LIVE_PASS_DIFF_STATEMENTS:
        too_large = too_large_for_pass_diff(statements)
        return PassDiffResult(version, pipeline or "default", [], [too_large])
    explorer = features.pass_diff
    strict = ls.settings.strict_for(analysis.path)
    edition, specs = ls.settings.front_end_choices(doc.path, analysis.text)
    try:  # in a child process (isolated.py says why)
        programs, diagnostics, chosen = await asyncio.get_running_loop().run_in_executor(
            ls.preview_pool,
            ls.pass_diff_child.call,
            "pass_diff",
            analysis.text,
            analysis.path,
            edition,
            specs,
            params.function,
            pipeline,
            strict,
        )
    except JobFailed as error:  # that child is gone; the next request starts another
        from ptoc.driver import internal_error

        ls.log_error("the pass diff", error)
        programs, chosen = [], pipeline or "default"
        diagnostics = [internal_error(analysis.path, "pass diff", error)]
    positions = ls.positions(doc)
    found = [to_preview_diagnostic(ls, d, doc, positions) for d in diagnostics]
    descriptions = explorer.descriptions()
    payload = [explorer.program_payload(p, descriptions, positions) for p in programs]
    return PassDiffResult(version, chosen, payload, [d for d in found if d is not None])


async def memory_map(ls: PtolsServer, params: MemoryMapParams) -> MemoryMapResult:
    doc = open_document(ls, params.text_document.uri, "memoryMap")
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return MemoryMapResult(doc.version, [], [])
    check_function(analysis, params.function, "memoryMap")
    version = doc.analysis_version
    if doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:  # as the preview: too costly live
        return MemoryMapResult(version, [], [too_deep_diagnostic(doc.analysed_loop_depth)])
    choice = features.specialisations.choose(
        analysis, params.function, params.specialisation, params.specialisation_key
    )
    facts: list[FunctionFacts] = []
    if choice.n is not None and choice.n > 1:  # another specialisation than the analysis's
        facts = await hardware.specialised_facts(ls, doc, analysis, choice.n)
    else:
        job = hardware.facts_job(ls, doc)
        facts = await asyncio.shield(job) if job is not None else []
    positions = ls.positions(doc)
    wanted = [f for f in facts if params.function is None or f.function == params.function]
    reported: list[Diagnostic] = [
        d for f in wanted for d in f.diagnostics if d.code in ("E401", "E402")
    ]
    if analysis.has_errors:
        from ptoc.diagnostics import Severity

        reported = [d for d in analysis.diagnostics if d.severity is Severity.ERROR]
    converted = [to_preview_diagnostic(ls, d, doc, positions) for d in reported]
    functions = features.hardware.memory_map_functions(facts, params.function, positions)
    kept = [d for d in converted if d is not None]
    return MemoryMapResult(version, functions, kept, choice.note or None)


async def timeline(ls: PtolsServer, params: TimelineParams) -> TimelineResult:
    doc = open_document(ls, params.text_document.uri, "timeline")
    analysis = await ls.current_analysis(doc)
    from ptoc.timeline import installed_tables

    tables = installed_tables()
    frequency = tables.frequency_hz if tables is not None else None
    if analysis is None:
        return TimelineResult(doc.version, frequency, [], "the document has not been analysed")
    check_function(analysis, params.function, "timeline")
    version = doc.analysis_version
    if doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:  # as the preview: too costly live
        too_deep = too_deep_diagnostic(doc.analysed_loop_depth).message
        return TimelineResult(version, frequency, [], too_deep)
    if tables is None:
        missing = "no pto-isa cost tables: set PTO_ISA_ROOT to a pto-isa checkout"
        return TimelineResult(version, None, [], missing)
    if analysis.has_errors:
        return TimelineResult(version, frequency, [], "the document has errors")
    job = hardware.facts_job(ls, doc)
    facts: list[FunctionFacts] = await asyncio.shield(job) if job is not None else []
    found = features.timeline.timeline_functions(facts, params.function, ls.positions(doc))
    return TimelineResult(version, frequency, found, "")


async def run(ls: PtolsServer, params: RunParams) -> RunResult:
    doc = open_document(ls, params.text_document.uri, "run")
    analysis = await ls.current_analysis(doc)
    edition = None
    choice = None
    if analysis is not None:
        check_function(analysis, params.function, "run")
        if analysis.edition is not None:  # the copy run outside the project keeps its edition
            edition = analysis.edition.edition.value
        choice = features.specialisations.choose(
            analysis, params.function, params.specialisation, params.specialisation_key
        )
    seed = 0 if params.seed is None else params.seed
    specialise = choice.n if choice is not None else None
    result = await run_in_background(
        ls, doc, params.function, seed, params.work_done_token, edition, specialise
    )
    if choice is not None and choice.note:
        result.note = choice.note
    result.specialisation = specialise
    return result


async def run_in_background(
    ls: PtolsServer,
    doc: Document,
    function: str,
    seed: int,
    token: Any,
    edition: str | None = None,
    specialise: int | None = None,
) -> RunResult:
    """``ptoc run --sim`` on a thread (the child process is waited for there), with progress on
    ``token``; a mismatch becomes the function's E406, a success clears it."""
    run_feature = features.run
    if token is not None:
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(title=f"Running {function} on the simulator"),
        )
    text = doc.text
    try:
        result = await asyncio.get_running_loop().run_in_executor(
            None, run_feature.run_function, text, doc.path, function, seed, edition, specialise
        )
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
    key = hardware.function_key(doc, function)
    changed = False
    if result.mismatch and key is not None and doc.text == text:
        message = run_feature.mismatch_message(result)
        doc.run_verdicts[function] = hardware.RunVerdict(key, message)
        changed = True
    elif result.ok and doc.run_verdicts.pop(function, None) is not None:
        changed = True
    if changed and doc.analysis is not None:
        ls.publish(doc, ls.diagnostics_of(doc, doc.analysis), doc.analysis_version)
    message_result: RunResult = result.message_result()
    return message_result


async def code_lens(ls: PtolsServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    doc = pypto_document(ls, params.text_document.uri)
    if doc is None:
        return None
    # Clients ask once right after opening: wait for the first analysis (bounded).
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return None
    positions = ls.positions(doc)
    lenses: list[types.CodeLens] = features.hardware.code_lenses(analysis, doc.uri, positions)
    if analysis is doc.analysis:  # the cycles once known (a refresh follows when they are)
        incore = {
            lens.command.arguments[-1]: lens.range
            for lens in lenses
            if lens.command is not None and lens.command.arguments
        }
        facts = hardware.known_facts(doc)
        lenses += features.timeline.cycle_lenses(facts, incore, doc.uri)
    lenses += features.task_graph.task_graph_lenses(analysis, doc.uri, positions)
    return lenses


async def task_graph(ls: PtolsServer, params: TaskGraphParams) -> TaskGraphResult:
    doc = open_document(ls, params.text_document.uri, "taskGraph")
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return TaskGraphResult(doc.version, params.function, [], [], "not analysed yet", [])
    positions = ls.positions(doc)
    result: TaskGraphResult = features.task_graph.task_graph_result(
        analysis, params.function, positions, doc.analysis_version
    )
    return result
