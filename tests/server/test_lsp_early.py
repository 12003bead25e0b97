"""`initialize` answered before pygls loads (ptols/early.py): the same bytes as pygls' own
answer, sent once, only for a request answered before; a wrong remembered answer is corrected."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from raw_lsp import RawServer, frame

EARLY = b"answered initialize before loading the server"
CAPABILITIES: dict[str, Any] = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}


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


def test_a_repeated_initialize_gets_pygls_answer_early_and_once(
    start: Any, tmp_path: Path, cache: Path
) -> None:
    first = start()
    answers = session(first, tmp_path, CAPABILITIES)
    assert len(answers) == 1 and "capabilities" in answers[0]["result"]
    assert EARLY not in first.error_output()
    assert len(list(cache.glob("initialize-*.json"))) == 1

    # Another launch (another process, another folder), the same client: answered early.
    second = start()
    other = tmp_path / "other"
    other.mkdir()
    assert session(second, other, CAPABILITIES) == answers
    assert EARLY in second.error_output()
    assert b"differed" not in second.error_output()


def test_other_client_capabilities_are_not_answered_from_the_cache(
    start: Any, tmp_path: Path, cache: Path
) -> None:
    session(start(), tmp_path, CAPABILITIES)
    second = start()
    plain = session(second, tmp_path, {})
    assert len(plain) == 1
    assert EARLY not in second.error_output()
    assert len(list(cache.glob("initialize-*.json"))) == 2


def test_a_wrong_remembered_answer_is_replaced_by_pygls_answer(
    start: Any, tmp_path: Path, cache: Path
) -> None:
    (truth,) = session(start(), tmp_path, CAPABILITIES)
    (entry,) = cache.glob("initialize-*.json")
    remembered = json.loads(entry.read_text())
    remembered["result"] = {"capabilities": {}}
    entry.write_text(json.dumps(remembered))

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
