"""A seeded edit storm against the real server over stdio (issues #14 and #33), shared by the CI
test (test_lsp_storm.py) and benchmarks/lsp_storm.py (the 6,000-edit storm, the 100,000-edit
soak).

The requests are derived from the server's own table of handled methods (ptols.handlers), their
params from the methods' params classes: a request added to the server is sent mid-edit without
a change here. The documents are 2026-03 programs, the upstream 2026-08 examples and generated
ones (today.py); edits are random ones as editors send them, and ones that break a program
and then repair it. After every burst of edits: the server's text equals the client's
(ptols/textDigest); all the time: no diagnostics published for a version older than one already
published, every request answered within ANSWER_BOUND, no internal error, no error logged; at
the end: no traceback on stderr, the server alive, the diagnostics equal `ptoc check` of the
same text in the same folder (so the same edition is in force).
"""

from __future__ import annotations

import enum
import hashlib
import json
import random
import subprocess
import sys
import time
import types as pytypes
import typing
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
import today
from lsprotocol import types
from pygls.protocol import default_converter
from raw_lsp import RawServer, child_processes
from test_lsp_fuzz import FRAGMENTS, ClientText

from ptols import protocol
from ptols.handlers import HANDLERS

ANSWER_BOUND = 5.0  # seconds: a request unanswered after this is a hang
# ptols/run builds the kernel and runs it on the simulator (with progress): its own bound, and
# the storm goes on while it runs.
LONG = {protocol.RUN: 120.0}
TARGETS = ("cce", "pto", "ir", "orchestration", "pass:InitMemRef", "nonsense")
CONVERTER = default_converter()
INTERNAL_ERROR = -32603
MAX_TEXT = 40_000  # the client's own bookkeeping stays cheap (a longer text is replaced)


def handled_requests() -> dict[str, type | None]:
    """Every request method the server registers, with its params class (None: no params)."""
    found: dict[str, type | None] = {}
    for handler in HANDLERS:
        if handler.method in protocol.METHODS:
            params, result = protocol.METHODS[handler.method]
            if result is not None:
                found[handler.method] = params
        elif handler.method in types.METHOD_TO_TYPES:
            _, response, params, _ = types.METHOD_TO_TYPES[handler.method]
            if response is not None and handler.method not in ("shutdown", "initialize"):
                found[handler.method] = params
    return found


@dataclass
class Where:
    """What a generated request points at."""

    uri: str
    position: types.Position
    range: types.Range
    functions: list[str]


