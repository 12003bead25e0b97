"""The custom requests of docs/lsp-extensions.md, answered with the classes of ptols.protocol."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from .. import protocol
from ..documents import MAX_LIVE_LOOP_DEPTH, MAX_LIVE_PASS_DIFF_STATEMENTS
from ..protocol import (
    FunctionEntry,
    FunctionsParams,
    FunctionsResult,
    InstructionEntry,
    InstructionOperand,
    InstructionParams,
    InstructionResult,
    PassEntry,
    PassesResult,
    PreviewDiagnostic,
    PreviewParams,
    PreviewResult,
    TextDigestParams,
    TextDigestResult,
)
from ..text import Stale
from .common import features, open_document

if TYPE_CHECKING:
    from ptoc.diagnostics import Diagnostic
    from ptoc.frontend import ModuleAnalysis

    from ..convert import Positions
    from ..documents import Document
    from ..features import preview as preview_feature
    from ..server import PtolsServer

PREVIEW_BUDGET = 0.8  # seconds a preview request may take; longer compilations answer "pending"


async def preview(ls: PtolsServer, params: PreviewParams) -> PreviewResult:
    target = ls.settings.default_target if params.target is None else params.target
    # None: the target's default pipeline
    pipeline = ls.settings.pipeline if params.pipeline is None else params.pipeline
    doc = open_document(ls, params.text_document.uri, "preview")
    from ptoc.driver import target_language

    language = target_language(target)
    started = asyncio.get_running_loop().time()
    analysis = await ls.current_analysis(doc, PREVIEW_BUDGET / 2)
    if analysis is None:
        return PreviewResult(language, "", doc.version, [])
    problem = features.preview.request_problem(analysis, target, params.function)
    if problem is not None:
        raise JsonRpcInvalidParams(f"ptols: preview: {problem}")
    version = doc.analysis_version
    depth = doc.analysed_loop_depth
    if depth > MAX_LIVE_LOOP_DEPTH:
        return PreviewResult(language, "", version, [too_deep_diagnostic(depth)])
    strict = ls.settings.strict_for(analysis.path)
    choice = features.specialisations.choose(
        analysis, params.function, params.specialisation, params.specialisation_key
    )
    note = choice.note or None
    key = (version, target, params.function, pipeline, strict, choice.n)
    result = doc.previews.get(key)
    if result is None:
        left = PREVIEW_BUDGET - (asyncio.get_running_loop().time() - started)
        result = await compiled_within(ls, doc, key, analysis, left)
        if result is None:
            return PreviewResult(language, "", version, [], pending=True, note=note)
    positions = ls.positions(doc)
    found = [to_preview_diagnostic(ls, d, doc, positions) for d in result.diagnostics]
    kept = [d for d in found if d]
    return PreviewResult(result.language, result.content, version, kept, note=note)


async def compiled_within(
    ls: PtolsServer,
    doc: Document,
    key: tuple[Any, ...],
    analysis: ModuleAnalysis,
    budget: float,
) -> preview_feature.PreviewResult | None:
    """The preview's compilation if it ends within ``budget`` seconds; else None, and
    ptols/previewChanged is sent when it is done."""
    job = ls.preview_job(doc, key, analysis)
    try:
        result: preview_feature.PreviewResult = await asyncio.wait_for(
            asyncio.shield(job), max(budget, 0.05)
        )
        return result
    except TimeoutError:

        def changed(finished: asyncio.Future[Any]) -> None:
            if not finished.cancelled() and finished.exception() is None:
                ls.notify(protocol.PREVIEW_CHANGED, protocol.PreviewChangedParams(doc.uri, key[0]))

        job.add_done_callback(changed)
        return None


async def functions(ls: PtolsServer, params: FunctionsParams) -> FunctionsResult:
    doc = ls.store.get(params.text_document.uri)
    if doc is None or not doc.is_pypto:
        return FunctionsResult([])
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return FunctionsResult([])
    positions = ls.positions(doc)
    found = []
    for f in analysis.function_infos:
        try:
            found.append(FunctionEntry(f.name, f.program, positions.range(f.span)))
        except Stale:
            continue  # changed since the analysis
    return FunctionsResult(found)


def text_digest(ls: PtolsServer, params: TextDigestParams) -> TextDigestResult | None:
    doc = ls.store.get(params.text_document.uri)
    if doc is None:
        return None
    import hashlib

    data = doc.text.encode("utf-8", "surrogatepass")
    length = len(doc.text.encode("utf-16-le", "surrogatepass")) // 2
    return TextDigestResult(doc.version, length, hashlib.sha256(data).hexdigest())


def passes(ls: PtolsServer, params: Any) -> PassesResult:
    from ptoc.driver import PIPELINES, pass_descriptions

    return PassesResult(
        [PassEntry(name, text) for name, text in pass_descriptions()],
        {name: list(names) for name, names in PIPELINES.items()},
    )


def instruction(ls: PtolsServer, params: InstructionParams) -> InstructionResult:
    """What an instruction of a preview means: the ops it lowers, from the op registry."""
    from ptoc.instructions import lookup

    return InstructionResult(
        [
            InstructionEntry(
                instruction=info.instruction,
                target=info.target,
                op=info.op,
                form=info.form,
                description=info.description,
                pipe=info.pipe,
                operands=[InstructionOperand(o.name, o.traits) for o in info.operands],
                attributes=list(info.attributes),
                note=info.note,
            )
            for info in lookup(params.name, params.target)
        ]
    )


def _live_limit(message: str) -> PreviewDiagnostic:
    """W900 at the top of the file: a live request stops where the CLI still goes on."""
    origin = types.Position(0, 0)
    return PreviewDiagnostic(
        range=types.Range(origin, origin),
        severity=int(types.DiagnosticSeverity.Warning),
        code="W900",
        message=message,
    )


def too_deep_diagnostic(depth: int) -> PreviewDiagnostic:
    return _live_limit(
        f"loops nest {depth} deep: live previews stop at {MAX_LIVE_LOOP_DEPTH}"
        " (`ptoc compile` still compiles it)"
    )


def too_large_for_pass_diff(statements: int) -> PreviewDiagnostic:
    return _live_limit(
        f"the programs have {statements:,} statements: the live pass diff stops at "
        f"{MAX_LIVE_PASS_DIFF_STATEMENTS:,} (`ptoc compile --target ir --pass-diff` still "
        "shows it)"
    )


def to_preview_diagnostic(
    ls: PtolsServer, diagnostic: Diagnostic, doc: Document, positions: Positions
) -> PreviewDiagnostic | None:
    from ..convert import to_lsp_diagnostic

    overrides = ls.settings.overrides_for(doc.path, {diagnostic.code})
    try:
        converted = to_lsp_diagnostic(diagnostic, doc.uri, positions, overrides)
    except Stale:
        return None  # its text changed since the analysis
    if converted is None:
        return None
    severity = int(converted.severity) if converted.severity is not None else 1
    return PreviewDiagnostic(converted.range, severity, str(converted.code), converted.message)
