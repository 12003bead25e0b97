"""Completion and completion item resolve."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import KERNEL, analysed, change, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features import completion


async def labels_at(client: LanguageClient, uri: str, position: types.Position) -> set[str]:
    """The labels of the completion items the server offers at ``position``."""
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position)
    )
    assert items is not None
    return {
        item.label for item in (items.items if isinstance(items, types.CompletionList) else items)
    }


async def test_completion_after_prefix_namespaces_and_keywords(
    client: LanguageClient, tmp_path: Path
):
    text = KERNEL.replace("        return result\n", "        x = pl.\n        return result\n", 1)
    uri = await open_document(client, tmp_path / "k.py", text)
    labels = await labels_at(client, uri, position_of(text, "x = pl.", 7))
    assert {
        "load",
        "store",
        "add",
        "matmul",
        "range",
        "yield_",
        "Tensor",
        "FP32",
        "block",
        "MemorySpace",
    } <= labels
    version = 2
    for typed, expected, absent in [
        ("pl.block.", "row_sum", "create_tensor"),
        ("pl.tensor.", "create_tensor", "load"),
        ("pl.MemorySpace.", "Mat", "load"),
    ]:
        new = text.replace("x = pl.\n", f"x = {typed}\n")
        change(client, uri, version, new)
        await wait_for_diagnostics(client, uri, version)
        pos = position_of(new, f"x = {typed}", 4 + len(typed))
        got = await labels_at(client, uri, pos)
        assert expected in got and absent not in got, typed
        version += 1
    call = text.replace("x = pl.\n", "x = pl.load(a, [0, 0], [64, 64], \n")
    change(client, uri, version, call)
    await asyncio.sleep(0.05)
    pos = position_of(call, "[64, 64], \n", 10)
    got = await labels_at(client, uri, pos)
    assert "target_memory=" in got
    assert "tile_a" in got  # names in scope


async def test_self_completion_lists_program_functions(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "r = self.kernel(a, b, out)", "r = self.kernel(a, b, out)\n        q = self."
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    pos = position_of(text, "q = self.", 9)
    got = await labels_at(client, uri, pos)
    assert {"kernel", "main"} <= got


async def test_completion_item_docs_arrive_on_resolve(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace("        return result\n", "        x = pl.\n        return result\n", 1)
    uri = await open_document(client, tmp_path / "k.py", text)
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position_of(text, "x = pl.", 7))
    )
    load = next(i for i in items.items if i.label == "load")
    assert load.documentation is None
    resolved = await client.completion_item_resolve_async(load)
    assert "pl.block.load(tensor, offsets, shapes" in resolved.documentation.value


# --- ptols.features.completion called directly, without a client ---------------------------------


def test_completion_module_lists_ops_after_the_prefix_and_resolves_their_docs():
    a = analysed()
    offset = a.offset("pl.add(", 3)  # just after "pl."
    line, column = a.at("pl.add(", 3)
    found = completion.complete(a.text, offset, line, column, a.analysis)
    assert found is not None
    add = next(item for item in found.items if item.label == "add")
    assert add.documentation is None  # filled in on resolve
    resolved = completion.resolve(add)
    assert isinstance(resolved.documentation, types.MarkupContent)
    assert resolved.documentation.value.startswith("```python\npl.block.add(lhs, rhs)\n```")


def test_completion_module_offers_nothing_in_a_comment():
    text = KERNEL + "# pl."
    a = analysed(text)
    assert completion.complete(text, len(text), text.count("\n") + 1, 5, a.analysis) is None
