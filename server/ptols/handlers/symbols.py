"""Document and workspace symbols, computed on the syntax thread within a time budget."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from ..optional import has_tree_sitter
from .common import features, pypto_document

if TYPE_CHECKING:
    from ..server import PtolsServer

SYMBOLS_BUDGET = 0.7


async def document_symbol(
    ls: PtolsServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | None:
    doc = pypto_document(ls, params.text_document.uri)
    if doc is None:
        return None
    try:
        return await asyncio.wait_for(asyncio.shield(ls.symbols_job(doc)), SYMBOLS_BUDGET)
    except TimeoutError:
        return None  # still parsing: asking again for the same text takes the result


async def workspace_symbol(
    ls: PtolsServer, params: types.WorkspaceSymbolParams
) -> list[types.WorkspaceSymbol]:
    from pygls.uris import to_fs_path

    loop = asyncio.get_running_loop()
    deadline = loop.time() + SYMBOLS_BUDGET
    open_docs: dict[str, list[types.DocumentSymbol]] = {}
    for d in ls.store:
        # Without tree-sitter open documents have no symbols: the scan below reads them from disk.
        if not d.is_pypto or not has_tree_sitter():
            continue
        try:
            found = await asyncio.wait_for(
                asyncio.shield(ls.symbols_job(d)), max(deadline - loop.time(), 0.01)
            )
        except TimeoutError:
            continue
        open_docs[d.uri] = found or []
    folders = [path for folder in ls.workspace.folders.values() if (path := to_fs_path(folder.uri))]
    scan = loop.run_in_executor(
        ls.syntax_pool, features.symbols.workspace_symbols, params.query, open_docs, folders
    )
    try:
        return await asyncio.wait_for(scan, max(deadline - loop.time(), 0.2))
    except TimeoutError:
        return features.symbols.workspace_symbols(params.query, open_docs, [])
