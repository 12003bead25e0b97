"""Hostile files (issue #14): every request answered within a second, a clear diagnostic where a
file is over a limit, and no recursion error anywhere."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hostile import HOSTILE, TODAY
from lsp_helpers import KERNEL, open_document, wait_for_diagnostics
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

BOUND = 1.0  # seconds, per request
CUSTOM = (
    "ptols/specialisations",
    "ptols/taskGraph",
    "ptols/timeline",
    "ptols/passDiff",
    "ptols/memoryMap",
    "ptols/sourceMap",
)


def answer_times(client: LanguageClient) -> dict[Any, float]:
    """When each answer's bytes arrived, by request id. The test client turns every object of
    an answer it has no type for into a namedtuple of a new class (a 400-task graph: 2 s in
    the client, 0.04 s in the server), so the server's time is measured to the arrival."""
    protocol: Any = client.protocol
    if not hasattr(protocol, "answer_times"):
        times: dict[Any, float] = {}
        original = protocol.structure_message

        def stamped(data: dict[str, Any]) -> Any:
            if isinstance(data, dict) and "id" in data and "method" not in data:
                times[data["id"]] = time.monotonic()
            return original(data)

        protocol.structure_message = stamped
        protocol.answer_times = times
    found: dict[Any, float] = protocol.answer_times
    return found


def server_cpu(client: LanguageClient) -> float:
    """The CPU seconds the server process has used, all threads (Linux's /proc)."""
    server: Any = getattr(client, "_server", None)
    try:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (AttributeError, OSError):
        return 0.0  # unknown: every late answer is asked again
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def every_request(client: LanguageClient, uri: str) -> dict[str, Any]:
    """Each request once, in turn; fails when one takes longer than BOUND."""
    doc = types.TextDocumentIdentifier(uri)
    at = types.Position(5, 8)
    standard: dict[str, tuple[str, Any]] = {
        "hover": (types.TEXT_DOCUMENT_HOVER, types.HoverParams(doc, at)),
        "completion": (types.TEXT_DOCUMENT_COMPLETION, types.CompletionParams(doc, at)),
        "definition": (types.TEXT_DOCUMENT_DEFINITION, types.DefinitionParams(doc, at)),
        "references": (
            types.TEXT_DOCUMENT_REFERENCES,
            types.ReferenceParams(
                context=types.ReferenceContext(True), text_document=doc, position=at
            ),
        ),
        "documentSymbol": (
            types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
            types.DocumentSymbolParams(doc),
        ),
        "inlayHint": (
            types.TEXT_DOCUMENT_INLAY_HINT,
            types.InlayHintParams(doc, types.Range(types.Position(0, 0), types.Position(60, 0))),
        ),
        "formatting": (
            types.TEXT_DOCUMENT_FORMATTING,
            types.DocumentFormattingParams(doc, types.FormattingOptions(4, True)),
        ),
        "preview": ("ptols/preview", {"textDocument": {"uri": uri}, "target": "cce"}),
        "functions": ("ptols/functions", {"textDocument": {"uri": uri}}),
        "workspaceSymbol": (
            types.WORKSPACE_SYMBOL,
            types.WorkspaceSymbolParams(query="f"),
        ),
    }
    answers: dict[str, Any] = {}
    slow: dict[str, float] = {}
    arrived = answer_times(client)

    async def timed(name: str, method: str, params: Any) -> tuple[float, float]:
        """One request: the time from its sending to its answer's arrival, and the CPU time
        the server spent meanwhile."""
        started, cpu = time.monotonic(), server_cpu(client)
        msg_id = f"{method}-{started}"
        try:
            answers[name] = await asyncio.wait_for(
                client.protocol.send_request_async(method, params, msg_id), 10
            )
        except JsonRpcInvalidParams as refused:  # a request's mistake, said at once; not a crash
            answers[name] = refused
        took = arrived.pop(msg_id, time.monotonic()) - started
        return took, server_cpu(client) - cpu

    async def ask(name: str, method: str, params: Any) -> None:
        """Slow when the server worked (any of its threads) for most of a late answer; when it
        was late with the server mostly idle, the machine lent it no CPU (a passDiff of 0.05 s
        here once took 1.2 s on CI's two busy cores), and it is asked once more."""
        took, worked = await timed(name, method, params)
        if took > BOUND and worked < took / 2:
            took, worked = await timed(name, method, params)
        if took > BOUND:
            slow[name] = round(took, 2)

    for name, (method, params) in standard.items():
        await ask(name, method, params)
    # today's requests (#33), for the file's orchestration (main) or else its first function
    names = [f.name for f in getattr(answers["functions"], "functions", None) or []]
    function = "main" if "main" in names or not names else names[0]
    for method in CUSTOM:
        await ask(method, method, {"textDocument": {"uri": uri}, "function": function})
    assert slow == {}
    return answers