class ParamsMaker:
    """Params for a method from its params class: fields filled by name where the name says
    what is wanted (a document, a position, a function), else by type."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def make(self, cls: type | None, where: Where) -> Any:
        if cls is None:
            return None
        for _ in range(20):  # a draw that breaks a rule between fields: draw again
            try:
                return CONVERTER.unstructure(self.value(cls, "", where))
            except (AttributeError, TypeError, ValueError):
                continue
        raise AssertionError(f"no params drawn for {cls.__name__}")

    def by_name(self, name: str, where: Where) -> tuple[bool, Any]:
        rng = self.rng
        named: dict[str, Any] = {
            "position": lambda: where.position,
            "range": lambda: where.range,
            "selection_range": lambda: where.range,
            "uri": lambda: where.uri,
            "function": lambda: rng.choice(where.functions + ["nope", "main"]),
            "name": lambda: rng.choice(["TADD", "pto.tadd", "set_flag", "TLOAD", "x"]),
            "target": lambda: rng.choice(TARGETS),
            "new_name": lambda: rng.choice(["renamed", "x1", "class", "é"]),
            "query": lambda: rng.choice(["", "k", "tile", "zz"]),
            "pipeline": lambda: None,
            "seed": lambda: rng.randint(0, 3),
            "work_done_token": lambda: None,
            "partial_result_token": lambda: None,
            "previous_result_ids": lambda: [],
        }
        if name in named:
            return True, named[name]()
        return False, None

    def value(self, tp: Any, name: str, where: Where) -> Any:
        known, found = self.by_name(name, where)
        if known:
            return found
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (typing.Union, pytypes.UnionType):
            arms = [a for a in args if a is not type(None)]
            return self.value(self.rng.choice(arms), name, where) if arms else None
        if origin is typing.Literal:
            return args[0]
        if origin in (list, tuple) or str(origin).endswith("Sequence'>"):
            return [self.value(args[0], name, where)] if args and self.rng.random() < 0.5 else []
        if isinstance(tp, type) and attrs.has(tp):
            return self.instance(tp, where)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.rng.choice(list(tp))
        simple: dict[Any, Any] = {bool: self.rng.random() < 0.5, int: 4, str: "x", float: 0.0}
        return simple.get(tp)

    def instance(self, cls: type, where: Where) -> Any:
        module = sys.modules[cls.__module__]
        hints = typing.get_type_hints(cls, vars(module))
        fields = attrs.fields(cls)
        optional = self.rng.random() < 0.5
        values = {
            item.name: self.value(hints.get(item.name, Any), item.name, where)
            for item in fields
            if item.default is attrs.NOTHING or (optional and self.rng.random() < 0.5)
        }
        try:
            return cls(**values)
        except (TypeError, ValueError):  # an optional field with a narrower rule: leave it out
            required = {i.name for i in fields if i.default is attrs.NOTHING}
            return cls(**{k: v for k, v in values.items() if k in required})


@dataclass
class Report:
    edits: int = 0
    requests: int = 0
    methods: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # error answers a handler chose
    reasons: dict[str, str] = field(default_factory=dict)  # one refusal per method and code
    desyncs: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)
    logged: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    alive: bool = True
    rss: list[tuple[int, float]] = field(default_factory=list)  # (edits, MB)
    # (edits, MB): the server's child processes together (formatting, pass diffs)
    children_rss: list[tuple[int, float]] = field(default_factory=list)

    def problems(self) -> dict[str, Any]:
        """Everything that must be empty (or true) after a storm."""
        return {
            "desyncs": self.desyncs,
            "stale": self.stale,
            "hangs": self.hangs,
            "internal": self.internal,
            "logged": self.logged,
            "tracebacks": self.tracebacks,
            "mismatches": self.mismatches,
            "dead": [] if self.alive else ["the server ended"],
        }


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children_rss_mb(pid: int) -> float:
    """The RSS of ``pid``'s child processes together."""
    total = 0.0
    for child in child_processes(pid):
        try:
            total += rss_mb(child)
        except OSError:  # gone meanwhile
            continue
    return total


def programs(rng: random.Random, count: int) -> list[str]:
    """The documents a storm pastes: 2026-03 examples, upstream 2026-08 ones, generated ones."""
    return (
        today.classic_examples()
        + today.upstream_examples()
        + [today.generated(rng) for _ in range(count)]
    )


