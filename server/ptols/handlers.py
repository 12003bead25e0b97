"""LSP method handlers: thin adapters from requests to the feature modules."""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from . import protocol
from .config import Settings
from .server import PtolsServer, guarded

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
SIGNATURE_TRIGGERS = ["(", ","]


def register(server: PtolsServer) -> None:  # noqa: C901 - one place that lists every method
    feature = server.feature

    # --- lifecycle ----------------------------------------------------------------------------
    @feature(types.INITIALIZED)
    async def initialized(ls: PtolsServer, params: types.InitializedParams) -> None:
        ls.warm_up()
        await ls.pull_configuration()

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: PtolsServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("ptoc"), dict):
            ls.settings = Settings.from_client(settings["ptoc"])
            await ls.refresh_all()
        else:
            await ls.pull_configuration()

    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded(server, "didOpen")
    async def did_open(ls: PtolsServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = ls.store.open(item.uri, item.text, item.version)
        ls.schedule(doc, immediate=True)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded(server, "didChange")
    async def did_change(ls: PtolsServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None:
            return
        text = ls.workspace.get_text_document(params.text_document.uri).source
        doc.change(text, params.text_document.version)
        ls.schedule(doc)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded(server, "didSave")
    async def did_save(ls: PtolsServer, params: types.DidSaveTextDocumentParams) -> None:
        doc = ls.store.get(params.text_document.uri)
        if doc is not None and not doc.current:
            ls.schedule(doc, immediate=True)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded(server, "didClose")
    async def did_close(ls: PtolsServer, params: types.DidCloseTextDocumentParams) -> None:
        doc = ls.store.close(params.text_document.uri)
        ls.forget(params.text_document.uri)
        if doc is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(doc.uri, [], None))

    # --- reading the analysis -----------------------------------------------------------------
    def locate(ls: PtolsServer, uri: str, position: types.Position) -> Located | None:
        """The occurrence under the cursor, with the analysis it comes from and the position
        converter for that analysis' text."""
        doc = ls.lookup(uri)
        if doc is None or doc.analysis is None:
            return None
        positions = ls.positions(doc)
        occ = features.common.occurrence_at(doc.analysis, *positions.position(position))
        if occ is not None:
            return Located(doc, occ, positions, doc.analysis)
        clean = doc.last_clean
        if clean is not None and clean is not doc.analysis:
            # While the text does not parse, the last good analysis still answers for intact parts.
            clean_positions = ls.positions(doc, doc.last_clean_text)
            occ = features.common.occurrence_at(clean, *clean_positions.position(position))
            if occ is not None:
                return Located(doc, occ, clean_positions, clean)
        return None

    @feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(server, "hover")
    def on_hover(ls: PtolsServer, params: types.HoverParams) -> types.Hover | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        buffers = ls.buffers.get(found.doc.uri)
        after = buffers[1] if buffers is not None and buffers[0] == found.doc.analysis_version else None
        return features.hover.hover(found.analysis, found.occ, found.positions.range(found.occ.span), after)

    @feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(server, "definition")
    def on_definition(ls: PtolsServer, params: types.DefinitionParams) -> types.Location | None:
        found = locate(ls, params.text_document.uri, params.position)
        return None if found is None else features.navigation.definition(found.occ, found.doc.uri, found.positions)

    @feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(server, "references")
    def on_references(ls: PtolsServer, params: types.ReferenceParams) -> list[types.Location] | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        return features.navigation.references(
            found.analysis, found.occ, found.doc.uri, found.positions, params.context.include_declaration
        )

    @feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded(server, "prepareRename")
    def on_prepare_rename(ls: PtolsServer, params: types.PrepareRenameParams) -> types.Range | None:
        found = locate(ls, params.text_document.uri, params.position)
        return None if found is None else features.navigation.prepare_rename(found.occ, found.positions)

    @feature(types.TEXT_DOCUMENT_RENAME)
    @guarded(server, "rename")
    def on_rename(ls: PtolsServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        found = locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        return features.navigation.rename(found.analysis, found.occ, found.doc.uri, found.positions, params.new_name)

    @feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(server, "documentSymbol")
    def on_document_symbol(ls: PtolsServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        return features.symbols.document_symbols(doc.syntax, ls.positions(doc, doc.text))

    @feature(types.WORKSPACE_SYMBOL)
    @guarded(server, "workspaceSymbol")
    def on_workspace_symbol(ls: PtolsServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        open_docs = {d.uri: (d.syntax, ls.positions(d, d.text)) for d in ls.store if d.is_pypto}
        folders = []
        for folder in ls.workspace.folders.values():
            from pygls.uris import to_fs_path

            path = to_fs_path(folder.uri)
            if path:
                folders.append(path)
        return features.symbols.workspace_symbols(params.query, open_docs, folders)

    @feature(types.COMPLETION_ITEM_RESOLVE)
    @guarded(server, "completionItem/resolve")
    def on_completion_resolve(ls: PtolsServer, item: types.CompletionItem) -> types.CompletionItem:
        return features.completion.resolve(item)

    @feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=COMPLETION_TRIGGERS, resolve_provider=True),
    )
    @guarded(server, "completion")
    def on_completion(ls: PtolsServer, params: types.CompletionParams) -> types.CompletionList | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        line, column, offset = cursor(ls, doc, params.position)
        return features.completion.complete(doc.text, offset, line, column, doc.analysis)

    @feature(types.TEXT_DOCUMENT_SIGNATURE_HELP, types.SignatureHelpOptions(trigger_characters=SIGNATURE_TRIGGERS))
    @guarded(server, "signatureHelp")
    def on_signature_help(ls: PtolsServer, params: types.SignatureHelpParams) -> types.SignatureHelp | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        _, _, offset = cursor(ls, doc, params.position)
        return features.signature_help.signature_help(doc.text, offset, doc.analysis)

    @feature(types.TEXT_DOCUMENT_INLAY_HINT)
    @guarded(server, "inlayHint")
    def on_inlay_hint(ls: PtolsServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        doc = ls.lookup(params.text_document.uri)
        if doc is None or doc.analysis is None or not ls.settings.inlay_hints:
            return None
        return features.inlay_hints.inlay_hints(
            doc.analysis,
            doc.analysis_text.splitlines(),
            ls.positions(doc),
            params.range.start.line + 1,
            params.range.end.line + 1,
        )

    @feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]),
    )
    @guarded(server, "codeAction")
    def on_code_action(ls: PtolsServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        doc = ls.lookup(params.text_document.uri)
        if doc is None or doc.analysis is None:
            return None
        actions = features.code_actions.quick_fixes(doc.uri, list(params.context.diagnostics))
        positions = ls.positions(doc)
        line, first = positions.position(params.range.start)
        _, last = positions.position(params.range.end)
        actions += features.code_actions.annotation_actions(doc.uri, doc.analysis, doc.analysis_text.splitlines(), positions, line, first, last)
        return actions

    @feature(types.TEXT_DOCUMENT_FORMATTING)
    @guarded(server, "formatting")
    def on_formatting(ls: PtolsServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        doc = ls.store.get(params.text_document.uri)
        if doc is None or not doc.is_pypto:
            return None
        edits, problem = features.formatting.format_document(doc.text, doc.path, ls.settings.line_length)
        if problem:
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"ptoc fmt left the file unchanged: {problem}"))
        return edits

    # --- custom requests ----------------------------------------------------------------------
    @feature(protocol.PREVIEW)
    @guarded(server, "preview")
    async def on_preview(ls: PtolsServer, params: Any) -> dict[str, Any]:
        uri = protocol.field(params, "textDocument", "uri")
        target = str(protocol.field(params, "target", default=ls.settings.default_target))
        function = protocol.field(params, "function")
        requested = protocol.field(params, "pipeline", default=ls.settings.pipeline)
        pipeline = None if requested is None else str(requested)  # None: the target's default
        doc = ls.store.get(uri) if uri else None
        if doc is None:
            raise ValueError(f"document not open: {uri}")
        analysis = await ls.current_analysis(doc)
        if analysis is None:
            from ptoc.driver import target_language

            return {"language": target_language(target), "content": "", "version": doc.version, "diagnostics": []}
        problem = features.preview.request_problem(analysis, target, None if function is None else str(function))
        if problem is not None:
            raise JsonRpcInvalidParams(f"ptols: preview: {problem}")
        version = doc.analysis_version
        strict = ls.settings.strict_for(analysis.path)
        key = (version, target, function, pipeline, strict)
        result: PreviewResult | None = doc.previews.get(key)
        if result is None:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(ls.compile_pool, features.preview.compile_preview, analysis, target, function, pipeline, strict)
            assert result is not None
            if doc.analysis_version == version:
                doc.previews[key] = result
        positions = ls.positions(doc, doc.analysis_text)
        diagnostics = []
        for d in result.diagnostics:
            converted = to_lsp(ls, d, doc, positions)
            if converted is not None:
                diagnostics.append(converted)
        return {"language": result.language, "content": result.content, "version": version, "diagnostics": diagnostics}

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
        return {
            "functions": [
                {"name": f.name, "program": f.program, "range": range_json(positions.range(f.span))}
                for f in analysis.function_infos
            ]
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
    line, column = positions.position(position)
    offset = sum(len(item) for item in positions.lines[: line - 1]) + column
    return line, column, offset


def to_lsp(ls: PtolsServer, diagnostic: Any, doc: Any, positions: Any) -> dict[str, Any] | None:
    from .convert import range_json, to_lsp_diagnostic

    overrides = ls.settings.overrides_for(doc.path, {diagnostic.code})
    converted = to_lsp_diagnostic(diagnostic, doc.uri, positions, overrides)
    if converted is None:
        return None
    return {
        "range": range_json(converted.range),
        "severity": int(converted.severity) if converted.severity is not None else 1,
        "code": converted.code,
        "message": converted.message,
    }

