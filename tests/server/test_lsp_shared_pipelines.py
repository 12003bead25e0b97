"""A preview and the hardware view's facts of the same version run the pipeline once between
them (ptols/pipelines.py); an edited function runs it again, so no answer shows old code."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from lsp_helpers import KERNEL
from raw_lsp import RawServer

# What SharedPipelines logs each time it runs a pipeline (instead of handing out a result).
KERNEL_RUN = re.compile(r"pipeline default of kernel: computed$", re.MULTILINE)


def open_kernel(server: RawServer, uri: str, version: int, text: str) -> None:
    if version == 1:
        item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        server.notify("textDocument/didOpen", {"textDocument": item})
    else:
        server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
    server.diagnostics(uri, version)


def preview_and_memory_map(server: RawServer, uri: str, first_id: int) -> tuple[Any, Any]:
    """ptols/sourceMap (a CCE preview of `kernel`, waited for) and ptols/memoryMap (the facts)
    of `kernel`, asked together."""
    document = {"textDocument": {"uri": uri}}
    server.request(first_id, "ptols/sourceMap", {**document, "target": "cce", "function": "kernel"})
    server.request(first_id + 1, "ptols/memoryMap", {**document, "function": "kernel"})
    return server.response(first_id)["result"], server.response(first_id + 1)["result"]


def test_a_preview_and_the_facts_of_one_version_run_the_pipeline_once(tmp_path: Path) -> None:
    log = tmp_path / "ptols.log"
    server = RawServer(tmp_path, ("--log-file", str(log), "--log-level", "DEBUG"))
    try:
        server.initialize(tmp_path)
        uri = (tmp_path / "k.py").as_uri()
        open_kernel(server, uri, 1, KERNEL)
        preview, memory = preview_and_memory_map(server, uri, 1)
        assert "TADD(tile_c, tile_a, tile_b);" in preview["content"]
        assert [b["name"] for b in memory["functions"][0]["buffers"]] == [
            "tile_a",
            "tile_b",
            "tile_c",
        ]
        time.sleep(1.0)  # the idle work (buffer hovers) also lowers `kernel`: shared too
        assert len(KERNEL_RUN.findall(log.read_text())) == 1

        edited = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.mul(tile_a, tile_b)")
        open_kernel(server, uri, 2, edited)
        preview, memory = preview_and_memory_map(server, uri, 3)
        assert "TMUL(tile_c, tile_a, tile_b);" in preview["content"]
        assert "TADD" not in preview["content"]
        assert memory["version"] == 2
        time.sleep(1.0)
        assert len(KERNEL_RUN.findall(log.read_text())) == 2
        server.request(9, "shutdown", None)
        server.response(9)
        server.notify("exit", None)
        assert server.wait(30) == 0
    finally:
        server.close()
