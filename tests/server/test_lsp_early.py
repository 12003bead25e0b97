"""`initialize` answered before pygls loads (ptols/early.py): the same bytes as pygls' own
answer, sent once, computed from the handler table (capabilities.py) or remembered from pygls
for a request the table does not know; a wrong remembered answer is corrected."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from raw_lsp import RawServer, frame

from ptols.early import cache_file, cache_key

EARLY = b"answered initialize before loading the server"
CAPABILITIES: dict[str, Any] = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}
PREPARE_RENAME: dict[str, Any] = {"textDocument": {"rename": {"prepareSupport": True}}}
# pygls reads 1 as true; capabilities.py leaves what it does not expect to pygls
ODD: dict[str, Any] = {"textDocument": {"synchronization": {"willSave": 1}}}


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def start(tmp_path: Path, cache: Path) -> Iterator[Any]:
    """Starts servers that keep their answers in ``cache`` and log at INFO to stderr."""
    started: list[RawServer] = []

    def spawn() -> RawServer:
        env = {**os.environ, "PTOLS_CACHE_DIR": str(cache)}
        server = RawServer(tmp_path, ("--log-level", "INFO"), env)
        started.append(server)
        return server

    yield spawn
    for server in started:
        server.close()


def session(server: RawServer, root: Path, capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    """initialize, initialized, shutdown, exit: every answer to ``initialize`` received."""
    params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": capabilities}
    server.request(1, "initialize", params)
    server.response(1)
    server.notify("initialized", {})
    server.request(2, "shutdown", None)
    server.response(2)
    server.notify("exit", None)
    assert server.wait(30) == 0
    return [m for m in server.received if m.get("id") == 1 and "method" not in m]


def test_a_first_initialize_is_answered_early_once_with_pygls_answer(
    start: Any, tmp_path: Path, cache: Path
) -> None:
    first = start()
    answers = session(first, tmp_path, CAPABILITIES)
    assert len(answers) == 1 and "capabilities" in answers[0]["result"]
    assert EARLY + b" (computed)" in first.error_output()
    assert b"differed" not in first.error_output()  # pygls' own answer was the same
    assert not cache.exists()  # nothing to remember

    # Another launch (another process, another folder), the same client: the same answer.
    second = start()
    other = tmp_path / "other"
    other.mkdir()
    assert session(second, other, CAPABILITIES) == answers
    assert EARLY + b" (computed)" in second.error_output()


def test_each_client_gets_its_own_answer(start: Any, tmp_path: Path, cache: Path) -> None:
    (plain,) = session(start(), tmp_path, {})
    (renaming,) = session(start(), tmp_path, PREPARE_RENAME)
    assert plain["result"]["capabilities"]["renameProvider"] is True
    assert renaming["result"]["capabilities"]["renameProvider"] == {"prepareProvider": True}


def test_an_initialize_the_table_does_not_know_is_answered_by_pygls_then_remembered(
    start: Any, tmp_path: Path, cache: Path
) -> None:
    first = start()
    (truth,) = session(first, tmp_path, ODD)
    assert EARLY not in first.error_output()
    assert truth["result"]["capabilities"]["textDocumentSync"]["willSave"] is False
    assert len(list(cache.glob("initialize-*.json"))) == 1

    second = start()
    assert session(second, tmp_path, ODD) == [truth]
    assert EARLY in second.error_output() and b"(computed)" not in second.error_output()


def test_a_wrong_remembered_answer_is_replaced_by_pygls_answer(
    start: Any, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (truth,) = session(start(), tmp_path, CAPABILITIES)
    monkeypatch.setenv("PTOLS_CACHE_DIR", str(cache))
    key = cache_key({"capabilities": CAPABILITIES})  # what the answer depends on
    entry = cache_file(key)
    entry.parent.mkdir(parents=True)
    entry.write_text(json.dumps({"key": key, "result": {"capabilities": {}}}))

    second = start()
    (sent,) = session(second, tmp_path, CAPABILITIES)
    assert sent["result"] == {"capabilities": {}}  # what was remembered went out, once
    assert b"differed from pygls' answer" in second.error_output()
    assert json.loads(entry.read_text())["result"] == truth["result"]
    (third,) = session(start(), tmp_path, CAPABILITIES)
    assert third == truth


def test_a_first_message_in_pieces_or_after_garbage_is_still_read(
    start: Any, tmp_path: Path
) -> None:
    session(start(), tmp_path, {})
    server = start()
    message = frame(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "capabilities": {}},
        }
    )
    server.send_bytes(b"garbage\r\n\r\n" + message[:30])
    server.send_bytes(message[30:])
    assert "capabilities" in server.response(1)["result"]
    server.notify("exit", None)
    assert server.wait(30) == 1
    assert EARLY in server.error_output()


def test_a_first_message_that_is_not_initialize_is_left_to_pygls(
    start: Any, tmp_path: Path
) -> None:
    server = start()
    server.request(7, "textDocument/hover", {})
    error = server.response(7)["error"]
    assert error["code"] == -32602  # InvalidParams, as rpc.py answers it
    assert error["message"].startswith("invalid params for textDocument/hover")
    server.notify("exit", None)
    assert server.wait(30) == 1
    assert EARLY not in server.error_output()
