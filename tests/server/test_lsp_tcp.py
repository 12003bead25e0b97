"""`ptols --tcp HOST:PORT` serves the same protocol over a socket (loopback only)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

from lsprotocol import types
from pygls.lsp.client import LanguageClient


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_tcp_transport_initializes_and_publishes(tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "ptols", "--tcp", f"127.0.0.1:{port}"])
    client = LanguageClient("tcp-test", "1")
    published: list[types.PublishDiagnosticsParams] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(ls, params):  # noqa: ANN001
        published.append(params)

    for method in ("ptols/previewChanged", "ptols/status"):
        client.feature(method)(lambda ls, params: None)
    try:
        for _ in range(100):  # wait for the socket
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        result = await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities())
        )
        assert result.server_info.name == "ptols"
        client.initialized(types.InitializedParams())
        text = (
            "import pypto.language as pl\n\n@pl.function\ndef f(n: pl.Scalar[pl.INT64]):\n    "
            "k = zz\n"
        )
        uri = (tmp_path / "k.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
        )
        for _ in range(200):
            if published:
                break
            await asyncio.sleep(0.05)
        assert [d.code for d in published[-1].diagnostics] == ["E200"]
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
        server.terminate()
        server.wait(timeout=10)


def test_tcp_listens_on_loopback_only_unless_remote_is_allowed():
    port = free_port()
    refused = subprocess.run(
        [sys.executable, "-m", "ptols", "--tcp", f"0.0.0.0:{port}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        f"ptols: error: --tcp 0.0.0.0:{port}: 0.0.0.0 is not (only) a loopback address; whoever"
        " reaches the port could make this machine build and run code. Listen on 127.0.0.1, or"
        " add --allow-remote on a trusted network"
    )
    helped = subprocess.run(
        [sys.executable, "-m", "ptols", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--allow-remote" in helped.stdout and "loopback" in helped.stdout
    allowed = subprocess.Popen(
        [sys.executable, "-m", "ptols", "--tcp", f"0.0.0.0:{port}", "--allow-remote"]
    )
    try:
        for _ in range(200):  # it listens on every address, loopback included
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert allowed.poll() is None
                time.sleep(0.1)
        else:
            raise AssertionError("ptols --allow-remote did not listen")
    finally:
        allowed.kill()
        allowed.wait()


def test_only_loopback_hosts_count_as_loopback():
    from ptols.__main__ import is_loopback

    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "127.1.2.3")] == [True] * 4
    assert [is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.invalid")] == [False] * 4
