"""Hand-written synchronisation checked live: the sync checker's findings on a function that
holds its own sync statements are published with the back end's diagnostics."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

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
