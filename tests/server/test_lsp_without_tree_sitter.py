"""ptols without tree-sitter (the VS Code extension's bundle runs on an interpreter that may
lack it): no document symbols and a warning in the log, everything else as usual."""

from __future__ import annotations

import sys
from pathlib import Path

from raw_lsp import RawServer

# tree-sitter's modules set to None in sys.modules: importing them fails and find_spec says
# they are absent, as on an interpreter that never had them.
WITHOUT_TREE_SITTER = (
    sys.executable,
    "-c",
    "import runpy, sys\n"
    "sys.modules['tree_sitter'] = sys.modules['tree_sitter_python'] = None\n"
    "runpy.run_module('ptols', run_name='__main__', alter_sys=True)",
)

KERNEL = """import pypto.language as pl


@pl.function
def kernel(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    tile = pl.load(a, [0, 0], [64, 64])
    bad = pl.add(tile, missing)
    return pl.store(tile, [0, 0], [64, 64], a)
"""


def test_server_without_tree_sitter_has_no_symbols_and_says_why(tmp_path: Path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text(KERNEL)
    uri = kernel.as_uri()
    server = RawServer(tmp_path, command=WITHOUT_TREE_SITTER)
    try:
        folder = {"uri": tmp_path.as_uri(), "name": "kernels"}
        server.request(
            0,
            "initialize",
            {
                "processId": None,
                "rootUri": folder["uri"],
                "workspaceFolders": [folder],
                "capabilities": {},
            },
        )
        assert "result" in server.response(0)
        server.notify("initialized", {})
        warning = server.first(lambda m: m.get("method") == "window/logMessage", 20)
        assert warning["params"]["type"] == 2
        assert warning["params"]["message"].startswith("tree-sitter is not installed")
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": KERNEL}},
        )
        [diagnostic] = server.diagnostics(uri, 1)
        assert (diagnostic["code"], diagnostic["message"]) == (
            "E200",
            "Undefined variable 'missing'",
        )
        server.request(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        assert server.response(1) == {"jsonrpc": "2.0", "id": 1, "result": None}
        server.request(2, "workspace/symbol", {"query": "kern"})
        [symbol] = server.response(2)["result"]
        assert (symbol["name"], symbol["location"]["uri"]) == ("kernel", uri)
        position = {"line": 5, "character": 5}
        server.request(
            3, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
        )
        hover = server.response(3)["result"]["contents"]["value"]
        assert "(variable) tile: pl.Tile[[64, 64], pl.FP32]" in hover
        # folding and selection ranges come from the tree-sitter tree: none (the folding
        # module failed to import, an internal error the editor showed on every open)
        server.request(5, "textDocument/foldingRange", {"textDocument": {"uri": uri}})
        assert server.response(5) == {"jsonrpc": "2.0", "id": 5, "result": None}
        selection = {"textDocument": {"uri": uri}, "positions": [position]}
        server.request(6, "textDocument/selectionRange", selection)
        assert server.response(6) == {"jsonrpc": "2.0", "id": 6, "result": None}
        server.request(4, "shutdown", None)
        server.response(4)
        server.notify("exit", None)
        assert server.wait(10) == 0
        assert b"Traceback" not in server.error_output()
    finally:
        server.close()