@pytest.mark.parametrize("name", list(HOSTILE))
async def test_hostile_file_gets_answers_within_a_second(
    client: LanguageClient, tmp_path: Path, name: str
):
    await open_document(client, tmp_path / "warm.py", KERNEL)  # the compiler is loaded
    text = HOSTILE[name]()
    uri = (tmp_path / "h.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    answers = await every_request(client, uri)
    diagnostics = await wait_for_diagnostics(client, uri, 1, timeout=60)
    over = {
        "5MB": "file too large for live analysis: 5.0 MB > 1.0 MB (run `ptoc check` on it)",
        "10000 functions": "file too large for live analysis: 1.4 MB > 1.0 MB (run `ptoc check` "
        "on it)",
        "1MB one-line "
        "list": "line 4 too long for live analysis: 990,009 characters > 100,000 (run `ptoc "
        "check` on it)",
    }
    if name in over:
        assert [(d.code, d.message) for d in diagnostics] == [("W900", over[name])]
    if name == "90 nested loops":
        preview = answers["preview"]
        assert preview.content == ""
        assert [(d.code, d.message) for d in preview.diagnostics] == [
            (
                "W900",
                "loops nest 90 deep: live previews stop at 12 (`ptoc compile` still compiles it)",
            )
        ]
        # #33: the timeline and the memory map computed the facts of all 90 loops (no answer
        # within minutes); they stop where the preview stops
        assert answers["ptols/timeline"].message == (
            "loops nest 90 deep: live previews stop at 12 (`ptoc compile` still compiles it)"
        )
        assert [d.code for d in answers["ptols/memoryMap"].diagnostics] == ["W900"]
        assert [d.code for d in answers["ptols/passDiff"].diagnostics] == ["W900"]
    # nothing went wrong inside the server, in particular no recursion error
    assert [m.message for m in client.log_messages if m.type == types.MessageType.Error] == []
    # and it still analyses an edit of a normal file at once
    answers = await every_request(client, (tmp_path / "warm.py").as_uri())


async def test_deep_loops_give_symbols_capped_at_a_fixed_depth(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "deep.py", HOSTILE["500 nested loops"]())
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    depth, names = 0, []
    level: list[Any] = list(symbols)
    while level:
        depth += 1
        names.append(level[0].name)
        level = list(level[0].children or [])
    assert depth == 64
    assert names[:3] == ["deep", "for i0 in pl.range(2)", "for i1 in pl.range(2)"]
    assert names[-1] == "for i62 in pl.range(2)"


TODAY_CASES = [(name, edition) for name in TODAY for edition in ("2026-03", "2026-08")] + [
    (name, "2026-08") for name in HOSTILE
]


@pytest.mark.parametrize(("name", "edition"), TODAY_CASES)
async def test_hostile_file_of_today_in_both_editions(
    client: LanguageClient, tmp_path: Path, name: str, edition: str
):
    """Issue #33: today's hostile files (huge JIT signatures, deep ``pl.at``, a thousand
    kernels, long task chains, a thousand ranks) in both editions, and the older hostile files
    under the 2026-08 edition: every request answered within a second, diagnostics published,
    no internal error."""
    (tmp_path / "pyproject.toml").write_text(f'[tool.ptoc]\nedition = "{edition}"\n')
    await open_document(client, tmp_path / "warm.py", KERNEL)
    text = (TODAY | HOSTILE)[name]()
    uri = (tmp_path / "h.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    answers = await every_request(client, uri)
    await wait_for_diagnostics(client, uri, 1, timeout=60)
    assert answers["preview"] is not None
    assert [m.message for m in client.log_messages if m.type == types.MessageType.Error] == []
    await every_request(client, (tmp_path / "warm.py").as_uri())
