"""The task graph over LSP (#28): ptols/taskGraph, the "Task graph" CodeLens, hover on a
TaskId, document symbols of scopes, go-to-definition from a submit's kernel, completion and
signature help of pl.submit, on task_mistakes.CLEAN."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsp_helpers import open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_lsp_hardware import plain, request, rng

from ptoc.frontend import analyze_source
from ptoc.graph import TaskGraph, function_graph

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
from task_mistakes import CLEAN, program  # noqa: E402

SOURCE = program(CLEAN)


async def test_task_graph_of_the_orchestration_function(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "t.py", SOURCE)
    found = plain(await request(client, "ptols/taskGraph", uri, function="main"))
    assert (found["version"], found["function"], found["message"]) == (1, "main", "")
    assert [
        (t["index"], t["kernel"], t["kind"], t["width"], t["taskId"], t["scope"], t["loops"])
        for t in found["tasks"]
    ] == [
        (0, "gate", "submit", "1", "ft", "manual", []),
        (1, "scale", "submit", "1", "t1", "manual", []),
        (2, "scale", "spmd_submit", "4", "t2", "manual", []),
    ]
    assert found["tasks"][0]["range"] == rng(35, 24, 35, 54)
    assert found["tasks"][0]["kernelRange"] == rng(6, 4, 14, 16)
    assert found["edges"] == [
        {"source": 0, "target": 1, "kind": "deps", "label": "ft"},
        {"source": 1, "target": 2, "kind": "deps", "label": "t1"},
        {"source": 0, "target": 2, "kind": "deps", "label": "ft"},
    ]
    missing = plain(await request(client, "ptols/taskGraph", uri, function="nope"))
    assert (missing["tasks"], missing["message"]) == ([], "no function 'nope'")


async def test_task_graph_lens_on_orchestration_functions(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "t.py", SOURCE)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    found: list[Any] = [
        (lens.range.start, lens.command.command, list(lens.command.arguments or []))
        for lens in lenses or []
        if lens.command is not None and lens.command.title == "Task graph"
    ]
    assert found == [(position_of(SOURCE, "main("), "ptols.showTaskGraph", [uri, "main"])]


async def test_hover_on_a_task_id_names_its_submit(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "t.py", SOURCE)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(SOURCE, "t1, ft]"))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.split("\n\n")[1:] == [
        "The TaskId of `pl.submit(self.scale, …)` at line 37"
    ]


async def test_definition_from_a_submit_argument_to_the_kernel(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "t.py", SOURCE)
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), position_of(SOURCE, "gate, x", offset=1)
        )
    )
    assert isinstance(location, list | types.Location)
    target = location[0] if isinstance(location, list) else location
    assert target.range.start == position_of(SOURCE, "gate(")


async def test_document_symbols_hold_the_scope(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "t.py", SOURCE)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    (program_symbol,) = symbols
    assert isinstance(program_symbol, types.DocumentSymbol)
    main = next(s for s in program_symbol.children or [] if s.name == "main")
    assert [(s.name, s.kind) for s in main.children or []] == [
        ("with pl.manual_scope()", types.SymbolKind.Namespace)
    ]


async def test_completion_and_signature_help_of_submit(client: LanguageClient, tmp_path: Path):
    text = SOURCE.replace("flags, ft = pl.submit(", "flags, ft = pl.sub(", 1)
    uri = await open_document(client, tmp_path / "t.py", text)
    items = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(uri), position_of(text, "sub(self.gate", offset=3)
        )
    )
    labels = [i.label for i in (items.items if isinstance(items, types.CompletionList) else items)]
    assert "submit" in labels and "spmd_submit" in labels
    uri = await open_document(client, tmp_path / "u.py", SOURCE)
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            types.TextDocumentIdentifier(uri), position_of(SOURCE, "self.gate, x", offset=5)
        )
    )
    assert help_ is not None
    assert help_.signatures[0].label.startswith("pl.submit(self.kernel, *args, deps=[...]")


async def test_completion_and_signature_help_of_array_ops(client: LanguageClient, tmp_path: Path):
    text = SOURCE.replace(
        "    with pl.manual_scope():\n",
        "    with pl.manual_scope():\n            tids = pl.array.create(4, pl.TASK_ID)\n",
    )
    uri = await open_document(client, tmp_path / "a.py", text)
    items = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(uri), position_of(text, "create(4", offset=0)
        )
    )
    labels = [i.label for i in (items.items if isinstance(items, types.CompletionList) else items)]
    assert {"create", "get_element", "update_element"} <= set(labels)
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            types.TextDocumentIdentifier(uri), position_of(text, "4, pl.TASK_ID", offset=1)
        )
    )
    assert help_ is not None
    assert help_.signatures[0].label.startswith("pl.array.create(extent")


JIT_NO_CALL = """import pypto.language as pl


