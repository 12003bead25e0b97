"""Pull diagnostics (`textDocument/diagnostic`, `workspace/diagnostic`) beside the push.

A report's result id names what it was computed from: for an open document its version and
its diagnostics, for a file on disk its modification time, size, the settings and the
generation of the project configuration. A client that sends back the id it holds gets
"unchanged" for a file on disk after one `stat`, without reading or analysing it."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from lsprotocol import types
from pygls.uris import from_fs_path

from ..config import Settings
from ..convert import Positions, to_lsp_diagnostic
from ..text import LineIndex

MAX_FILES = 5000  # Python files looked at per workspace folder (as workspace symbols)
WALK_AGE = 10.0  # seconds a walk of the folders is reused (VS Code pulls every 2 s)


def digest(*parts: object) -> str:
    return hashlib.sha1(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class DiskReport:
    result_id: str
    items: list[types.Diagnostic] | None  # None: not a PyPTO file


class DiskDiagnostics:
    """The diagnostics of files on disk, one report per file kept while its key holds; the
    analyses run on a thread of their own (never the analysis thread of open documents)."""

    def __init__(self) -> None:
        self.reports: dict[str, tuple[str, DiskReport]] = {}
        self.generation = 0  # bumped when a project's [tool.ptoc] changes
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-workspace")
        self.lock = threading.Lock()
        self.walked: tuple[float, list[str], list[str]] | None = None  # (when, folders, files)

    def files(self, folders: list[str]) -> list[str]:
        """The Python files below ``folders``, from a walk at most WALK_AGE seconds old (a
        client that pulls every 2 s costs one `stat` per file, not a directory walk)."""
        now = time.monotonic()
        walked = self.walked
        if walked is None or walked[1] != folders or now - walked[0] > WALK_AGE:
            walked = self.walked = (now, list(folders), list(python_files(folders)))
        return walked[2]

    def result_id(self, path: str, settings: Settings, encoding: str) -> str | None:
        """The id a report of ``path`` would carry now (None: the file is gone)."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        return digest(stat.st_mtime_ns, stat.st_size, self.generation, repr(settings), encoding)

    def report(self, path: str, settings: Settings, encoding: str) -> DiskReport | None:
        result_id = self.result_id(path, settings, encoding)
        if result_id is None:
            return None
        with self.lock:
            known = self.reports.get(path)
        if known is not None and known[0] == result_id:
            return known[1]
        report = DiskReport(result_id, analyse_file(path, settings, encoding))
        with self.lock:
            self.reports[path] = (result_id, report)
        return report

    def workspace(
        self,
        folders: list[str],
        skip: set[str],
        previous: dict[str, str],
        settings: Settings,
        encoding: str,
    ) -> list[types.WorkspaceDocumentDiagnosticReport]:
        """Reports of every PyPTO file below ``folders`` except ``skip`` (open documents'
        paths): "unchanged" where ``previous`` (uri -> result id) still holds."""
        found: list[types.WorkspaceDocumentDiagnosticReport] = []
        for path in self.files(folders):
            uri = from_fs_path(path)
            if path in skip or uri is None:
                continue
            result_id = self.result_id(path, settings, encoding)
            if result_id is not None and previous.get(uri) == result_id:
                found.append(
                    types.WorkspaceUnchangedDocumentDiagnosticReport(
                        uri=uri, result_id=result_id, version=None
                    )
                )
                continue
            report = self.report(path, settings, encoding)
            if report is not None and report.items is not None:
                found.append(
                    types.WorkspaceFullDocumentDiagnosticReport(
                        uri=uri, items=report.items, version=None, result_id=report.result_id
                    )
                )
        return found


def python_files(folders: list[str]) -> Iterator[str]:
    from ptoc.driver import walk_python_files

    seen: set[str] = set()
    for folder in folders:
        for count, path in enumerate(walk_python_files(folder)):
            if count >= MAX_FILES:
                break
            if path not in seen:
                seen.add(path)
                yield path


def analyse_file(path: str, settings: Settings, encoding: str) -> list[types.Diagnostic] | None:
    """What `ptoc check` says about the file, as LSP diagnostics (None: not a PyPTO file)."""
    from ptoc.driver import SourceError, analyze, backend_diagnostics, read_source
    from ptoc.filekind import is_pypto_source

    try:
        text = read_source(path)
    except SourceError:
        return None
    if not is_pypto_source(text):
        return None
    analysis = analyze(text, path)
    found = [*analysis.diagnostics, *backend_diagnostics(analysis)]
    overrides = settings.overrides_for(path, {d.code for d in found})
    uri = from_fs_path(path) or path
    positions = Positions(LineIndex(text), encoding)
    items = [to_lsp_diagnostic(d, uri, positions, overrides) for d in found]
    return [item for item in items if item is not None]
