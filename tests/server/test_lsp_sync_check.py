"""Hand-written synchronisation checked live: the sync checker's findings on a function that
holds its own sync statements are published with the back end's diagnostics."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import change, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

SOURCE = """\
import pypto.language as pl


@pl.program
class Manual:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32]):
        t = pl.load(x, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=1)
        u = pl.exp(t)
"""


async def published_codes(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20.0
    while loop.time() < deadline:
        for params in client.published:  # type: ignore[attr-defined]
            if params.uri == uri and any(d.code == "E410" for d in params.diagnostics):
                return params.diagnostics
        await asyncio.sleep(0.01)
    raise TimeoutError("no E410 published")


async def test_hand_written_sync_is_checked_live(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "manual.py", SOURCE)
    found = await published_codes(client, uri)
    assert sorted((d.code, d.range.start.line) for d in found) == [
        ("E410", position_of(SOURCE, "u = pl.exp").line),
        ("E412", position_of(SOURCE, "pl.system.sync_src").line),
        ("E415", position_of(SOURCE, "pl.system.sync_dst").line),
    ]
    hazard = next(d for d in found if d.code == "E410")
    assert hazard.message.startswith("V reads Vec [0x0, 0x1000), which MTE2 wrote at line 8")
    assert hazard.related_information is not None
    assert [r.location.range.start.line for r in hazard.related_information] == [7]


# --- the PTO route: PTOAS's inserted sync, checked in the pto-cpp preview ----------------------

ROOT = Path(__file__).resolve().parents[2]
LOOP_SUM = (ROOT / "examples" / "loop_sum.py").read_text()
DROPPED = "wait_flag(PIPE_MTE2, PIPE_V"


def real_ptoas() -> Path | None:
    from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas

    try:
        return find_ptoas(None, "0.57")
    except PtoasMissing:
        if os.environ.get("CI") == "true":
            raise
        return None


def fake_ptoas_env() -> dict[str, str]:
    """The environment of a server whose PTOAS deletes the first ``wait_flag(PIPE_MTE2,
    PIPE_V, ...)`` of the C++ it writes (and counts its runs in ``runs``)."""
    env = dict(os.environ)
    real = real_ptoas()
    if real is None:
        return env
    folder = Path(tempfile.mkdtemp(prefix="fake-ptoas-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    script = folder / "ptoas"
    script.write_text(
        "#!/bin/sh\n"
        f'echo run >> "{folder / "runs"}"\n'
        f'"{real}" "$@" || exit $?\n'
        'out=""; prev=""\n'
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        f'[ -n "$out" ] && sed -i "0,/{DROPPED}/{{/{DROPPED}/d}}" "$out"\n'
        "exit 0\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    env["PTOAS"] = str(script)
    return env


FAKE_ENV = fake_ptoas_env()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "ptols", "--stdio"], server_env=FAKE_ENV
    ),
)
async def broken_ptoas(lsp_client: LanguageClient, tmp_path: Path):
    """A server whose PTOAS leaves a wait out of the sync it inserts."""
    lsp_client.published = []  # type: ignore[attr-defined]
    features = lsp_client.protocol.fm._features
    stock = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams) -> Any:
        lsp_client.published.append(params)  # type: ignore[attr-defined]
        return stock(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record

    @lsp_client.feature("ptols/status")
    def _status(params: Any) -> None:
        pass

    @lsp_client.feature("ptols/previewChanged")
    def _changed(params: Any) -> None:
        pass

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: Any) -> None:
        pass

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: Any) -> None:
        pass

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


async def settled(client: LanguageClient, params: dict[str, object]) -> Any:
    for _ in range(150):
        result = await client.protocol.send_request_async("ptols/preview", params)
        if not getattr(result, "pending", False):
            return result
        await asyncio.sleep(0.2)
    raise TimeoutError("the preview stayed pending")


def statement_range(text: str, needle: str) -> tuple[int, int, int, int]:
    """The range of the one-line statement starting at ``needle``: to its line's end."""
    start = position_of(text, needle)
    line = text.split("\n")[start.line]
    return (start.line, start.character, start.line, len(line))


