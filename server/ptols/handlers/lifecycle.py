"""Session and document lifecycle: initialized, exit, configuration, open / change / save /
close.

Document notifications are plain functions: pygls runs them as they arrive, so a request right
behind one sees its effect (an `async def` would run later, after that request).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..config import Settings

if TYPE_CHECKING:
    from ..server import PtolsServer


async def initialized(ls: PtolsServer, params: types.InitializedParams) -> None:
    ls.warm_up()
    from .diagnostics import watch_project_files

    watch_project_files(ls)
    await ls.pull_configuration()


def exit_session(ls: PtolsServer, params: Any) -> None:
    ls.terminate(ls.exit_code())


async def did_change_configuration(
    ls: PtolsServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get("ptoc"), dict):
        ls.settings = Settings.from_client(settings["ptoc"])
        await ls.refresh_all()
    else:
        await ls.pull_configuration()


def did_open(ls: PtolsServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    doc = ls.store.open(item.uri, item.text, item.version)
    ls.schedule(doc, immediate=True)


def did_change(ls: PtolsServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.store.get(params.text_document.uri)
    if doc is None:
        return
    doc.apply(params.content_changes, params.text_document.version, ls.encoding())
    ls.schedule(doc)
    if doc.analysis is not None:  # editing PyPTO keeps the formatting child (isolated.py)
        ls.format_child.touch()


def did_save(ls: PtolsServer, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.store.get(params.text_document.uri)
    if doc is not None and not doc.current:
        ls.schedule(doc, immediate=True)


def did_close(ls: PtolsServer, params: types.DidCloseTextDocumentParams) -> None:
    doc = ls.store.close(params.text_document.uri)  # its background work is cancelled
    if doc is not None:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(doc.uri, []))
