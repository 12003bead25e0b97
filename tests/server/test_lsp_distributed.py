"""Distributed programs and cross-core pipes in the editor, over a real LSP round trip: hover on
a DistributedTensor names its window buffer, completion after ``pld.`` / ``pld.tensor.`` /
``pl.system.``, signature help for ``pld.*`` calls, and the rules' diagnostics published."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

RING = """\
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def shift(x: pl.Tensor[[1, 64], pl.FP32], data: pld.DistributedTensor[[1, 64], pl.FP32]):
    ctx = pld.get_comm_ctx(data)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    got = pld.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, 64])
    x = pl.store(got, [0, 0], x)
    return x


@pl.jit.host
def ring(x: pl.Tensor[[2, 1, 64], pl.FP32]):
    data_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
        shift(x[r], data, device=r)
"""


async def hover_text(client: LanguageClient, uri: str, position: types.Position) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position)
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def labels(client: LanguageClient, uri: str, position: types.Position) -> set[str]:
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position)
    )
    assert items is not None
    found = items.items if isinstance(items, types.CompletionList) else items
    return {item.label for item in found}


async def test_the_ring_checks_clean(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "ring.py"
    path.write_text(RING)
    uri = await open_document(client, path, RING)
    assert list(await wait_for_diagnostics(client, uri, 1)) == []


async def test_hover_on_a_distributed_tensor_names_its_window_buffer(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = await open_document(client, tmp_path / "ring.py", RING)
    text = await hover_text(client, uri, position_of(RING, "data = pld.window"))
    assert "(variable) data: pld.DistributedTensor[[1, 64], pl.FP32]" in text
    assert "a view of this rank's slice of window buffer `data_buf`" in text
    text = await hover_text(client, uri, position_of(RING, "data: pld.Distributed"))
    assert "a view of this rank's slice of a window buffer of the caller" in text
    text = await hover_text(client, uri, position_of(RING, "window(", 1))
    assert "pld.tensor.window(buf, shape, dtype)" in text
    assert "**Result here:** `pld.DistributedTensor[[1, 64], pl.FP32]`" in text
    text = await hover_text(client, uri, position_of(RING, "remote_load", 1))
    assert "**Result here:** `pl.Tile[[1, 64], pl.FP32]`" in text


async def test_completion_after_pld_and_its_groups(client: LanguageClient, tmp_path: Path) -> None:
    text = RING.replace("    return x\n", "    y = pld.\n    z = pld.tensor.\n    pl.system.\n", 1)
    text = text.replace("    return x\n", "    return x\n", 1)
    uri = await open_document(client, tmp_path / "ring.py", text)
    short = await labels(client, uri, position_of(text, "y = pld.", len("y = pld.")))
    assert {"window", "remote_load", "world_size", "rank", "tensor", "system", "tile"} <= short
    assert {"NotifyOp", "DistributedTensor"} <= short
    assert "allreduce" not in short  # (no short form: pld.tensor.allreduce)
    group = await labels(client, uri, position_of(text, "pld.tensor.", len("pld.tensor.")))
    assert {"allreduce", "barrier", "put", "get", "window", "all_to_all_v"} <= group
    system = await labels(client, uri, position_of(text, "pl.system.", len("pl.system.")))
    assert {"sync_set", "sync_wait", "syncall", "tpush_to_aiv", "aic_initialize_pipe"} <= system


async def test_signature_help_for_a_pld_call(client: LanguageClient, tmp_path: Path) -> None:
    text = RING.replace("    return x\n", "    g = pld.remote_load(data, \n    return x\n", 1)
    uri = await open_document(client, tmp_path / "ring.py", text)
    position = position_of(text, "pld.remote_load(data, ", len("pld.remote_load(data, "))
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(types.TextDocumentIdentifier(uri), position)
    )
    assert help_ is not None
    assert help_.signatures[0].label.startswith("pld.remote_load(target, peer, offsets, shape")
    assert help_.active_parameter == 1


async def test_a_rule_is_published_at_its_range(client: LanguageClient, tmp_path: Path) -> None:
    text = RING.replace(
        "    ctx = pld.get_comm_ctx(data)\n",
        "    n = pld.world_size()\n    ctx = pld.get_comm_ctx(data)\n",
    )
    uri = await open_document(client, tmp_path / "ring.py", text)
    diagnostics = await wait_for_diagnostics(client, uri, 1)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics] == [
        ("E232", 6, 8)
    ]
    assert diagnostics[0].message.startswith("pld.world_size() is only known in a HOST")
