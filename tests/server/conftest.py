from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

# Servers started by these tests remember their answers to `initialize` here, not in the
# user's cache (ptols/early.py); after the first start, `initialize` is answered early.
os.environ["PTOLS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ptols-test-cache-")
atexit.register(shutil.rmtree, os.environ["PTOLS_CACHE_DIR"], ignore_errors=True)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "ptols", "--stdio"]),
)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    lsp_client.set_configuration({"inlayHints": {"enabled": True}}, section="ptoc")
    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    # VS Code supports `workspace/diagnostic/refresh` (its 1.90 request has it: clients/).
    assert capabilities.workspace is not None
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True
    )
    params = types.InitializeParams(
        capabilities=capabilities,
        root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "ws")],
    )
    # Keep every diagnostics notification with its version (the stock client keeps the last list).
    lsp_client.published = []  # type: ignore[attr-defined]
    features = lsp_client.protocol.fm._features
    stock = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams):
        lsp_client.published.append(params)  # type: ignore[attr-defined]
        return stock(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    # Before `initialize`: the server registers its pyproject.toml watch on `initialized`.
    lsp_client.registrations = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):  # noqa: ANN001
        lsp_client.registrations.append(params)  # type: ignore[attr-defined]

    lsp_client.initialize_result = await lsp_client.initialize_session(params)  # type: ignore[attr-defined]
    lsp_client.preview_changes = []  # type: ignore[attr-defined]

    @lsp_client.feature("ptols/previewChanged")
    def _changed(params):  # noqa: ANN001
        lsp_client.preview_changes.append(params)  # type: ignore[attr-defined]

    @lsp_client.feature("ptols/status")
    def _status(params):  # noqa: ANN001
        pass

    lsp_client.code_lens_refreshes = 0  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params):  # noqa: ANN001
        lsp_client.code_lens_refreshes += 1  # type: ignore[attr-defined]

    yield
    await lsp_client.shutdown_session()
