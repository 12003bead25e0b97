"""LSP method handlers: thin adapters from requests to the feature modules."""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from . import protocol
from .config import Settings
from .documents import MAX_LIVE_LOOP_DEPTH, loop_depth
from .server import PtolsServer, guarded
from .text import Stale

if TYPE_CHECKING:
    from ptoc.frontend import ModuleAnalysis, Occurrence

    from .convert import Positions
    from .documents import Document
    from .features.preview import PreviewResult


class _Features:
    """The feature modules, imported on first use: they pull in the compiler, which the
    server loads after `initialize` (PtolsServer.warm_up) rather than before answering it."""

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(f"ptols.features.{name}")
        setattr(self, name, module)
        return module


features = _Features()


class Located(NamedTuple):
    doc: Document
    occ: Occurrence
    positions: Positions
    analysis: ModuleAnalysis


COMPLETION_TRIGGERS = [".", "(", ",", "="]
PREVIEW_BUDGET = 0.8  # seconds a preview request may take; longer compilations answer "pending"
MAX_FORMAT_LINE = 20_000  # characters: black's time grows too fast beyond
FORMAT_BUDGET = 0.7
SYMBOLS_BUDGET = 0.7
SIGNATURE_TRIGGERS = ["(", ","]


def register(server: PtolsServer) -> None:  # noqa: C901 - one place that lists every method
    feature = server.feature

    # --- lifecycle ----------------------------------------------------------------------------
    @feature(types.INITIALIZED)
    async def initialized(ls: PtolsServer, params: types.InitializedParams) -> None:
        ls.warm_up()
        await ls.pull_configuration()

    @feature(types.EXIT)
    def on_exit(ls: PtolsServer, params: Any) -> None:
        ls.terminate(ls.exit_code())

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PtolsServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("ptoc"), dict):
            ls.settings = Settings.from_client(settings["ptoc"])
            await ls.refresh_all()
        else:
            await ls.pull_configuration()

    # Document notifications are plain functions: pygls runs them as they arrive, so a request
    # right behind one sees its effect (an `async def` would run later, after that request).
    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded(server, "didOpen")
    def did_open(ls: PtolsServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = ls.store.open(item.uri, item.text, item.version)
        ls.schedule(doc, immediate=True)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded(server, "didChange")
    def did_change(ls: PtolsServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None:
            return
        doc.apply(params.content_changes, params.text_document.version, ls.encoding())
        ls.schedule(doc)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded(server, "didSave")
    def did_save(ls: PtolsServer, params: types.DidSaveTextDocumentParams) -> None:
        doc = ls.store.get(params.text_document.uri)
        if doc is not None and not doc.current:
            ls.schedule(doc, immediate=True)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded(server, "didClose")
    def did_close(ls: PtolsServer, params: types.DidCloseTextDocumentParams) -> None:
        doc = ls.store.close(params.text_document.uri)
        ls.forget(params.text_document.uri)
        if doc is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(doc.uri, []))

    # --- reading the analysis -----------------------------------------------------------------
    def locate(ls: PtolsServer, uri: str, position: types.Position) -> Located | None:
        """The occurrence under the cursor, with the analysis it comes from and the position
        converter from that analysis' text to the current one. An analysis of an older text
        answers only where the text has not changed since (Stale: no answer)."""
        doc = ls.lookup(uri)
        if doc is None or doc.analysis is None:
            return None
        candidates = [(doc.analysis, doc.analysis_text)]
        if doc.last_clean is not None and doc.last_clean is not doc.analysis:
            # While the text does not parse, the last good analysis still answers for intact parts.
            candidates.append((doc.last_clean, doc.last_clean_text))
        for analysis, text in candidates:
            positions = ls.positions(doc, text)
            try:
                occ = features.common.occurrence_at(analysis, *positions.position(position))
                if occ is not None:
                    positions.range(occ.span)  # the occurrence itself must be unchanged
                    return Located(doc, occ, positions, analysis)
            except Stale:
                continue
        return None

    @feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(server, "hover")
    def on_hover(ls: PtolsServer, params: types.HoverParams) -> types.Hover | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        buffers = ls.buffers.get(found.doc.uri)
        after = (
            buffers[1] if buffers is not None and buffers[0] == found.doc.analysis_version else None
        )
        return features.hover.hover(
            found.analysis, found.occ, found.positions.range(found.occ.span), after
        )

    @feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(server, "definition")
    def on_definition(ls: PtolsServer, params: types.DefinitionParams) -> types.Location | None:
        found = locate(ls, params.text_document.uri, params.position)
        return (
            None
            if found is None
            else features.navigation.definition(found.occ, found.doc.uri, found.positions)
        )

    @feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(server, "references")
    def on_references(
        ls: PtolsServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        return features.navigation.references(
            found.analysis,
            found.occ,
            found.doc.uri,
            found.positions,
            params.context.include_declaration,
        )

    @feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded(server, "prepareRename")
    def on_prepare_rename(ls: PtolsServer, params: types.PrepareRenameParams) -> types.Range | None:
        found = locate(ls, params.text_document.uri, params.position)
        return (
            None
            if found is None
            else features.navigation.prepare_rename(found.occ, found.positions)
        )

    @feature(types.TEXT_DOCUMENT_RENAME)
    @guarded(server, "rename")
    def on_rename(ls: PtolsServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        return features.navigation.rename(
            found.analysis, found.occ, found.doc.uri, found.positions, params.new_name
        )

    @feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(server, "documentSymbol")
    async def on_document_symbol(
        ls: PtolsServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(ls.symbols_job(doc)), SYMBOLS_BUDGET)
        except TimeoutError:
            return None  # still parsing: asking again for the same text takes the result

    @feature(types.WORKSPACE_SYMBOL)
    @guarded(server, "workspaceSymbol")
    async def on_workspace_symbol(
        ls: PtolsServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        from pygls.uris import to_fs_path

        loop = asyncio.get_running_loop()
        deadline = loop.time() + SYMBOLS_BUDGET
        open_docs: dict[str, list[types.DocumentSymbol]] = {}
        for d in ls.store:
            if not d.is_pypto:
                continue
            try:
                found = await asyncio.wait_for(
                    asyncio.shield(ls.symbols_job(d)), max(deadline - loop.time(), 0.01)
                )
            except TimeoutError:
                continue
            open_docs[d.uri] = found or []
        folders = [
            path for folder in ls.workspace.folders.values() if (path := to_fs_path(folder.uri))
        ]
        scan = loop.run_in_executor(
            ls.syntax_pool, features.symbols.workspace_symbols, params.query, open_docs, folders
        )
        try:
            return await asyncio.wait_for(scan, max(deadline - loop.time(), 0.2))
        except TimeoutError:
            return features.symbols.workspace_symbols(params.query, open_docs, [])

    @feature(types.COMPLETION_ITEM_RESOLVE)
    @guarded(server, "completionItem/resolve")
    def on_completion_resolve(ls: PtolsServer, item: types.CompletionItem) -> types.CompletionItem:
        return features.completion.resolve(item)

    @feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=COMPLETION_TRIGGERS, resolve_provider=True),
    )
    @guarded(server, "completion")
    def on_completion(
        ls: PtolsServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        line, column, offset = cursor(ls, doc, params.position)
        return features.completion.complete(doc.text, offset, line, column, doc.analysis)

    @feature(
        types.TEXT_DOCUMENT_SIGNATURE_HELP,
        types.SignatureHelpOptions(trigger_characters=SIGNATURE_TRIGGERS),
    )
    @guarded(server, "signatureHelp")
    def on_signature_help(
        ls: PtolsServer, params: types.SignatureHelpParams
    ) -> types.SignatureHelp | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        _, _, offset = cursor(ls, doc, params.position)
        return features.signature_help.signature_help(doc.text, offset, doc.analysis)

    @feature(types.TEXT_DOCUMENT_INLAY_HINT)
    @guarded(server, "inlayHint")
    def on_inlay_hint(
        ls: PtolsServer, params: types.InlayHintParams
    ) -> list[types.InlayHint] | None:
        doc = ls.lookup(params.text_document.uri)
        if doc is None or doc.analysis is None or not ls.settings.inlay_hints:
            return None
        positions = ls.positions(doc)
        first, last = 1, positions.analysed.line_count
        if positions.shift is None:  # else: all lines, each hint mapped (or dropped) alone
            first, last = params.range.start.line + 1, params.range.end.line + 1
        return features.inlay_hints.inlay_hints(
            doc.analysis, text_lines(doc.analysis_text), positions, first, last
        )

    @feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]
        ),
    )
    @guarded(server, "codeAction")
    def on_code_action(
        ls: PtolsServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        doc = ls.lookup(params.text_document.uri)
        if doc is None or doc.analysis is None:
            return None
        actions = features.code_actions.quick_fixes(doc.uri, list(params.context.diagnostics))
        positions = ls.positions(doc)
        try:
            line, first = positions.position(params.range.start)
            _, last = positions.position(params.range.end)
            actions += features.code_actions.annotation_actions(
                doc.uri, doc.analysis, text_lines(doc.analysis_text), positions, line, first, last
            )
        except Stale:
            pass  # the text there changed since the analysis: only the diagnostics' fixes
        return actions

    @feature(types.TEXT_DOCUMENT_FORMATTING)
    @guarded(server, "formatting")
    async def on_formatting(
        ls: PtolsServer, params: types.DocumentFormattingParams
    ) -> list[types.TextEdit] | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        longest = longest_line(doc)
        if doc.too_large or longest > MAX_FORMAT_LINE:
            reason = (
                "the file is too large"
                if doc.too_large
                else f"a line has {longest:,} characters (limit {MAX_FORMAT_LINE:,})"
            )
            ls.window_show_message(
                types.ShowMessageParams(
                    types.MessageType.Warning,
                    f"ptoc fmt is not run in the editor: {reason}; run `ptoc fmt` on it",
                )
            )
            return None
        job = ls.format_job(doc)
        try:
            edits, problem = await asyncio.wait_for(asyncio.shield(job), FORMAT_BUDGET)
        except TimeoutError:
            ls.window_show_message(
                types.ShowMessageParams(
                    types.MessageType.Info,
                    "ptoc fmt is still formatting this file: format again in a moment",
                )
            )
            return None
        if problem:
            ls.window_show_message(
                types.ShowMessageParams(
                    types.MessageType.Warning, f"ptoc fmt left the file unchanged: {problem}"
                )
            )
        return list(edits)

    # --- custom requests ----------------------------------------------------------------------
    @feature(protocol.PREVIEW)
    @guarded(server, "preview")
    async def on_preview(ls: PtolsServer, params: Any) -> dict[str, Any]:
        uri = protocol.field(params, "textDocument", "uri")
        target = str(protocol.field(params, "target", default=ls.settings.default_target))
        function = protocol.field(params, "function")
        requested = protocol.field(params, "pipeline", default=ls.settings.pipeline)
        pipeline = None if requested is None else str(requested)  # None: the target's default
        if not isinstance(uri, str) or not isinstance(function, (str, type(None))):
            raise JsonRpcInvalidParams(
                "ptols/preview needs textDocument.uri (and a function name or none)"
            )
        doc = ls.store.get(uri)
        if doc is None:
            raise ValueError(f"document not open: {uri}")
        from ptoc.driver import target_language

        language = target_language(target)
        started = asyncio.get_running_loop().time()
        analysis = await ls.current_analysis(doc, PREVIEW_BUDGET / 2)
        if analysis is None:
            return {"language": language, "content": "", "version": doc.version, "diagnostics": []}
        problem = features.preview.request_problem(
            analysis, target, None if function is None else str(function)
        )
        if problem is not None:
            raise JsonRpcInvalidParams(f"ptols: preview: {problem}")
        version = doc.analysis_version
        depth = loop_depth(doc.analysis_text)
        if depth > MAX_LIVE_LOOP_DEPTH:
            limit = too_deep_diagnostic(doc, depth)
            return {"language": language, "content": "", "version": version, "diagnostics": [limit]}
        strict = ls.settings.strict_for(analysis.path)
        key = (version, target, function, pipeline, strict)
        result: PreviewResult | None = doc.previews.get(key)
        if result is None:
            job = ls.preview_job(doc, key, analysis)
            left = PREVIEW_BUDGET - (asyncio.get_running_loop().time() - started)
            try:
                result = await asyncio.wait_for(asyncio.shield(job), max(left, 0.05))
            except TimeoutError:
                # still compiling: answer now; ptols/previewChanged follows when it is done
                def changed(finished: asyncio.Future[Any]) -> None:
                    if not finished.cancelled() and finished.exception() is None:
                        ls.notify(protocol.PREVIEW_CHANGED, {"uri": doc.uri, "version": version})

                job.add_done_callback(changed)
                return {
                    "language": language,
                    "content": "",
                    "version": version,
                    "diagnostics": [],
                    "pending": True,
                }
        assert result is not None
        positions = ls.positions(doc)
        diagnostics = []
        for d in result.diagnostics:
            converted = to_lsp(ls, d, doc, positions)
            if converted is not None:
                diagnostics.append(converted)
        return {
            "language": result.language,
            "content": result.content,
            "version": version,
            "diagnostics": diagnostics,
        }

    @feature(protocol.FUNCTIONS)
    @guarded(server, "functions")
    async def on_functions(ls: PtolsServer, params: Any) -> dict[str, Any]:
        uri = protocol.field(params, "textDocument", "uri")
        doc = ls.store.get(uri) if uri else None
        if doc is None or not doc.is_pypto:
            return {"functions": []}
        analysis = await ls.current_analysis(doc)
        if analysis is None:
            return {"functions": []}
        from .convert import range_json

        positions = ls.positions(doc)
        found = []
        for f in analysis.function_infos:
            try:
                found.append(
                    {
                        "name": f.name,
                        "program": f.program,
                        "range": range_json(positions.range(f.span)),
                    }
                )
            except Stale:
                continue  # changed since the analysis
        return {"functions": found}

    @feature(protocol.TEXT_DIGEST)
    @guarded(server, "textDigest")
    def on_text_digest(ls: PtolsServer, params: Any) -> dict[str, Any] | None:
        doc = ls.store.get(str(protocol.field(params, "textDocument", "uri", default="")))
        if doc is None:
            return None
        import hashlib

        data = doc.text.encode("utf-8", "surrogatepass")
        length = len(doc.text.encode("utf-16-le", "surrogatepass")) // 2
        return {
            "version": doc.version,
            "length": length,
            "sha256": hashlib.sha256(data).hexdigest(),
        }

    @feature(protocol.PASSES)
    @guarded(server, "passes")
    def on_passes(ls: PtolsServer, params: Any) -> dict[str, Any]:
        from ptoc.driver import PIPELINES, pass_descriptions

        return {
            "passes": [{"name": name, "description": text} for name, text in pass_descriptions()],
            "pipelines": {name: list(names) for name, names in PIPELINES.items()},
        }


def cursor(ls: PtolsServer, doc: Any, position: types.Position) -> tuple[int, int, int]:
    """(1-based line, code-point column, offset into the current text) of an LSP position."""
    positions = ls.positions(doc, doc.text)
    offset = positions.offset(position)
    row, column = positions.current.row_column(offset)
    return row + 1, column, offset


def too_deep_diagnostic(doc: Any, depth: int) -> dict[str, Any]:
    return {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "severity": int(types.DiagnosticSeverity.Warning),
        "code": "W900",
        "message": (
            f"loops nest {depth} deep: live previews stop at {MAX_LIVE_LOOP_DEPTH}"
            " (`ptoc compile` still compiles it)"
        ),
    }


def longest_line(doc: Any) -> int:
    starts = doc.index.starts
    ends = [*starts[1:], len(doc.text)]
    return max(end - start for start, end in zip(starts, ends, strict=True))


def text_lines(text: str) -> list[str]:
    """The lines of a text without their breaks (LSP's line breaks only)."""
    from ptoc.lines import split_lines

    return [line.rstrip("\r\n") for line in split_lines(text)]


def to_lsp(ls: PtolsServer, diagnostic: Any, doc: Any, positions: Any) -> dict[str, Any] | None:
    from .convert import range_json, to_lsp_diagnostic

    overrides = ls.settings.overrides_for(doc.path, {diagnostic.code})
    try:
        converted = to_lsp_diagnostic(diagnostic, doc.uri, positions, overrides)
    except Stale:
        return None  # its text changed since the analysis
    if converted is None:
        return None
    return {
        "range": range_json(converted.range),
        "severity": int(converted.severity) if converted.severity is not None else 1,
        "code": converted.code,
        "message": converted.message,
    }