def ptoc_check(text: str, path: Path) -> list[tuple[str, str, int, int]]:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    run = subprocess.run(
        [sys.executable, "-m", "ptoc.cli", "check", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
    )
    found = json.loads(run.stdout or "[]")
    return sorted((d["code"], d["message"], d["line"] - 1, d["end_line"] - 1) for d in found)


class Storm:
    """One server, one document, ``seed``; ``edition`` None lets each file's spellings decide,
    else the folder's pyproject.toml chooses it (for the server and `ptoc check` alike)."""

    def __init__(
        self,
        folder: Path,
        seed: int,
        edition: str | None = None,
        command: tuple[str, ...] = (sys.executable, "-m", "ptols"),
        env: dict[str, str] | None = None,
    ) -> None:
        self.folder = folder
        self.rng = random.Random(seed)
        if edition is not None:
            (folder / "pyproject.toml").write_text(f'[tool.ptoc]\nedition = "{edition}"\n')
        self.path = folder / "storm.py"
        self.uri = self.path.as_uri()
        self.pastes = programs(self.rng, 40)
        self.requests = handled_requests()
        self.unsent = sorted(self.requests)  # each is sent mid-edit early on, then at random
        self.maker = ParamsMaker(self.rng)
        self.report = Report()
        self.text = ClientText(self.rng.choice(self.pastes))
        self.version = 1
        self.next_id = 1
        self.waiting: dict[int, tuple[str, float]] = {}  # id -> (method, sent at)
        self.published = 0  # the newest version published
        self.digests: dict[int, int] = {}  # digest request id -> the version it checks
        self.invalid: set[int] = set()  # ids of requests sent with params that do not fit
        self.recent: list[str] = []  # the last requests sent, named when one hangs
        self.repairs: list[tuple[int, str, str]] = []  # (offset, inserted, removed)
        self.functions: list[str] = []
        self.final: list[dict[str, Any]] | None = None
        self.final_at = 0.0  # when diagnostics of the newest version last arrived
        self.server = RawServer(folder, env=env, command=command)
        self.server.initialize(folder)
        self.server.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "python",
                    "version": 1,
                    "text": self.text.text,
                }
            },
        )
        self.wait_for_publish(60)  # the compiler is loaded: not part of the answer bound

    # -- messages ------------------------------------------------------------------------------

    def request(self, method: str, params: Any) -> int:
        msg_id = self.next_id
        self.next_id += 1
        self.waiting[msg_id] = (method, time.monotonic())
        self.recent = [*self.recent[-7:], method]
        self.server.request(msg_id, method, params)
        self.report.requests += 1
        self.report.methods[method] += 1
        return msg_id

    def drain(self) -> None:
        """Read what arrived: answers, diagnostics, logs, the server's own requests."""
        with self.server.arrived:
            messages = list(self.server.received)
            self.server.received.clear()
        for message in messages:
            if "method" in message and "id" in message:
                self.answer_server(message)
            elif "method" in message:
                self.notification(message)
            else:
                self.answer(message)

    def answer_server(self, message: dict[str, Any]) -> None:
        params = message.get("params") or {}
        result = [None] * len(params.get("items", [])) if "items" in params else None
        self.server.send({"id": message["id"], "result": result})

    def notification(self, message: dict[str, Any]) -> None:
        params = message.get("params") or {}
        if message["method"] == "textDocument/publishDiagnostics" and params.get("uri") == self.uri:
            version = params.get("version")
            if version is None:
                return
            if version < self.published:
                self.report.stale.append(f"version {version} after {self.published}")
            self.published = max(self.published, version)
            if version == self.version:
                self.final = params["diagnostics"]
                self.final_at = time.monotonic()
        elif message["method"] == "window/logMessage" and params.get("type") == 1:
            self.report.logged.append(params.get("message", "")[:300])

    def answer(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        if msg_id not in self.waiting:
            return
        method, sent = self.waiting.pop(msg_id)
        took = time.monotonic() - sent
        if took > LONG.get(method, ANSWER_BOUND):
            self.report.hangs.append(
                f"{method} answered after {took:.1f} s (sent last: {', '.join(self.recent)})"
            )
        error = message.get("error")
        if msg_id in self.invalid:
            self.invalid.discard(msg_id)
            if (error or {}).get("code") != -32602:
                self.report.internal.append(f"{method} with invalid params: {message}"[:300])
        elif error is not None:
            if error.get("code") == INTERNAL_ERROR:
                self.report.internal.append(f"{method}: {error.get('message', '')[:200]}")
            else:
                self.report.refused[method] += 1
                key = f"{method} {error.get('code')}"
                self.report.reasons.setdefault(key, error.get("message", "")[:200])
        elif msg_id in self.digests:
            self.check_digest(self.digests.pop(msg_id), message.get("result"))
        elif method == protocol.FUNCTIONS and message.get("result"):
            self.functions = [f["name"] for f in message["result"]["functions"]][:20]

    def check_digest(self, version: int, result: Any) -> None:
        if version != self.version:
            return  # an older check, overtaken by edits since
        wanted = {"version": version, "sha256": sha(self.text.text)}
        got = {k: (result or {}).get(k) for k in wanted}
        if got != wanted:
            self.report.desyncs.append(f"at version {version}: {got}")

    def settle(self, everything: bool = False) -> None:
        """Wait until every request is answered, but for long ones (ptols/run) unless
        ``everything``; one past its bound is a hang, reported, then forgotten."""
        while True:
            self.drain()
            now = time.monotonic()
            waited = {
                msg_id: (method, sent)
                for msg_id, (method, sent) in self.waiting.items()
                if everything or method not in LONG
            }
            if not waited:
                return
            late = {
                msg_id: (method, sent)
                for msg_id, (method, sent) in waited.items()
                if now - sent > LONG.get(method, ANSWER_BOUND) + 1
            }
            for msg_id, (method, sent) in late.items():
                self.report.hangs.append(
                    f"{method} unanswered after {now - sent:.1f} s (sent last: "
                    f"{', '.join(self.recent)}; document of {len(self.text.text)} chars)"
                )
                del self.waiting[msg_id]
                self.digests.pop(msg_id, None)
            if self.server.proc.poll() is not None:
                self.report.alive = False
                return
            time.sleep(0.002)

    # -- edits -----------------------------------------------------------------------------------

    def change(self, event: dict[str, Any]) -> None:
        self.version += 1
        self.report.edits += 1
        self.server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [event]},
        )

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace text[start:end] by ``new``, as an incremental change."""
        lines = self.text.lines()
        span = types.Range(self.text.position(start, lines), self.text.position(end, lines))
        self.text.apply(span, new)
        self.change({"range": CONVERTER.unstructure(span), "text": new})

    def whole(self, text: str) -> None:
        self.text.text = text
        self.repairs.clear()
        self.change({"text": text})

    def random_edit(self) -> None:
        rng = self.rng
        span = self.text.random_range(rng)
        roll = rng.random()
        if roll < 0.55:
            new = rng.choice(FRAGMENTS)
        elif roll < 0.7:
            new = ""
        else:
            source = rng.choice(self.pastes)
            start = rng.randrange(len(source))
            new = source[start : start + rng.choice([3, 20, 80, 400])]
        self.text.apply(span, new)
        self.change({"range": CONVERTER.unstructure(span), "text": new})

    def break_edit(self) -> None:
        """Delete a few characters or insert a breaking one, remembering how to undo it."""
        rng, text = self.rng, self.text.text
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice([0, 1, 1, 2, 4, 9]))
        breaking = ["(", ":", " ", "\n", "x", '"', "'''", "with pl.at("]
        new = "" if end > start and rng.random() < 0.7 else rng.choice(breaking)
        self.repairs.append((start, new, text[start:end]))
        self.replace(start, end, new)

    def repair(self) -> None:
        start, inserted, removed = self.repairs.pop()
        if self.text.text[start : start + len(inserted)] == inserted:
            self.replace(start, start + len(inserted), removed)
        else:
            self.repairs.clear()  # edits since moved the text: nothing to undo safely

    def edit(self) -> None:
        roll = self.rng.random()
        if self.repairs and roll < 0.35:
            self.repair()
        elif roll < 0.6:
            self.break_edit()
        elif roll < 0.95:
            self.random_edit()
        else:
            self.whole(self.rng.choice(self.pastes))
        if len(self.text.text) > MAX_TEXT:
            self.whole(self.rng.choice(self.pastes))

    # -- requests --------------------------------------------------------------------------------

    def where(self) -> Where:
        span = self.text.random_range(self.rng)
        whole = types.Range(types.Position(0, 0), types.Position(span.start.line + 40, 0))
        return Where(self.uri, span.start, self.rng.choice([span, whole]), self.functions)

    def any_request(self) -> None:
        method = self.unsent.pop() if self.unsent else self.rng.choice(sorted(self.requests))
        self.request(method, self.maker.make(self.requests[method], self.where()))

    def invalid_request(self) -> None:
        method = self.rng.choice(sorted(m for m, p in self.requests.items() if p is not None))
        params = self.rng.choice([[1, 2], {"textDocument": None}, {}])
        self.invalid.add(self.request(method, params))

    def digest(self) -> None:
        msg_id = self.request(protocol.TEXT_DIGEST, {"textDocument": {"uri": self.uri}})
        self.digests[msg_id] = self.version

    def reopen(self) -> None:
        self.server.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        self.version += 1
        self.server.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "python",
                    "version": self.version,
                    "text": self.text.text,
                }
            },
        )

    def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.55:
            for _ in range(self.rng.choice([1, 1, 2, 3, 5])):
                self.edit()
                if self.rng.random() < 0.3:
                    self.any_request()  # mid-edit: the next edit overtakes it
            self.digest()
        elif roll < 0.88:
            self.any_request()
        elif roll < 0.93:
            self.invalid_request()
        elif roll < 0.96:
            self.reopen()
        else:
            self.request(protocol.FUNCTIONS, {"textDocument": {"uri": self.uri}})
        self.settle()

    def run(
        self,
        edits: int = 0,
        seconds: float = 0.0,
        sample_every: int = 100,
        sampled: Callable[[Storm], None] | None = None,
        reference: str | None = None,
    ) -> Report:
        """Storm until ``edits`` edits were sent or ``seconds`` passed, then check the end;
        ``sampled`` is called after each RSS sample; with a ``reference`` text, each sample is
        taken with that text open and analysed (what is alive then does not depend on which
        program the storm had pasted last)."""
        deadline = time.monotonic() + seconds if seconds else float("inf")
        next_sample = 0
        while self.report.alive and time.monotonic() < deadline:
            if edits and self.report.edits >= edits:
                break
            self.step()
            if self.report.edits >= next_sample:
                if reference is not None:
                    self.settle_on(reference)
                self.report.rss.append((self.report.edits, rss_mb(self.server.proc.pid)))
                children = children_rss_mb(self.server.proc.pid)
                self.report.children_rss.append((self.report.edits, children))
                next_sample += sample_every
                if sampled is not None:
                    sampled(self)
        self.finish()
        return self.report

    def wait_for_publish(self, timeout: float) -> None:
        """Until diagnostics of the newest version arrive (or ``timeout`` passes)."""
        deadline = time.monotonic() + timeout
        while self.published < self.version and time.monotonic() < deadline:
            self.drain()
            time.sleep(0.01)

    def settle_on(self, text: str) -> None:
        """Open ``text`` (a whole-document change), wait for its diagnostics, and once more a
        second later, so that the end of a compilation step after the pause has run."""
        for _ in range(2):
            self.whole(text)
            self.wait_for_publish(30)
            time.sleep(1.1)
            self.drain()

    def finish(self) -> None:
        self.settle(everything=True)
        deadline = time.monotonic() + 30
        while self.final is None and time.monotonic() < deadline and self.report.alive:
            self.drain()
            time.sleep(0.01)
        # Syntax errors are published first, the whole analysis and the back-end checks a moment
        # later: the last word is the one after which nothing more came for 2 s.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and time.monotonic() - self.final_at < 2.0:
            self.drain()
            time.sleep(0.05)
        got = sorted(
            (d.get("code"), d["message"], d["range"]["start"]["line"], d["range"]["end"]["line"])
            for d in self.final or []
        )
        wanted = ptoc_check(self.text.text, self.path)
        if [tuple(g) for g in got] != wanted:
            self.report.mismatches.append(f"server {got[:5]} != ptoc check {wanted[:5]}")
        self.report.alive = self.server.proc.poll() is None
        self.server.request(self.next_id, "shutdown", None)
        self.server.response(self.next_id, 20)
        self.server.notify("exit", None)
        self.server.wait(20)
        stderr = self.server.error_output().decode("utf-8", "replace")
        if "Traceback" in stderr or "Warning" in stderr:
            self.report.tracebacks.append(stderr[-2000:])
