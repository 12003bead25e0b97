"""Pull diagnostics beside the push, and the project configuration's file watch: when a
pyproject.toml changes, the documents below it are analysed again and pull clients told to
ask again."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from .. import capabilities
from .common import features

if TYPE_CHECKING:
    from ..documents import Document
    from ..features.pull_diagnostics import DiskDiagnostics
    from ..server import PtolsServer

log = logging.getLogger("ptols")
DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(**capabilities.DIAGNOSTIC_OPTIONS)
WATCH_ID = "ptols-pyproject"
PROJECT_FILE = "pyproject.toml"


def disk(ls: PtolsServer) -> DiskDiagnostics:
    if ls.disk_diagnostics is None:
        ls.disk_diagnostics = features.pull_diagnostics.DiskDiagnostics()
    return ls.disk_diagnostics  # type: ignore[no-any-return]


def open_items(ls: PtolsServer, doc: Document) -> list[types.Diagnostic]:
    """What the push publishes for the document's latest analysis."""
    from ..server import too_large_diagnostic

    if doc.too_large:
        return [too_large_diagnostic(doc)]
    if not doc.is_pypto or doc.analysis is None:
        return []
    return ls.diagnostics_of(doc, doc.analysis)


async def document_diagnostic(
    ls: PtolsServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None:  # not open: the file on disk
        path = to_fs_path(uri) or uri
        loop = asyncio.get_running_loop()
        found = disk(ls)
        report = await loop.run_in_executor(
            found.pool, found.report, path, ls.settings, ls.encoding()
        )
        if report is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if report.result_id == params.previous_result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=report.result_id)
        items = report.items or []
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=report.result_id)
    await ls.current_analysis(doc)
    items = open_items(ls, doc)
    result_id = features.pull_diagnostics.digest(doc.analysis_version, repr(items))
    if result_id == params.previous_result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


async def workspace_diagnostic(
    ls: PtolsServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """Every PyPTO file of the workspace folders that is not open (open documents have their
    own pull and the push, which carry their versions)."""
    folders = [path for folder in ls.workspace.folders.values() if (path := to_fs_path(folder.uri))]
    skip = {os.path.normpath(doc.path) for doc in ls.store}
    previous = {item.uri: item.value for item in params.previous_result_ids}
    found = disk(ls)
    items = await asyncio.get_running_loop().run_in_executor(
        found.pool, found.workspace, folders, skip, previous, ls.settings, ls.encoding()
    )
    return types.WorkspaceDiagnosticReport(items=items)


def watch_project_files(ls: PtolsServer) -> None:
    """Ask the client to report changes of pyproject.toml files (when it can register a
    watcher dynamically). Not waited for: a client that never answers delays nothing."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=f"**/{PROJECT_FILE}")]
    )
    registration = types.Registration(
        id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        ls.client_register_capability(types.RegistrationParams([registration]))
    except Exception as error:
        log.info("registering the pyproject.toml watch failed: %s", error)


def did_change_watched_files(ls: PtolsServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A project's [tool.ptoc] may have changed: analyse again the open documents below it
    (their severities and checks read it), and let pull clients ask again."""
    roots = [
        os.path.dirname(to_fs_path(change.uri) or change.uri)
        for change in params.changes
        if change.uri.endswith(PROJECT_FILE)
    ]
    if not roots:
        return
    disk(ls).generation += 1
    for doc in ls.store:
        if any(is_below(doc.path, root) for root in roots):
            ls.schedule(doc, immediate=True)
    refresh(ls)


def is_below(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == (
            os.path.abspath(root)
        )
    except ValueError:
        return False


def refresh(ls: PtolsServer) -> None:
    """Ask a client that pulls diagnostics to pull again."""
    workspace: Any = ls.client_capabilities.workspace
    diagnostics = workspace.diagnostics if workspace is not None else None
    if diagnostics is not None and diagnostics.refresh_support:
        try:
            ls.workspace_diagnostic_refresh(None)
        except Exception as error:
            log.debug("workspace/diagnostic/refresh failed: %s", error)
