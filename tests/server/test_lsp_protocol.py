"""Lifecycle, framing and stream faults, over raw bytes against the real server process."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_helpers import KERNEL
from raw_lsp import RawServer, frame

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer(tmp_path)
    try:
        yield server
    finally:
        server.close()


def hover(raw: RawServer, msg_id: int, uri: str, line: int = 0, character: int = 0) -> None:
    raw.request(
        msg_id,
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
    )


def open_kernel(raw: RawServer, path: Path, text: str = KERNEL) -> str:
    uri = path.as_uri()
    raw.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    return uri


def test_exit_without_shutdown_exits_with_1(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    raw.notify("exit", None)
    assert raw.wait(10) == 1


def test_exit_after_shutdown_exits_with_0(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    raw.request(1, "shutdown", None)
    assert raw.response(1) == {"jsonrpc": "2.0", "id": 1, "result": None}
    raw.notify("exit", None)
    assert raw.wait(10) == 0


def test_request_after_shutdown_is_an_invalid_request(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    uri = open_kernel(raw, tmp_path / "k.py")
    raw.request(1, "shutdown", None)
    raw.response(1)
    hover(raw, 2, uri)
    answer = raw.response(2, timeout=10)
    assert answer["error"]["code"] == INVALID_REQUEST
    assert (
        answer["error"]["message"] == "the server is shut down: textDocument/hover is not accepted"
    )


def test_invalid_params_after_shutdown_is_an_invalid_request(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    raw.request(1, "shutdown", None)
    raw.response(1)
    raw.request(2, "textDocument/hover", {"textDocument": {"uri": "file:///x.py"}})
    assert raw.response(2, timeout=10)["error"]["code"] == INVALID_REQUEST


@pytest.mark.parametrize(
    "method, params",
    [
        ("textDocument/hover", {"textDocument": {"uri": "file:///x.py"}}),
        (
            "textDocument/hover",
            {"textDocument": {"uri": "file:///x.py"}, "position": {"line": -1, "character": 0}},
        ),
        (
            "textDocument/hover",
            {"textDocument": {"uri": "file:///x.py"}, "position": {"line": "one", "character": 0}},
        ),
        (
            "textDocument/definition",
            {"textDocument": None, "position": {"line": 0, "character": 0}},
        ),
        ("textDocument/completion", [1, 2, 3]),
        (
            "textDocument/rename",
            {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}},
        ),
        ("textDocument/documentSymbol", {}),
        (
            "textDocument/references",
            {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}},
        ),
        (
            "textDocument/inlayHint",
            {"textDocument": {"uri": "file:///x.py"}, "range": {"start": {"line": 0}}},
        ),
        ("ptols/preview", {"target": "cce"}),
    ],
)
def test_invalid_params_are_answered_with_invalid_params(
    raw: RawServer, tmp_path: Path, method: str, params: object
):
    raw.initialize(tmp_path)
    raw.request(1, method, params)
    answer = raw.response(1, timeout=10)
    assert answer["error"]["code"] == INVALID_PARAMS, answer
    # and the session goes on
    raw.request(2, "shutdown", None)
    assert raw.response(2)["result"] is None


def test_over_long_content_length_resynchronises(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    uri = open_kernel(raw, tmp_path / "k.py")
    assert raw.diagnostics(uri, 1) == []
    line = KERNEL[: KERNEL.index("tile_c = ")].count("\n")
    # The first request claims 40 bytes more than it has: they are the next message's start.
    first = frame(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": 9}},
        },
        40,
    )
    second = frame(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/documentSymbol",
            "params": {"textDocument": {"uri": uri}},
        }
    )
    raw.send_bytes(first + second)
    assert "tile_c" in raw.response(1)["result"]["contents"]["value"]
    assert [s["name"] for s in raw.response(2)["result"]] == ["Demo"]


def test_over_long_content_length_of_the_last_message_is_answered_after_a_pause(
    raw: RawServer, tmp_path: Path
):
    raw.initialize(tmp_path)
    raw.send({"id": 1, "method": "shutdown", "params": None}, length_delta=25)
    assert raw.response(1, timeout=5)["result"] is None


def test_garbage_and_short_content_length_cost_only_their_message(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    raw.send_bytes(b"this is not a header\r\n\r\n")
    raw.send({"id": 1, "method": "shutdown", "params": None}, length_delta=-5)  # cut short: dropped
    raw.send({"id": 2, "method": "shutdown", "params": None})
    assert raw.response(2, timeout=10)["result"] is None
    raw.notify("exit", None)
    assert raw.wait(10) == 0


def test_exit_while_busy_is_fast_and_quiet(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    big = KERNEL + "".join(
        KERNEL.split("@pl.program", 1)[1]
        .replace("class Demo", f"class Demo{i}")
        .join(["\n\n@pl.program", ""])
        for i in range(150)
    )
    uri = open_kernel(raw, tmp_path / "big.py", big)

    def edit_and_preview(version: int) -> None:  # an analysis and a buffer compilation
        raw.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": big + "#" * version}],
            },
        )
        raw.request(version, "ptols/preview", {"textDocument": {"uri": uri}, "target": "cce"})

    # What one unit of the work queued below takes on this machine, now (load included).
    started = time.monotonic()
    edit_and_preview(2)
    raw.response(2, timeout=60)
    unit = time.monotonic() - started
    queued = range(3, 13)
    for version in queued:
        edit_and_preview(version)
    time.sleep(0.5)
    started = time.monotonic()
    raw.notify("exit", None)
    assert raw.wait(10) == 1
    # Exit does not wait for the queued work: it takes a small fraction of that work's time.
    took = time.monotonic() - started
    assert took < unit * len(queued) / 4, (took, unit)
    assert len(raw.error_output()) < 2000, raw.stderr[:2000]


def test_closed_output_ends_the_server_quietly(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    uri = open_kernel(raw, tmp_path / "k.py")
    raw.close_output()  # the client stops reading: every write of the server fails
    for version in range(2, 50):
        raw.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": KERNEL + "#" * version}],
            },
        )
        hover(raw, version, uri, 12, 9)
    assert raw.wait(10) == 1
    assert raw.error_output().count(b"Traceback") == 0
    assert (
        raw.stderr.decode()
        .strip()
        .splitlines()[-1]
        .endswith("the client closed the server's output stream: exiting")
    )


async def test_notification_handler_futures_are_released():
    from ptols.server import create_server

    server = create_server()
    seen: list[object] = []

    @server.feature("ptols/testNotification")
    async def handler(ls: object, params: object) -> None:
        seen.append(params)

    for _ in range(20):
        server.protocol._handle_notification("ptols/testNotification", {"n": 1})
    await asyncio.sleep(0.05)
    assert len(seen) == 20
    server.protocol._release_finished()  # done on every message the server reads
    assert server.protocol._request_futures == {}


def test_requests_rightly_refused_are_answered_without_a_traceback(raw: RawServer, tmp_path: Path):
    raw.initialize(tmp_path)
    uri = open_kernel(raw, tmp_path / "k.py")
    raw.diagnostics(uri, 1)
    raw.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    gone = {"textDocument": {"uri": uri}, "target": "cce"}  # closed while the request travelled
    raw.request(1, "ptols/preview", gone)
    raw.request(2, "ptols/preview", {"textDocument": {"uri": "file:///not/open.py"}})
    raw.request(3, "ptols/sourceMap", {"textDocument": {"uri": "file:///not/open.py"}})
    raw.request(4, "textDocument/hover", {"textDocument": {"uri": uri}})  # no position
    raw.notify("textDocument/didChange", {"textDocument": {"uri": uri}})  # no changes
    answers = [raw.response(n)["error"] for n in (1, 2, 3, 4)]
    assert [a["code"] for a in answers] == [INVALID_PARAMS] * 4
    assert answers[0]["message"] == f"ptols: preview: document not open: {uri}"
    assert answers[3]["message"] == (
        "invalid params for textDocument/hover: required field missing @ $.params.position"
    )
    raw.request(5, "shutdown", None)
    raw.response(5)
    raw.notify("exit", None)
    assert raw.wait(10) == 0
    assert raw.error_output().decode().splitlines() == [
        line
        for line in raw.stderr.decode().splitlines()
        if "dropped textDocument/didChange: its params do not fit" in line
    ]
    assert b"Traceback" not in raw.stderr


async def test_a_real_internal_error_is_logged_once_with_its_traceback(caplog):
    from concurrent.futures import Future

    from pygls.exceptions import JsonRpcInvalidParams

    from ptols.handlers import guarded
    from ptols.server import create_server

    server = create_server()
    sent: list[tuple[object, object]] = []
    server.protocol._send_response = lambda msg_id, result=None, error=None: sent.append(
        (msg_id, error)
    )

    def fails(ls: object, params: object) -> None:
        raise ZeroDivisionError("division by zero")

    def refuses(ls: object, params: object) -> None:
        raise JsonRpcInvalidParams("no")

    def answer(msg_id: int, handler: object) -> None:
        future: Future[object] = Future()
        try:
            future.set_result(handler(server, None))  # type: ignore[operator]
        except Exception as error:
            future.set_exception(error)
        server.protocol._send_handler_result(future, msg_id=msg_id)

    def errors_logged() -> list[str]:  # (no transport here: the copy sent to the client fails)
        found = [r for r in caplog.records if r.levelname == "ERROR"]
        return [r.name for r in found if "no available transport" not in r.getMessage()]

    caplog.set_level("INFO")
    answer(1, refuses)
    answer(2, guarded(server, "preview")(refuses))
    assert "Traceback" not in caplog.text
    answer(3, guarded(server, "preview")(fails))  # the guard logs it: once
    assert caplog.text.count("Traceback") == 1
    answer(4, fails)  # an unguarded failure: pygls logs it
    assert caplog.text.count("ZeroDivisionError: division by zero") == 2
    assert errors_logged() == ["ptols", "pygls.protocol.json_rpc"]
    assert [(msg_id, error.code) for msg_id, error in sent] == [  # type: ignore[attr-defined]
        (1, -32602),
        (2, -32602),
        (3, -32603),
        (4, -32603),
    ]
