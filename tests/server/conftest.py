from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

KERNEL = '''import pypto.language as pl


@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 64], pl.FP32],
        b: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a = pl.load(a, [0, 0], [64, 64])
        tile_b = pl.load(b, [0, 0], [64, 64])
        tile_c = pl.add(tile_a, tile_b)
        result = pl.store(tile_c, [0, 0], [64, 64], out)
        return result

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = self.kernel(a, b, out)
        return r
'''


def position_of(text: str, needle: str, offset: int = 0, occurrence: int = 1) -> types.Position:
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return types.Position(line, index - (text.rfind("\n", 0, index) + 1))


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "ptols", "--stdio"]),
)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    lsp_client.set_configuration({"inlayHints": {"enabled": True}}, section="ptoc")
    params = types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
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
    await lsp_client.initialize_session(params)
    lsp_client.preview_changes = []  # type: ignore[attr-defined]

    @lsp_client.feature("ptols/previewChanged")
    def _changed(params):  # noqa: ANN001
        lsp_client.preview_changes.append(params)  # type: ignore[attr-defined]

    @lsp_client.feature("ptols/status")
    def _status(params):  # noqa: ANN001
        pass

    yield
    await lsp_client.shutdown_session()


async def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", version, text)))
    await wait_for_diagnostics(client, uri, version)
    return uri


async def wait_for_diagnostics(client: LanguageClient, uri: str, version: int, timeout: float = 20.0):
    """The diagnostics published for exactly this version of the document."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for params in reversed(client.published):  # type: ignore[attr-defined]
            if params.uri == uri and params.version == version:
                return params.diagnostics
        await asyncio.sleep(0.005)
    raise TimeoutError(f"no diagnostics for {uri} version {version}")
