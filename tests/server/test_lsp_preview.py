"""The ptols/preview, ptols/passes requests and ptols/previewChanged, against `ptoc compile`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsp_helpers import KERNEL, analysed, change, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptoc.driver import compile_file, compile_source
from ptoc.frontend import analyze_source
from ptols.config import Settings
from ptols.features import preview


async def test_preview_targets_and_refresh_notification(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    for target, language, needle in [
        ("cce", "cpp", "TADD(tile_c, tile_a, tile_b);"),
        ("pto", "mlir", "pto.tadd"),
        ("ir", "python", "pl.block.add(tile_a, tile_b)"),
    ]:
        result = await settled_preview(
            client, {"textDocument": {"uri": uri}, "target": target, "function": "kernel"}
        )
        assert result.language == language, target
        assert needle in result.content, (target, result.content)
        assert result.version == 1
    changes_before = len(client.preview_changes)  # type: ignore[attr-defined]
    edited = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.mul(tile_a, tile_b)")
    change(client, uri, 2, edited)
    await wait_for_diagnostics(client, uri, 2)
    for _ in range(100):
        if len(client.preview_changes) > changes_before:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.01)
    assert client.preview_changes[-1].version == 2  # type: ignore[attr-defined]
    result = await settled_preview(
        client, {"textDocument": {"uri": uri}, "target": "cce", "function": "kernel"}
    )
    assert "TMUL(tile_c, tile_a, tile_b);" in result.content and result.version == 2


async def test_pto_preview_uses_the_ptoas_pipeline_like_ptoc_compile(
    client: LanguageClient, tmp_path: Path
):
    path = tmp_path / "k.py"
    uri = await open_document(client, path, KERNEL)
    request = {"textDocument": {"uri": uri}, "target": "pto", "function": "kernel"}
    result = await client.protocol.send_request_async("ptols/preview", request)
    assert "pto.tadd" in result.content and "set_flag" not in result.content
    assert result.content == compile_file(str(path), "pto", "kernel").text
    pinned = await client.protocol.send_request_async(
        "ptols/preview", {**request, "pipeline": "default"}
    )
    assert "pto.set_flag" in pinned.content and "pto.wait_flag" in pinned.content


def test_the_pipeline_setting_is_optional() -> None:
    assert Settings().pipeline is None
    assert Settings.from_client({"pipeline": "auto"}).pipeline is None  # VS Code's default
    assert Settings.from_client({"pipeline": "ptoas"}).pipeline == "ptoas"


async def test_preview_shows_errors_instead_of_stale_code(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.add(tile_a, nope)")
    uri = await open_document(client, tmp_path / "k.py", text)
    result = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "cce"}
    )
    assert result.content == ""
    assert [d.code for d in result.diagnostics] == ["E200"]


async def test_preview_after_a_pass_and_pass_list(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    passes = await client.protocol.send_request_async("ptols/passes", {})
    names = [p.name for p in passes.passes]
    assert "InitMemRef" in names and "InsertSync" in passes.pipelines.default
    result = await client.protocol.send_request_async(
        "ptols/preview",
        {"textDocument": {"uri": uri}, "target": "pass:InitMemRef", "function": "kernel"},
    )
    assert "pl.MemRef(" in result.content
    functions = await client.protocol.send_request_async(
        "ptols/functions", {"textDocument": {"uri": uri}}
    )
    assert [f.name for f in functions.functions] == ["kernel", "main"]


async def test_handler_errors_are_answered_and_the_server_keeps_serving(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    try:
        await client.protocol.send_request_async(
            "ptols/preview", {"textDocument": {"uri": "file:///not/open.py"}, "target": "cce"}
        )
        raised = False
    except Exception as error:  # answered as an LSP error
        raised = "not open" in str(error)
    assert raised
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "tile_c = "))
    )
    assert hover is not None


def _require_ptoas() -> None:
    import os

    import pytest

    from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas

    try:
        find_ptoas()
    except PtoasMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS is missing: {exc}")
        pytest.skip(str(exc))


def rejected_kernels() -> Any:
    """tests/ptoas/kernels_rejected.py: kernels ptoc compiles and PTOAS rejects."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "ptoas" / "kernels_rejected.py"
    spec = importlib.util.spec_from_file_location("kernels_rejected", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_pto_preview_keeps_the_mlir_ptoas_v027_would_crash_on(
    client: LanguageClient, tmp_path: Path
):
    import pytest

    from ptoc.codegen.pto.ptoas_known import version
    from ptoc.driver import available_ptoas

    _require_ptoas()
    chosen = available_ptoas()
    if chosen is None or version(chosen) != (0, 27):
        pytest.skip(f"the server's PTOAS ({chosen}) is not v0.27")
    # a row loop storing into a loop-carried output tensor (row softmax, layer norm, GEMM tiles)
    kernels = rejected_kernels()
    text = kernels.ROW_LOOP
    uri = await open_document(client, tmp_path / "rows.py", text)
    result = await settled_preview(client, {"textDocument": {"uri": uri}, "target": "pto"})
    assert result.content == compile_source(text, "pto").text != ""
    (diagnostic,) = result.diagnostics
    assert (diagnostic.code, diagnostic.message) == ("E405", kernels.ROW_LOOP_MESSAGE)
    start = position_of(text, "for i, (o,)")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (
        start.line,
        start.character,
    )


async def settled_preview(client: LanguageClient, params: dict[str, object]) -> Any:
    """The preview, asked again while it is still compiling (a loaded machine can take longer
    than the request's budget: the answer is then `pending`, and a later one is complete)."""
    for _ in range(100):
        result = await client.protocol.send_request_async("ptols/preview", params)
        if not getattr(result, "pending", False):
            return result
        await asyncio.sleep(0.2)
    raise TimeoutError("the preview stayed pending")


async def test_pto_preview_shows_what_ptoas_rejects_and_pto_cpp_what_it_makes(
    client: LanguageClient, tmp_path: Path
):
    _require_ptoas()
    # a limit ptoc does not model (PTOAS's A2/A3 tcolsum takes no INT8)
    text = (
        KERNEL.replace("pl.FP32", "pl.INT8")
        .replace("pl.add(tile_a, tile_b)", "pl.block.sum(tile_a, axis=0, keepdim=True)")
        .replace(
            "pl.store(tile_c, [0, 0], [64, 64], out)", "pl.store(tile_c, [0, 0], [1, 64], out)"
        )
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    result = await settled_preview(
        client, {"textDocument": {"uri": uri}, "target": "pto", "function": "kernel"}
    )
    # the MLIR stays (what `ptoc compile --target pto` prints), PTOAS's verdict beside it
    assert result.content == compile_source(text, "pto", "kernel").text != ""
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "E405"
    assert diagnostic.message.startswith(
        "PTOAS: 'pto.tcolsum' op expects A2/A3 tcolsum element type to be f16/f32/i16/i32"
    )
    start = position_of(text, "tile_c = pl.block.sum")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (
        start.line,
        start.character,
    )
    gone = await settled_preview(
        client, {"textDocument": {"uri": uri}, "target": "pto-cpp", "function": "kernel"}
    )
    assert (gone.content, [d.code for d in gone.diagnostics]) == ("", ["E405"])  # no C++ made
    good = await open_document(client, tmp_path / "good.py", KERNEL)
    cpp = await settled_preview(
        client, {"textDocument": {"uri": good}, "target": "pto-cpp", "function": "kernel"}
    )
    assert cpp.language == "cpp"
    assert "__global__ AICORE void kernel(" in cpp.content and "  TADD(" in cpp.content


# --- ptols.features.preview called directly, without a client ------------------------------------


def test_preview_module_names_a_request_s_mistake():
    a = analysed()
    assert preview.request_problem(a.analysis, "cce", "kernel") is None
    assert preview.request_problem(a.analysis, "cce", "kernal") == (
        "no function 'kernal' in this document; did you mean 'kernel'?"
    )
    assert preview.request_problem(a.analysis, "nope", None).startswith(
        "unknown target 'nope' (known: cce, pto, pto-cpp, ir, pass:"
    )


def test_a_jit_kernel_whose_only_call_fails_is_not_said_to_be_missing():
    """#33: ptols/functions lists the kernel, so a request for it is not told the document
    "defines none" (the hostile 2000-parameter signature in 2026-03 met this)."""
    source = (
        "import pypto.language as pl\nimport torch\n\n\n@pl.jit\n"
        "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], c)\n    return c\n\n\n"
        'if __name__ == "__main__":\n    k(torch.zeros(1, 16), torch.zeros(16, 16))\n'
    )
    analysis = analyze_source(source, "k.py")
    assert [d.code for d in analysis.diagnostics] == ["E209"]
    assert preview.request_problem(analysis, "cce", "k") == (
        "the @pl.jit function 'k' has no specialisation to show: no call in the file "
        "specialises it without an error (see the document's diagnostics)"
    )
    assert preview.request_problem(analysis, "cce", "kk") == (
        "no function 'kk' in this document (it defines none)"
    )


def test_preview_module_gives_the_driver_s_text(tmp_path: Path):
    a = analysed()
    path = tmp_path / "k.py"
    path.write_text(a.text)
    result = preview.compile_preview(a.analysis, "ir", "kernel", None)
    assert (result.language, result.diagnostics) == ("python", [])
    assert result.content == compile_file(str(path), "ir", "kernel").text
