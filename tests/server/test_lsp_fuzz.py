"""A seeded edit storm against the real server (issue #14): random incremental and whole-document
edits as editors send them, interleaved with every request (the custom ones, invalid params and
cancellations included), close and reopen. After every edit the server's text must be the
client's; no answer may take longer than a bound; no diagnostics may be published for a version
older than one already published; at the end the diagnostics equal `ptoc check` of the text.

Runs for PTOLS_FUZZ_SECONDS (default 8; 60 when CI=true) from seed PTOLS_FUZZ_SEED (default 14).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import subprocess
import sys
import time
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lsp_helpers import KERNEL, wait_for_diagnostics
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol.json_rpc import JsonRPCRequestMessage
from pytest_lsp import LanguageClient
from raw_lsp import RawServer

ROOT = Path(__file__).resolve().parents[2]
SECONDS = float(
    os.environ.get("PTOLS_FUZZ_SECONDS", "60" if os.environ.get("CI") == "true" else "8")
)
SEED = int(os.environ.get("PTOLS_FUZZ_SEED", "14"))
ANSWER_BOUND = 2.0  # seconds for any answer, on a shared 2-core machine
PASTES = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples").glob("*.py"))] + [
    KERNEL
]
FRAGMENTS = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    "=",
    " ",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "pl.",
    "pl.add(",
    "pl.load(a, [0, 0], [64, 64])",
    "pl.range(",
    "pl.yield_(",
    "for i in pl.range(4):\n",
    "if ",
    "else:\n",
    "return ",
    "'",
    '"',
    "#",
    "\\",
    "😀",
    "𝔘",
    "é",
    "\x0c",
    "\x0b",
    "\x85",
    "\u2028",
    "\u2029",
    "\x1c",
    "\ufeff",
    "def g(self):\n",
    "@pl.function\n",
    "self.",
    "tile_a",
    "pl.FP32",
    "pl.Tile[[64, 64], pl.FP32]",
    # digits as they are typed into a shape, a window or a loop bound (the extremes, 2**40
    # and the like, are hostile files: tests/server/hostile.py)
    "0",
    "7",
    "4096",
]
INVALID = [
    ("textDocument/hover", {"textDocument": {"uri": "file:///x.py"}}),
    (
        "textDocument/hover",
        {"textDocument": {"uri": "file:///x.py"}, "position": {"line": -3, "character": 0}},
    ),
    ("textDocument/definition", {"textDocument": None, "position": {"line": 0, "character": 0}}),
    ("textDocument/completion", [1, 2]),
    (
        "textDocument/rename",
        {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}},
    ),
    ("textDocument/documentSymbol", {}),
    ("ptols/preview", {"target": "cce"}),
]


class ClientText:
    """The client's copy of the document, edited by LSP's rules: lines end at \\n, \\r\\n or
    \\r; columns count UTF-16 code units; past a line's end (or the last line) means its end; a
    column inside a surrogate pair (no editor sends one) means before that character."""

    def __init__(self, text: str) -> None:
        self.text = text

    def lines(self) -> list[tuple[int, str]]:
        """(offset, content without break) of every line."""
        found = []
        offset = 0
        text = self.text
        while True:
            cut = len(text)
            width = 0
            for index in range(offset, len(text)):
                if text[index] == "\n":
                    cut, width = index, 1
                    break
                if text[index] == "\r":
                    cut, width = index, 2 if text[index + 1 : index + 2] == "\n" else 1
                    break
            found.append((offset, text[offset:cut]))
            if width == 0:
                return found
            offset = cut + width

    def offset(self, position: types.Position, lines: list[tuple[int, str]]) -> int:
        if position.line >= len(lines):
            return len(self.text)
        start, content = lines[position.line]
        units = 0
        for count, char in enumerate(content):
            width = 2 if ord(char) > 0xFFFF else 1
            if units + width > position.character:  # inside a surrogate pair: before the character
                return start + count
            units += width
        return start + len(content)

    def position(self, offset: int, lines: list[tuple[int, str]]) -> types.Position:
        row = max(i for i, (start, _) in enumerate(lines) if start <= offset)
        start, content = lines[row]
        head = content[: offset - start]
        return types.Position(row, len(head.encode("utf-16-le", "surrogatepass")) // 2)

    def random_range(self, rng: random.Random) -> types.Range:
        lines = self.lines()
        first = rng.randrange(len(self.text) + 1)
        last = min(len(self.text), first + rng.choice([0, 0, 1, 2, 5, 30, 200]))
        start, end = self.position(first, lines), self.position(last, lines)
        if rng.random() < 0.15:  # past the end of the line, or of the document
            end = types.Position(
                end.line + rng.choice([0, 0, 3]), end.character + rng.randint(1, 40)
            )
        return types.Range(start, end)

    def apply(self, change: types.Range, new: str) -> None:
        lines = self.lines()
        start, end = self.offset(change.start, lines), self.offset(change.end, lines)
        start, end = min(start, end), max(start, end)
        self.text = self.text[:start] + new + self.text[end:]


def random_insert(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        return rng.choice(FRAGMENTS)
    if roll < 0.7:
        return ""
    source = rng.choice(PASTES)
    start = rng.randrange(len(source))
    return source[start : start + rng.choice([3, 20, 80, 400])]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def send(
    client: LanguageClient, method: str, params: Any, msg_id: str | None = None
) -> Future[Any]:
    """A request with params as plain JSON data, typed or not (invalid params stay invalid)."""
    protocol = client.protocol
    msg_id = msg_id or str(uuid.uuid4())
    future: Future[Any] = Future()
    protocol._request_futures[msg_id] = future
    protocol._send_data(
        JsonRPCRequestMessage(id=msg_id, method=method, params=params, jsonrpc="2.0")
    )
    return future


async def request(client: LanguageClient, method: str, params: Any, slow: list[str]) -> Any:
    started = time.monotonic()
    try:
        return await asyncio.wait_for(asyncio.wrap_future(send(client, method, params)), 10)
    except JsonRpcException as error:
        return error
    finally:
        took = time.monotonic() - started
        if took > ANSWER_BOUND:
            slow.append(f"{method} took {took:.2f} s")


def random_request(rng: random.Random, uri: str, text: ClientText) -> tuple[str, Any]:
    doc = {"uri": uri}
    where = text.random_range(rng).start
    at = {"line": where.line, "character": where.character}
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": where.line + 5, "character": 0}}
    choices = [
        ("textDocument/hover", {"textDocument": doc, "position": at}),
        ("textDocument/completion", {"textDocument": doc, "position": at}),
        ("textDocument/signatureHelp", {"textDocument": doc, "position": at}),
        ("textDocument/definition", {"textDocument": doc, "position": at}),
        (
            "textDocument/references",
            {"textDocument": doc, "position": at, "context": {"includeDeclaration": True}},
        ),
        ("textDocument/prepareRename", {"textDocument": doc, "position": at}),
        ("textDocument/rename", {"textDocument": doc, "position": at, "newName": "renamed"}),
        ("textDocument/documentSymbol", {"textDocument": doc}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": whole}),
        (
            "textDocument/codeAction",
            {"textDocument": doc, "range": whole, "context": {"diagnostics": []}},
        ),
        (
            "textDocument/formatting",
            {"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": True}},
        ),
        ("workspace/symbol", {"query": "k"}),
        (
            "ptols/preview",
            {"textDocument": doc, "target": rng.choice(["cce", "pto", "ir", "pass:InitMemRef"])},
        ),
        ("ptols/functions", {"textDocument": doc}),
        ("ptols/passes", {}),
    ]
    return rng.choice(choices)


def ptoc_check(text: str, tmp_path: Path) -> list[tuple[str, str, int, int]]:
    path = tmp_path / "final.py"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    run = subprocess.run(
        [sys.executable, "-m", "ptoc.cli", "check", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    found = json.loads(run.stdout or "[]")
    return sorted((d["code"], d["message"], d["line"] - 1, d["end_line"] - 1) for d in found)


async def test_edit_storm(client: LanguageClient, tmp_path: Path):
    rng = random.Random(SEED)
    uri = (tmp_path / "storm.py").as_uri()
    text = ClientText(KERNEL)
    version = 1
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", version, text.text))
    )
    await wait_for_diagnostics(
        client, uri, version
    )  # the compiler is loaded (not part of the bound)
    history = [text.text]
    slow: list[str] = []
    problems: list[str] = []
    steps = 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        steps += 1
        roll = rng.random()
        if roll < 0.55:  # edits, a burst of them as typing sends
            for _ in range(rng.choice([1, 1, 2, 5])):
                version += 1
                if rng.random() < 0.9:
                    change = text.random_range(rng)
                    new = random_insert(rng)
                    text.apply(change, new)
                    event: Any = types.TextDocumentContentChangePartial(range=change, text=new)
                else:  # a whole-document change, sometimes an undo-like revert
                    text.text = rng.choice(history) if rng.random() < 0.5 else rng.choice(PASTES)
                    event = types.TextDocumentContentChangeWholeDocument(text.text)
                if len(text.text) > 20_000:  # keep the client's own bookkeeping cheap
                    text.text = KERNEL
                    event = types.TextDocumentContentChangeWholeDocument(text.text)
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        types.VersionedTextDocumentIdentifier(uri=uri, version=version), [event]
                    )
                )
                history = (history + [text.text])[-20:]
            answer = await request(client, "ptols/textDigest", {"textDocument": {"uri": uri}}, slow)
            if answer is None or (answer.version, answer.sha256) != (version, sha(text.text)):
                problems.append(f"step {steps}: the server's text diverged at version {version}")
                break
        elif roll < 0.88:
            method, params = random_request(rng, uri, text)
            if method == "ptols/preview" and rng.random() < 0.3:  # cancelled at once
                future = send(client, method, params, msg_id=f"cancel-{steps}")
                client.protocol.notify(
                    types.CANCEL_REQUEST, types.CancelParams(id=f"cancel-{steps}")
                )
                try:
                    await asyncio.wait_for(asyncio.wrap_future(future), 10)
                except JsonRpcException:
                    pass
            else:
                await request(client, method, params, slow)
        elif roll < 0.96:
            method, params = rng.choice(INVALID)
            answer = await request(client, method, params, slow)
            if not (isinstance(answer, JsonRpcException) and answer.code == -32602):
                problems.append(f"step {steps}: {method} with invalid params answered {answer!r}")
        else:  # close and reopen
            client.text_document_did_close(
                types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
            )
            version += 1
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    types.TextDocumentItem(uri, "python", version, text.text)
                )
            )
    await wait_for_diagnostics(client, uri, version, timeout=30)
    await asyncio.sleep(1.0)  # back-end checks (E401 / E402) are published a moment later
    final = await wait_for_diagnostics(client, uri, version)
    published = [p.version for p in client.published if p.uri == uri and p.version is not None]  # type: ignore[attr-defined]
    backwards = [(a, b) for a, b in zip(published, published[1:], strict=False) if b < a]
    errors = [m.message[:300] for m in client.log_messages if m.type == types.MessageType.Error]
    assert problems == []
    assert slow == []
    assert backwards == []
    assert errors == []
    assert steps > 20
    assert sorted(
        (d.code, d.message, d.range.start.line, d.range.end.line) for d in final
    ) == ptoc_check(text.text, tmp_path)


def test_lifecycle_sequences(tmp_path: Path):
    """Random orders of initialize, requests, shutdown and exit: every request answered (an
    InvalidRequest after shutdown), and the exit code 0 only after shutdown."""
    rng = random.Random(SEED)
    for _ in range(4 if os.environ.get("CI") == "true" else 2):
        server = RawServer(tmp_path)
        try:
            server.initialize(tmp_path)
            shut = False
            for msg_id in range(1, rng.randint(3, 8)):
                roll = rng.random()
                if roll < 0.25 and not shut:
                    server.request(msg_id, "shutdown", None)
                    assert server.response(msg_id, 10)["result"] is None
                    shut = True
                    continue
                method, params = rng.choice(
                    INVALID + [("ptols/passes", {}), ("workspace/symbol", {"query": "x"})]
                )
                server.request(msg_id, method, params)
                answer = server.response(msg_id, 10)
                if shut:
                    assert answer["error"]["code"] == -32600
                elif method in ("ptols/passes", "workspace/symbol"):
                    assert "result" in answer
                else:
                    assert answer["error"]["code"] == -32602
            server.notify("exit", None)
            assert server.wait(10) == (0 if shut else 1)
        finally:
            server.close()
