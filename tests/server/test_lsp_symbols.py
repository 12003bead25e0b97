"""Document and workspace symbols, also on broken code."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features.symbols import document_symbols
from ptols.syntax import SyntaxTree


async def test_document_and_workspace_symbols(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "        return result\n",
        "        for i in pl.range(4):\n            k = i\n        return result\n",
        1,
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    (program,) = symbols
    assert program.name == "Demo" and program.kind == types.SymbolKind.Module
    assert [c.name for c in program.children] == ["kernel", "main"]
    assert program.children[0].children[0].name.startswith("for i in pl.range(4)")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="kern"))
    assert [s.name for s in found] == ["kernel"]


async def test_symbols_survive_broken_code(client: LanguageClient, tmp_path: Path):
    broken = KERNEL.replace("tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.add(tile_a, ")
    uri = await open_document(client, tmp_path / "k.py", broken)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    names = [c.name for c in symbols[0].children]
    assert "main" in names


# --- ptols.features.symbols called directly, without a client ------------------------------------


def test_symbols_module_nests_functions_in_their_program():
    a = analysed()
    found = document_symbols(SyntaxTree.parse(a.text), a.positions)
    assert [(s.name, s.kind) for s in found] == [("Demo", types.SymbolKind.Module)]
    assert [(s.name, s.kind) for s in found[0].children or []] == [
        ("kernel", types.SymbolKind.Method),
        ("main", types.SymbolKind.Method),
    ]