def as_tuple(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


async def test_pto_cpp_preview_reports_a_wait_ptoas_left_out(
    broken_ptoas: LanguageClient, tmp_path: Path
):
    if "PTOAS" not in FAKE_ENV or FAKE_ENV.get("PTOAS") == os.environ.get("PTOAS"):
        pytest.skip("PTOAS v0.57 is missing")
    runs = Path(FAKE_ENV["PTOAS"]).parent / "runs"
    uri = await open_document(broken_ptoas, tmp_path / "loop_sum.py", LOOP_SUM)
    request = {"textDocument": {"uri": uri}, "target": "pto-cpp", "function": "sum_row_blocks"}
    before = runs.read_text().count("run") if runs.exists() else 0
    result = await settled(broken_ptoas, request)
    assert "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)" in result.content
    assert DROPPED not in result.content  # the C++ shown is the C++ checked
    found = sorted((d.code, as_tuple(d.range)) for d in result.diagnostics)
    load = statement_range(LOOP_SUM, "rows: pl.Tile")
    add = statement_range(LOOP_SUM, "total: pl.Tile")
    carried = statement_range(LOOP_SUM, "acc_next = pl.yield_")
    # the set left without its wait (and set again around the back edge), on the load whose
    # work it signals; the add reads both loads unordered; the loop-carried tile is rewritten
    assert found == sorted(
        [("E412", load), ("E413", load), ("E410", add), ("E410", add), ("E410", carried)]
    ), result.diagnostics
    unmatched = next(d for d in result.diagnostics if d.code == "E412")
    assert unmatched.severity == 1
    assert unmatched.message == (
        "set_flag of MTE2→V event 0 is never waited for: no wait_flag of it follows on every path"
    )
    races = [d.message for d in result.diagnostics if d.code == "E410"]
    assert (
        "V reads Vec [0x2000, 0x4000), which MTE2 wrote at line 28, and no sync orders them "
        "(read after write): a MTE2→V set/wait pair is missing"
    ) in races
    # one PTOAS run made the C++ and gave the check its text: asking again runs none
    ran = runs.read_text().count("run") - before
    assert ran == 2  # `ptoas --version` (the MLIR's version) and the assembly
    again = await settled(broken_ptoas, request)
    assert again.diagnostics == result.diagnostics
    assert runs.read_text().count("run") - before == ran
    # the same findings are published on the kernel's lines with the document's diagnostics
    published = await published_with(broken_ptoas, uri, "E412")
    assert (
        sorted((d.code, as_tuple(d.range)) for d in published if str(d.code).startswith("E41"))
        == found
    )
    # an edit leaves them behind until a preview of the new version checks again
    change(broken_ptoas, uri, 2, LOOP_SUM + "\n")
    await wait_for_diagnostics(broken_ptoas, uri, 2)
    latest = [p for p in broken_ptoas.published if p.uri == uri][-1]  # type: ignore[attr-defined]
    assert latest.version == 2
    assert not [d for d in latest.diagnostics if str(d.code).startswith("E41")]


async def published_with(client: LanguageClient, uri: str, code: str) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20.0
    while loop.time() < deadline:
        for params in reversed(client.published):  # type: ignore[attr-defined]
            if params.uri == uri and any(d.code == code for d in params.diagnostics):
                return params.diagnostics
        await asyncio.sleep(0.01)
    raise TimeoutError(f"no {code} published")


async def test_pto_cpp_preview_of_a_normal_kernel_has_no_sync_finding(
    client: LanguageClient, tmp_path: Path
):
    if real_ptoas() is None:
        pytest.skip("PTOAS v0.57 is missing")
    uri = await open_document(client, tmp_path / "loop_sum.py", LOOP_SUM)
    for function in ("sum_row_blocks", None):
        result = await settled(
            client, {"textDocument": {"uri": uri}, "target": "pto-cpp", "function": function}
        )
        assert "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in result.content
        assert result.diagnostics == []
