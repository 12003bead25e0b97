"""Pull diagnostics beside the push (`textDocument/diagnostic`, `workspace/diagnostic`, result
ids that make unchanged files cost nothing) and the pyproject.toml watch that re-analyses the
documents below a changed [tool.ptoc]."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsp_helpers import KERNEL, open_document, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

BROKEN = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.add(tile_a, missing)")
ANNOTATED = KERNEL.replace(
    "tile_c = pl.add(tile_a, tile_b)", "tile_c: pl.Tile[[64, 64], pl.FP16] = pl.add(tile_a, tile_b)"
)


def pull(uri: str, previous: str | None = None) -> types.DocumentDiagnosticParams:
    return types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri), previous_result_id=previous
    )


def codes(items: list[types.Diagnostic]) -> list[tuple[object, int, int]]:
    return [(d.code, d.range.start.line, d.range.start.character) for d in items]


async def test_an_open_document_is_pulled_with_a_result_id(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", BROKEN)
    pushed = await wait_for_diagnostics(client, uri, 1)
    report = await client.text_document_diagnostic_async(pull(uri))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert codes(report.items) == codes(pushed) == [("E200", 14, 32)]
    assert report.result_id
    again = await client.text_document_diagnostic_async(pull(uri, report.result_id))
    assert again == types.RelatedUnchangedDocumentDiagnosticReport(result_id=report.result_id)


async def test_the_workspace_is_pulled_and_unchanged_files_cost_nothing(
    client: LanguageClient, tmp_path: Path
):
    (tmp_path / "closed.py").write_text(BROKEN)
    (tmp_path / "plain.py").write_text("print('not a kernel')\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "clean.py").write_text(KERNEL)
    await open_document(client, tmp_path / "open.py", BROKEN)  # open: its own pull and push
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams([]))
    full = {Path(item.uri).name: item for item in report.items}
    assert sorted(full) == ["clean.py", "closed.py"]
    closed = full["closed.py"]
    assert isinstance(closed, types.WorkspaceFullDocumentDiagnosticReport)
    assert codes(closed.items) == [("E200", 14, 32)] and closed.version is None
    assert list(full["clean.py"].items) == []
    previous = [types.PreviousResultId(item.uri, item.result_id) for item in report.items]
    again = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous))
    assert {type(item) for item in again.items} == {
        types.WorkspaceUnchangedDocumentDiagnosticReport
    }
    # An edit on disk (a new modification time) is analysed again.
    (tmp_path / "closed.py").write_text(KERNEL)
    stat = os.stat(tmp_path / "closed.py")
    os.utime(tmp_path / "closed.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    third = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous))
    changed = [item for item in third.items if Path(item.uri).name == "closed.py"]
    assert isinstance(changed[0], types.WorkspaceFullDocumentDiagnosticReport)
    assert list(changed[0].items) == []


async def test_a_changed_pyproject_re_analyses_the_documents_below_it(
    client: LanguageClient, tmp_path: Path
):
    for _ in range(500):  # the server asks on `initialized`, without waiting for it
        registrations = [
            r
            for params in client.registrations  # type: ignore[attr-defined]
            for r in params.registrations
            if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        ]
        if registrations:
            break
        await asyncio.sleep(0.01)
    (registration,) = registrations
    assert [w["globPattern"] for w in registration.register_options["watchers"]] == [
        "**/pyproject.toml"
    ]
    project = tmp_path / "pyproject.toml"
    project.write_text("[tool.ptoc]\nstrict-annotations = false\n")
    uri = await open_document(client, tmp_path / "k.py", ANNOTATED)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert (diagnostic.code, diagnostic.severity) == ("W006", types.DiagnosticSeverity.Warning)
    project.write_text("[tool.ptoc]\nstrict-annotations = true\n")
    stat = os.stat(project)
    os.utime(project, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    published = len(client.published)  # type: ignore[attr-defined]
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(project.as_uri(), types.FileChangeType.Changed)]
        )
    )
    severities: list[object] = []
    for _ in range(2000):  # up to 20 s on a busy machine
        later = [p for p in client.published[published:] if p.uri == uri]  # type: ignore[attr-defined]
        severities = [d.severity for d in later[-1].diagnostics] if later else []
        if severities:
            break
        await asyncio.sleep(0.01)
    assert severities == [types.DiagnosticSeverity.Error]
    report = await client.text_document_diagnostic_async(pull(uri))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [(d.code, d.severity) for d in report.items] == [
        ("W006", types.DiagnosticSeverity.Error)
    ]


async def test_background_diagnostics_ask_pull_clients_to_pull_again(
    client: LanguageClient, tmp_path: Path
):
    big = KERNEL.replace("[64, 64]", "[256, 256]")  # three 256 KiB tiles: E402, from the back end
    refreshes = client.diagnostic_refresh_count
    uri = await open_document(client, tmp_path / "k.py", big)
    for _ in range(2000):  # up to 20 s: the back end runs once the file is idle
        if client.diagnostic_refresh_count > refreshes:
            break
        await asyncio.sleep(0.01)
    assert client.diagnostic_refresh_count > refreshes
    report = await client.text_document_diagnostic_async(pull(uri))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["E402"]