@pl.jit
def stages(x: pl.Tensor, mid: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mid[:] = pl.add(x, x)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(mid, mid)
    return mid, out
"""


async def test_task_graph_of_a_jit_kernel_is_the_command_lines(
    client: LanguageClient, tmp_path: Path
):
    # no call gives the kernel shapes: both draw its program for every shape (function_graph)
    uri = await open_document(client, tmp_path / "j.py", JIT_NO_CALL)
    found = plain(await request(client, "ptols/taskGraph", uri, function="stages"))
    graph = function_graph(analyze_source(JIT_NO_CALL, str(tmp_path / "j.py")), "stages")
    assert isinstance(graph, TaskGraph)
    assert [(t["index"], t["kernel"], t["kind"]) for t in found["tasks"]] == [
        (0, "incore@6", "region"),
        (1, "incore@8", "region"),
    ]
    assert [(t.index, t.kernel, t.kind) for t in graph.tasks] == [
        (t["index"], t["kernel"], t["kind"]) for t in found["tasks"]
    ]
    assert found["edges"] == [e.to_json() for e in graph.edges]
    assert found["edges"] == [{"source": 0, "target": 1, "kind": "data", "label": "mid"}]
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert [
        list(lens.command.arguments or [])
        for lens in lenses or []
        if lens.command is not None and lens.command.title == "Task graph"
    ] == [[uri, "stages"]]


async def test_a_task_of_a_kernel_imported_from_the_folder_reveals_the_function(
    client: LanguageClient, tmp_path: Path
):
    """A region of an @pl.jit.inline kernel of kernels/norm.py is a task of the entry; its
    place is in that file, so the click reveals the entry function here, never that file's
    line numbers in this document."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
    from test_sibling_imports import ENTRY, package

    entry = package(tmp_path, "norm")
    uri = await open_document(client, entry, ENTRY.format(imported="norm"))
    found = plain(await request(client, "ptols/taskGraph", uri, function="entry"))
    assert [(t["kernel"], t["range"]) for t in found["tasks"]] == [
        ("norm", rng(7, 0, 11, 14)),  # the entry function (decorator to its return)
        ("tail", rng(9, 4, 10, 63)),
    ]


async def test_a_task_in_a_loop_drawn_once_notes_how_often_it_runs(
    client: LanguageClient, tmp_path: Path
):
    body = """
n = pl.tensor.read(flags, [0, 0])
for i in pl.range(n):
    out = self.scale(x, out)
return out
"""
    uri = await open_document(client, tmp_path / "t.py", program(body))
    found = plain(await request(client, "ptols/taskGraph", uri, function="main"))
    assert [(t["kernel"], t["loops"], t["notes"], t["cluster"]) for t in found["tasks"]] == [
        ("scale", ["range(n)"], ["range(n): runs n times at run time"], 0)
    ]
    # the loop itself, which the view draws as a box around its tasks
    assert found["clusters"] == [
        {"index": 0, "label": "range(n)", "note": "runs n times at run time", "parent": None}
    ]


async def test_definition_of_a_kernel_imported_from_the_folder_is_in_its_file(
    client: LanguageClient, tmp_path: Path
):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
    from test_sibling_imports import ENTRY, package

    entry = package(tmp_path, "norm")
    text = ENTRY.format(imported="norm")
    uri = await open_document(client, entry, text)
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position_of(text, "norm(x", 1))
    )
    assert location.uri == (tmp_path / "kernels" / "norm.py").resolve().as_uri()
    assert location.range.start == types.Position(9, 0)  # its def, line 10
