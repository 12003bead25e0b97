"""ptols/run: ptoc run --sim in the background, with progress; a mismatch is an E406 on the
function's name until a successful run or an edit of the function."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import KERNEL, open_document, position_of
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from ptols.features.run import parse_run

HERE = Path(__file__).resolve().parent
VERDICT = Path(tempfile.mkdtemp(prefix="fake-ptoc-")) / "verdict"
atexit.register(shutil.rmtree, VERDICT.parent, ignore_errors=True)
PTO_ISA = HERE.parents[2] / "shared" / "vendor" / "pto-isa"


def fake_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PTOLS_PTOC"] = f"{sys.executable} {HERE / 'fake_ptoc.py'}"
    env["FAKE_PTOC_VERDICT"] = str(VERDICT)
    return env


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "ptols", "--stdio"], server_env=fake_env()
    ),
)
async def faked(lsp_client: LanguageClient, tmp_path: Path):
    """A server whose ``ptoc`` is fake_ptoc.py: a mismatch on demand."""
    lsp_client.published = []  # type: ignore[attr-defined]
    features = lsp_client.protocol.fm._features
    stock = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams) -> Any:
        lsp_client.published.append(params)  # type: ignore[attr-defined]
        return stock(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record

    @lsp_client.feature("ptols/status")
    def _status(params: Any) -> None:
        pass

    @lsp_client.feature("ptols/previewChanged")
    def _changed(params: Any) -> None:
        pass

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: Any) -> None:
        pass

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)  # the pyproject.toml watch
    def _register(params: Any) -> None:
        pass

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


async def run(client: LanguageClient, uri: str, **fields: Any) -> Any:
    return await client.protocol.send_request_async(
        "ptols/run", {"textDocument": {"uri": uri}, "function": "kernel", **fields}
    )


def last_published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    found = [p for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    return found[-1].diagnostics if found else []


async def until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.02)


async def test_a_mismatch_is_a_diagnostic_until_a_good_run(
    faked: LanguageClient, tmp_path: Path
) -> None:
    client = faked
    VERDICT.write_text("mismatch", encoding="utf-8")
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    result = await run(client, uri)
    assert not result.ok
    assert result.message == "kernel: simulator and reference interpreter DISAGREE"
    assert [(o.name, o.maxAbsError, o.ok) for o in result.outputs] == [
        ("a", 0.0, True),
        ("out", 2.5, False),
    ]
    assert "MISMATCH in 7 of 4096" in result.log

    def e406() -> list[types.Diagnostic]:
        return [d for d in last_published(client, uri) if d.code == "E406"]

    await until(lambda: len(e406()) == 1)
    (diagnostic,) = e406()
    name = position_of(KERNEL, "kernel(")
    assert diagnostic.range == types.Range(name, types.Position(name.line, name.character + 6))
    assert diagnostic.message == (
        "the simulator and the reference interpreter disagree: out: MISMATCH in 7 of 4096, "
        "first at [0, 3] (max abs error 2.5)"
    )
    VERDICT.write_text("ok", encoding="utf-8")
    result = await run(client, uri)
    assert result.ok
    assert result.message == "kernel: simulator and reference interpreter agree on 2 results"
    await until(lambda: not e406())


async def test_an_edit_of_the_function_clears_the_mismatch(
    faked: LanguageClient, tmp_path: Path
) -> None:
    client = faked
    VERDICT.write_text("mismatch", encoding="utf-8")
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    await run(client, uri)
    await until(lambda: any(d.code == "E406" for d in last_published(client, uri)))
    edited = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.sub(tile_a, tile_b)")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(edited)],
        )
    )
    published: list[types.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
    await until(lambda: any(p.uri == uri and p.version == 2 for p in published))
    assert not any(d.code == "E406" for d in last_published(client, uri))


def test_parse_run_of_a_missing_tool() -> None:
    stderr = "ptoc: no C++ compiler: install clang 17+ (apt-get install -y clang-19)\n"
    result = parse_run("", stderr, 2, "kernel")
    assert (result.ok, result.mismatch, result.outputs) == (False, False, [])
    assert result.message == "no C++ compiler: install clang 17+ (apt-get install -y clang-19)"


@pytest.mark.skipif(
    shutil.which("clang++-19") is None or not PTO_ISA.is_dir(),
    reason="needs clang-19 and pto-isa (../shared/vendor/pto-isa)",
)
async def test_run_on_the_simulator_with_progress(client: LanguageClient, tmp_path: Path) -> None:
    client.progress_reports["run-1"] = []  # the token this request brings
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    result = await run(client, uri, workDoneToken="run-1", seed=3)
    assert result.ok, result.log
    assert [(o.name, o.ok) for o in result.outputs] == [("a", True), ("b", True), ("out", True)]
    assert result.message == "kernel: simulator and reference interpreter agree on 3 results"
    await until(lambda: len(client.progress_reports["run-1"]) >= 2)
    begin, end = client.progress_reports["run-1"]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "Running kernel on the simulator"
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert not any(d.code == "E406" for d in last_published(client, uri))


async def test_a_run_keeps_the_edition_the_project_chose(
    faked: LanguageClient, tmp_path: Path
) -> None:
    """The document is run as a copy in a private folder, outside the project: without the
    edition passed on, a file the project puts in 2026-03 ran as its spellings said (#33)."""
    VERDICT.write_text("ok", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.ptoc]\nedition = "2026-03"\n')
    uri = await open_document(faked, tmp_path / "k.py", KERNEL)
    result = await run(faked, uri)
    assert result.ok
    assert "ptoc: edition 2026-03 ..." in result.log.splitlines()
