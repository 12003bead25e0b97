"""The handler table and module-level handlers, called directly without a client."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from ptols import protocol
from ptols.handlers import HANDLERS, extensions, guarded
from ptols.server import PtolsServer, create_server
from ptols.text import Stale


def test_every_method_is_registered_once_from_the_table():
    server = create_server()
    methods = [handler.method for handler in HANDLERS]
    assert len(methods) == len(set(methods))
    assert set(methods) <= set(server.protocol.fm.features)
    completion = server.protocol.fm.feature_options[types.TEXT_DOCUMENT_COMPLETION]
    assert completion.trigger_characters == [".", "(", ",", "="]


def test_a_handler_is_a_function_called_without_a_client():
    server = PtolsServer()
    server.store.open("file:///k.py", "x = 1\n", 3)
    ask = protocol.TextDigestParams(types.TextDocumentIdentifier("file:///k.py"))
    assert extensions.text_digest(server, ask) == protocol.TextDigestResult(
        3, 6, hashlib.sha256(b"x = 1\n").hexdigest()
    )
    other = protocol.TextDigestParams(types.TextDocumentIdentifier("file:///other.py"))
    assert extensions.text_digest(server, other) is None


def test_guarded_answers_a_failure_as_an_internal_error_and_stale_as_nothing():
    server = PtolsServer()

    def fails(ls: PtolsServer, params: object) -> None:
        raise ZeroDivisionError("division by zero")

    def stale(ls: PtolsServer, params: object) -> None:
        raise Stale

    def refuses(ls: PtolsServer, params: object) -> None:
        raise JsonRpcInvalidParams("no")

    with pytest.raises(JsonRpcInternalError, match=r"^ptols: hover failed: division by zero$"):
        guarded(server, "hover")(fails)(server, None)
    assert guarded(server, "hover")(stale)(server, None) is None
    with pytest.raises(JsonRpcInvalidParams):
        guarded(server, "hover")(refuses)(server, None)


def test_closing_a_document_drops_its_state_with_it():
    server = PtolsServer()
    doc = server.store.open("file:///k.py", "x = 1\n", 1)
    doc.buffer_memo["f"] = "kept"
    again = server.store.open("file:///k.py", "x = 2\n", 2)
    assert again.buffer_memo == {} and again.backend is None
    assert server.store.close("file:///k.py") is again
    assert server.store.get("file:///k.py") is None


def test_a_closed_document_lets_go_of_its_tasks_and_jobs():
    # A cancelled task could keep its CancelledError, whose traceback holds the task's frame
    # and so the document: each closed document lived on, analyses and memos included, until
    # a full collection (issue #33: seen in the storm's reopen steps).
    server = PtolsServer()
    doc = server.store.open("file:///k.py", "x = 1\n", 1)

    async def jobs() -> list[asyncio.Future[None]]:
        loop = asyncio.get_running_loop()
        made = [loop.create_future() for _ in range(6)]
        doc.pending = doc.buffer_task = asyncio.ensure_future(made[0])
        doc.facts_job, doc.symbols_job, doc.format_job = (
            (1, made[1]),
            ("x", made[2]),
            ("x", made[3]),
        )
        doc.preview_jobs[(1, "cce")] = made[4]
        server.store.close("file:///k.py")
        await asyncio.sleep(0)
        return made

    made = asyncio.run(jobs())
    assert made[0].cancelled()
    assert (doc.pending, doc.buffer_task, doc.facts_job, doc.symbols_job, doc.format_job) == (
        (None,) * 5
    )
    assert doc.preview_jobs == {}


def test_the_server_frees_cycles_of_old_analyses_as_they_pile_up(monkeypatch):
    # Each analysis pauses the collector (ptoc.perf): the server asks for full collections as
    # tracked objects grow, else RSS grew by ~0.18 MB per 1,000 edits (issue #14).
    from ptoc import perf

    monkeypatch.setattr(perf._PAUSE, "collect_at", None)
    create_server().warm_up()
    assert perf._PAUSE.collect_at is not None
