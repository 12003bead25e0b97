"""Answering ``initialize`` before pygls and lsprotocol load.

Importing them costs about half a second of CPU (lsprotocol.types alone defines a thousand attrs
classes), and an editor waits for the answer to ``initialize`` before it sends anything else.
That answer depends only on the request's parameters (client capabilities, options) and on the
code of ptols, pygls and lsprotocol. So this module (which imports neither) reads the first
message and, if it is ``initialize``, answers at once, then the server loads: with pygls' own
answer remembered for exactly that request if there is one, else with the answer capabilities.py
computes from ptols' handler table. pygls then handles the request as always, from the same
bytes; its own answer is compared with the one already sent instead of being sent again (a
difference is logged, and pygls' answer remembered for the next start).

Cache: ``$PTOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/ptols``, else ``~/.cache/ptols``; one small
JSON file per distinct request whose answer capabilities.py did not know. Nothing here may stop
the server: any problem (an unreadable cache, an odd first message) just means pygls answers,
as it would without this module.
"""

from __future__ import annotations

import json
import logging
import os
import select
import zlib
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any, BinaryIO

from .capabilities import initialize_result
from .framing import BODY_WAIT, READ_SIZE, next_message

log = logging.getLogger("ptols")

#: Parameters that name this launch (its process, its folders), not what the answer depends on.
LAUNCH_PARAMS = ("processId", "rootPath", "rootUri", "workspaceFolders", "workDoneToken")
#: Packages whose code computes the answer: any change to their files is a different key.
CODE = ("ptols", "pygls", "lsprotocol")
HEADER = "Content-Type: application/vscode-jsonrpc; charset=utf-8"


class FirstMessage:
    """What was read before the server loaded: every byte (the server reads them again), and,
    if the first message is ``initialize``, its id, its cache key and the answer sent early.
    (A plain class: importing dataclasses would cost this module several ms.)"""

    def __init__(self, consumed: bytes) -> None:
        self.consumed = consumed
        self.initialize_id: int | str | None = None
        self.key = ""
        self.answered: Any = None


def cache_dir() -> Path:
    if os.environ.get("PTOLS_CACHE_DIR"):
        return Path(os.environ["PTOLS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "ptols"


def code_fingerprint() -> list[tuple[str, int, int]]:
    """(path, size, mtime) of every Python file of the packages in CODE."""
    found: list[tuple[str, int, int]] = []
    for package in CODE:
        spec = PathFinder.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        path = os.path.join(root, name)
                        stat = os.stat(path)
                        found.append((path, stat.st_size, stat.st_mtime_ns))
    return found


def cache_key(params: dict[str, Any]) -> str:
    """Everything the answer to ``initialize`` depends on, as one text."""
    relevant = {name: value for name, value in params.items() if name not in LAUNCH_PARAMS}
    return json.dumps({"params": relevant, "code": code_fingerprint()}, sort_keys=True)


def cache_file(key: str) -> Path:
    return cache_dir() / f"initialize-{zlib.crc32(key.encode()):08x}.json"


def remembered(key: str) -> Any:
    """The answer remembered for ``key`` (None: none; the file holds its key, so a checksum
    collision is only a miss)."""
    try:
        entry = json.loads(cache_file(key).read_text(encoding="utf-8"))
    except (OSError, RuntimeError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry.get("result")


def remember(key: str, result: Any) -> None:
    """Keep ``result`` for ``key`` (written whole, then renamed: servers may start together)."""
    try:
        target = cache_file(key)
        scratch = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(json.dumps({"key": key, "result": result}), encoding="utf-8")
        os.replace(scratch, target)
    except (OSError, RuntimeError) as error:  # RuntimeError: no home directory
        log.info("could not remember the answer to initialize: %s", error)


def read_first(fd: int) -> tuple[bytes, bytes | None]:
    """Read until the first message is complete: (every byte read, its body). Once bytes have
    arrived, an incomplete message may wait BODY_WAIT for more; after that the body is None
    and the server's own reader deals with what arrived."""
    consumed = bytearray()
    while True:
        body, _ = next_message(bytearray(consumed), waited=False)
        if body is not None:
            return bytes(consumed), body
        if consumed and not select.select([fd], [], [], BODY_WAIT)[0]:
            return bytes(consumed), None
        chunk = os.read(fd, READ_SIZE)
        if not chunk:
            return bytes(consumed), None
        consumed += chunk


def answer_initialize(stdin: BinaryIO, stdout: BinaryIO) -> FirstMessage:
    """Read the first message; if it is an ``initialize`` answered before, answer it now."""
    try:
        consumed, body = read_first(stdin.fileno())
    except (OSError, ValueError):  # no readable stdin: the server's own reader finds out
        return FirstMessage(b"")
    first = FirstMessage(consumed)
    try:
        message = json.loads(body) if body is not None else None
        if isinstance(message, dict) and message.get("method") == "initialize":
            answer_early(first, message, stdout)
    except Exception as error:  # an optimisation only: pygls answers instead
        log.info("initialize not answered early: %s", error)
    return first


def answer_early(first: FirstMessage, message: dict[str, Any], stdout: BinaryIO) -> None:
    params, request_id = message.get("params"), message.get("id")
    if not isinstance(params, dict) or type(request_id) not in (int, str):
        return
    first.initialize_id, first.key = request_id, cache_key(params)
    result, source = remembered(first.key), str(cache_file(first.key))
    if result is None:
        result, source = initialize_result(params), "computed"
    if result is None:
        return
    answer = json.dumps({"id": request_id, "jsonrpc": "2.0", "result": result}).encode()
    stdout.write(f"Content-Length: {len(answer)}\r\n{HEADER}\r\n\r\n".encode() + answer)
    stdout.flush()
    first.answered = result
    log.info("answered initialize before loading the server (%s)", source)


def remember_answer(first: FirstMessage, result: Any) -> None:
    """pygls' answer to the ``initialize`` of ``first`` (as JSON data): remembered when it is
    new, or differs from the one sent early."""
    if first.answered == result:
        return
    if first.answered is not None:
        log.warning("the early answer to initialize differed from pygls' answer: remembered")
    remember(first.key, result)
