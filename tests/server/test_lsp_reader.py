"""How ptols reads its input: on the message loop when the input can be waited for (a pipe),
so that a request arriving while an analysis thread runs Python does not first wait for a
reading thread to win the interpreter lock; on a thread for a regular file. And how work
answered in the background (semantic tokens) lets the requests in flight go first."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from ptols import rpc
from ptols.rpc import InFlight, start_reading, start_reading_thread


def reader_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ptols-stdin"]


def test_a_pipe_is_read_on_the_message_loop_without_a_thread() -> None:
    read_end, write_end = os.pipe()
    message = b"Content-Length: 2\r\n\r\n{}"

    async def main() -> tuple[list[bytes], bool, bool]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            start_reading(stream, loop, queue)
            # nothing written yet: a reading thread would be waiting in its read now
            threaded = bool(reader_threads())
            os.write(write_end, message)
            os.close(write_end)
            chunks: list[bytes] = []
            while not chunks or chunks[-1]:
                chunks.append(await asyncio.wait_for(queue.get(), 5))
            # the end of the input removed the reader: the loop no longer waits for it
            still_watched = loop.remove_reader(stream.fileno())
        return chunks, threaded, still_watched

    chunks, threaded, still_watched = asyncio.run(main())
    assert not threaded
    assert not still_watched
    assert b"".join(chunks) == message
    assert chunks[-1] == b""


def test_a_request_is_read_while_another_thread_holds_the_interpreter() -> None:
    """A thread that runs pure Python without pause (an analysis) does not keep the input
    from being read: each message is in the queue within a few switch intervals."""
    read_end, write_end = os.pipe()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    async def main() -> list[bytes]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        with os.fdopen(os.dup(read_end), "rb", buffering=0) as stream:
            start_reading(stream, loop, queue)
            received = []
            for number in range(5):
                os.write(write_end, b"%d" % number)
                received.append(await asyncio.wait_for(queue.get(), 5))
            loop.remove_reader(stream.fileno())
        return received

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        received = asyncio.run(main())
    finally:
        stop.set()
        spinner.join()
        os.close(read_end)
        os.close(write_end)
    assert received == [b"0", b"1", b"2", b"3", b"4"]


def test_a_regular_file_is_read_on_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """epoll cannot wait for a regular file: a thread reads it (input redirected from one)."""
    path = tmp_path / "input"
    path.write_bytes(b"Content-Length: 2\r\n\r\n{}")
    started: list[int] = []

    def on_thread(fd: int, *args: Any) -> None:
        started.append(fd)
        start_reading_thread(fd, *args)

    monkeypatch.setattr(rpc, "start_reading_thread", on_thread)

    async def main() -> list[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        with path.open("rb", buffering=0) as stream:
            rpc.start_reading(stream, asyncio.get_running_loop(), queue)
            chunks: list[bytes] = []
            while not chunks or chunks[-1]:
                chunks.append(await asyncio.wait_for(queue.get(), 5))
        return chunks

    chunks = asyncio.run(main())
    assert len(started) == 1
    assert b"".join(chunks) == path.read_bytes()
    assert chunks[-1] == b""


# --- requests in flight: semantic tokens let the others go first ------------------------------


def test_background_work_waits_while_a_request_is_in_flight() -> None:
    events: list[str] = []

    async def main() -> None:
        in_flight = InFlight()
        in_flight.started(1, "textDocument/semanticTokens/full/delta")
        assert not in_flight.busy()  # tokens themselves do not hold tokens back
        in_flight.started(2, "textDocument/hover")
        assert in_flight.busy()

        async def hover() -> None:
            await asyncio.sleep(0.02)
            events.append("hover answered")
            in_flight.answered(2)

        task = asyncio.ensure_future(hover())
        await in_flight.others_answered(5)
        events.append("tokens go on")
        await task
        assert not in_flight.busy()

    asyncio.run(main())
    assert events == ["hover answered", "tokens go on"]


def test_background_work_waits_no_longer_than_its_limit() -> None:
    async def main() -> tuple[float, float]:
        in_flight = InFlight()
        in_flight.started(7, "ptols/preview")  # never answered here
        loop = asyncio.get_running_loop()
        start = loop.time()
        await in_flight.others_answered(0.05)
        waited = loop.time() - start
        start = loop.time()
        await in_flight.others_answered(0)  # no time left: one turn of the loop only
        return waited, loop.time() - start

    waited, then = asyncio.run(main())
    assert 0.04 <= waited < 1
    assert then < 0.04


def test_background_work_goes_on_at_once_when_nothing_else_is_asked() -> None:
    async def main() -> float:
        in_flight = InFlight()
        in_flight.started(3, "textDocument/hover")
        in_flight.answered(3)
        in_flight.answered(99)  # an id never seen (an early answer): nothing happens
        loop = asyncio.get_running_loop()
        start = loop.time()
        await in_flight.others_answered(5)
        return loop.time() - start

    assert asyncio.run(main()) < 1
