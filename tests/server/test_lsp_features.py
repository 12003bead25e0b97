"""End-to-end LSP round trips against the real server process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import KERNEL, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptoc.cli import main
from ptoc.driver import compile_file
from ptols.config import Settings


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


async def test_clean_kernel_has_no_diagnostics(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    assert len(await wait_for_diagnostics(client, uri, 1)) == 0


async def test_type_error_has_exact_range_code_and_link(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_b = pl.load(b, [0, 0], [64, 64])", "tile_b = pl.load(b, [0, 0], [32, 32])"
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert diagnostic.code == "E307"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    start = position_of(text, "pl.add(tile_a, tile_b)")
    assert diagnostic.range.start.line == start.line
    assert diagnostic.code_description is not None and diagnostic.code_description.href.endswith(
        "#e307"
    )
    assert diagnostic.source == "ptoc"


async def test_plain_python_file_gets_nothing(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "plain.py", "def f(x):\n    return x +\n")
    assert len(client.diagnostics[uri]) == 0
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 4))
    )
    assert hover is None


async def test_keystroke_edits_track_the_text(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    typed = "tile_c = pl.add(tile_a, tile_b)"
    broken = KERNEL.replace(typed, "tile_c = pl.add(tile_a, tile_q)")
    # type a wrong name one keystroke at a time, then fix it: the last diagnostics match the text
    versions = []
    version = 1
    for end in range(len("tile_q")):
        version += 1
        partial = KERNEL.replace(typed, "tile_c = pl.add(tile_a, " + "tile_q"[: end + 1] + ")")
        change(client, uri, version, partial)
        versions.append(version)
    final = await wait_for_diagnostics(client, uri, version)
    assert [d.code for d in final] == ["E200"]
    assert final[0].message.startswith("Undefined variable 'tile_q'")
    assert broken  # the last partial text is the broken kernel
    version += 1
    change(client, uri, version, KERNEL)
    assert len(await wait_for_diagnostics(client, uri, version)) == 0
    # diagnostics are only ever published for the version they were computed for, in order
    published = [p.version for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert published == sorted(published)


async def test_stale_versions_are_dropped(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    for version in range(2, 30):
        change(client, uri, version, KERNEL + f"\n# edit {version}\n")
    await wait_for_diagnostics(client, uri, 29)
    published = [p.version for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert published[-1] == 29
    assert len(published) < 29  # intermediate versions were superseded, not all analysed


async def test_hover_variable_shows_deduced_type(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "tile_c = ", 2))
    )
    assert hover is not None
    assert "(variable) tile_c: pl.Tile[[64, 64], pl.FP32]" in hover.contents.value


async def test_hover_op_shows_signature_rule_and_lowering(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "pl.add", 4))
    )
    assert hover is not None
    text = hover.contents.value
    assert "pl.block.add(lhs, rhs)" in text
    assert "CCE: `TADD (row vector rhs: TROWEXPANDADD; column vector rhs: TCOLEXPANDADD)`" in text
    assert "PTO: `pto.tadd (row vector rhs: pto.trowexpandadd;" in text
    assert "Role: `elementwise` · Pipe: `V` · Scalar form: `block.adds`" in text
    assert "- `lhs`: Left tile operand _(in Vec)_" in text
    assert "Tile[[64, 64], FP32]" in text or "pl.Tile[[64, 64], pl.FP32]" in text


async def test_definition_of_variable_function_and_op(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), position_of(KERNEL, "tile_a, tile_b)", 1)
        )
    )
    assert location.uri == uri and location.range.start == position_of(KERNEL, "tile_a = ")
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), position_of(KERNEL, "kernel(a, b, out)", 1)
        )
    )
    assert location.range.start == position_of(KERNEL, "kernel(\n")
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position_of(KERNEL, "pl.add", 4))
    )
    assert location.uri.endswith("/ptoc/ops/block.py")
    source = (
        Path(location.uri.removeprefix("file://"))
        .read_text()
        .splitlines()[location.range.start.line]
    )
    assert "add" in source


async def test_references_and_rename(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=position_of(KERNEL, "tile_a = "),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert len(refs) == 2
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=position_of(KERNEL, "tile_a = "),
            new_name="left",
        )
    )
    assert len(edit.changes[uri]) == 2 and all(e.new_text == "left" for e in edit.changes[uri])
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=position_of(KERNEL, "kernel(\n"),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert len(refs) == 2  # the def and the self.kernel call


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


async def test_completion_after_prefix_namespaces_and_keywords(
    client: LanguageClient, tmp_path: Path
):
    text = KERNEL.replace("        return result\n", "        x = pl.\n        return result\n", 1)
    uri = await open_document(client, tmp_path / "k.py", text)
    position = position_of(text, "x = pl.", 7)
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position)
    )
    labels = {i.label for i in items.items}
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
        got = {
            i.label
            for i in (
                await client.text_document_completion_async(
                    types.CompletionParams(types.TextDocumentIdentifier(uri), pos)
                )
            ).items
        }
        assert expected in got and absent not in got, typed
        version += 1
    call = text.replace("x = pl.\n", "x = pl.load(a, [0, 0], [64, 64], \n")
    change(client, uri, version, call)
    await asyncio.sleep(0.05)
    pos = position_of(call, "[64, 64], \n", 10)
    got = {
        i.label
        for i in (
            await client.text_document_completion_async(
                types.CompletionParams(types.TextDocumentIdentifier(uri), pos)
            )
        ).items
    }
    assert "target_memory=" in got
    assert "tile_a" in got  # names in scope


async def test_self_completion_lists_program_functions(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "r = self.kernel(a, b, out)", "r = self.kernel(a, b, out)\n        q = self."
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    pos = position_of(text, "q = self.", 9)
    got = {
        i.label
        for i in (
            await client.text_document_completion_async(
                types.CompletionParams(types.TextDocumentIdentifier(uri), pos)
            )
        ).items
    }
    assert {"kernel", "main"} <= got


async def test_signature_help_for_op_call(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_c = pl.add(tile_a, tile_b)",
        "tile_c = pl.add(tile_a, tile_b)\n        s = pl.load(a, [0, 0], ",
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    pos = position_of(text, "pl.load(a, [0, 0], ", len("pl.load(a, [0, 0], "))
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(types.TextDocumentIdentifier(uri), pos)
    )
    assert help_ is not None
    signature = help_.signatures[0]
    assert signature.label.startswith("pl.load(tensor, offsets, shapes")
    assert help_.active_parameter == 2


async def test_inlay_hints_for_unannotated_assignments(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    lines = KERNEL.count("\n")
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(0, 0), types.Position(lines, 0)),
        )
    )
    labels = {(h.position.line, h.label) for h in hints}
    assert (position_of(KERNEL, "tile_c = ").line, ": pl.Tile[[64, 64], pl.FP32]") in labels
    assert (position_of(KERNEL, "result = ").line, ": pl.Tensor[[64, 64], pl.FP32]") in labels


async def test_code_actions_offer_the_compiler_fixes(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace("tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.ad(tile_a, tile_b)")
    uri = await open_document(client, tmp_path / "k.py", text)
    diagnostics = await wait_for_diagnostics(client, uri, 1)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=list(diagnostics)),
        )
    )
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.title == "Change to `add`" and fix.is_preferred
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "add"


async def test_code_action_adds_annotation(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    pos = position_of(KERNEL, "tile_c = ")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(pos, pos),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions]
    assert "Add type annotation `pl.Tile[[64, 64], pl.FP32]`" in titles


async def test_seed_yield_spelling_quick_fix(client: LanguageClient, tmp_path: Path):
    text = """import pypto.language as pl

@pl.function
def f(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
    for i, (s,) in pl.range(n, init_values=(n,)):
        s2 = pl.yield(s + i)
    return s2
"""
    uri = await open_document(client, tmp_path / "y.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert diagnostic.code == "E008"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert actions[0].edit.changes[uri][0].new_text == "yield_"


async def test_preview_targets_and_refresh_notification(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    for target, language, needle in [
        ("cce", "cpp", "TADD(tile_c, tile_a, tile_b);"),
        ("pto", "mlir", "pto.tadd"),
        ("ir", "python", "pl.block.add(tile_a, tile_b)"),
    ]:
        result = await client.protocol.send_request_async(
            "ptols/preview", {"textDocument": {"uri": uri}, "target": target, "function": "kernel"}
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
    result = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "cce", "function": "kernel"}
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


async def test_formatting_returns_one_whole_document_edit_or_none(
    client: LanguageClient, tmp_path: Path
):
    messy = KERNEL.replace("tile_c = pl.add(tile_a, tile_b)", "tile_c = pl.add( tile_a,tile_b )")
    uri = await open_document(client, tmp_path / "k.py", messy)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert len(edits) == 1 and "pl.add(tile_a, tile_b)" in edits[0].new_text, (
        client.messages,
        client.log_messages,
    )
    change(client, uri, 2, edits[0].new_text)
    await wait_for_diagnostics(client, uri, 2)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert not edits


async def test_hover_shows_buffer_and_address_after_the_pipeline(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    position = position_of(KERNEL, "tile_b = ")
    text = ""
    for _ in range(200):  # the pipeline runs in the background once the file is idle
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position)
        )
        text = hover.contents.value if hover is not None else ""
        if "after the pipeline" in text:
            break
        await asyncio.sleep(0.05)
    assert "after the pipeline: buffer `Vec#4 @0x4000 (16384 B)`" in text, text


async def test_hover_on_any_expression(client: LanguageClient, tmp_path: Path):
    text = KERNEL.replace(
        "tile_c = pl.add(tile_a, tile_b)",
        "tile_c = pl.add(tile_a, tile_b)\n        n = (3 + 4) * 8",
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, "3 + 4"))
    )
    assert hover is not None and "(expression) 3 + 4: pl.Scalar[pl.INT64]" in hover.contents.value
    hover = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), position_of(text, "[0, 0], [64, 64])", 1)
        )
    )
    assert (
        hover is not None
        and "(expression) [0, 0]: tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]"
        in hover.contents.value
    )


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


ANNOTATED_KERNEL = KERNEL.replace(
    "tile_c = pl.add(tile_a, tile_b)", "tile_c: pl.Tile[[64, 64], pl.FP16] = pl.add(tile_a, tile_b)"
)


async def test_annotation_mismatch_is_a_warning_and_strict_annotations_makes_it_an_error(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", ANNOTATED_KERNEL)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert (diagnostic.code, diagnostic.severity) == ("W006", types.DiagnosticSeverity.Warning)
    start = position_of(ANNOTATED_KERNEL, "pl.Tile[[64, 64], pl.FP16]")
    assert diagnostic.range.start == start
    published = len(client.published)  # type: ignore[attr-defined]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ptoc": {"strictAnnotations": True}})
    )
    for _ in range(3000):  # up to 30 s: the re-analysis runs in the background, on a busy machine
        later = [p for p in client.published[published:] if p.uri == uri]  # type: ignore[attr-defined]
        if later:
            break
        await asyncio.sleep(0.01)
    (strict,) = later[-1].diagnostics
    assert (strict.code, strict.severity) == ("W006", types.DiagnosticSeverity.Error)


async def test_the_project_strict_annotations_setting_reaches_the_editor(
    client: LanguageClient, tmp_path: Path
):
    (tmp_path / "pyproject.toml").write_text("[tool.ptoc]\nstrict-annotations = true\n")
    path = tmp_path / "k.py"
    uri = await open_document(client, path, ANNOTATED_KERNEL)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert (diagnostic.code, diagnostic.severity) == ("W006", types.DiagnosticSeverity.Error)
    # The preview stops where `ptoc compile` stops: an error, no code.
    preview = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "cce"}
    )
    assert preview.content == ""
    assert [(d.code, d.severity) for d in preview.diagnostics] == [("W006", 1)]
    assert main(["compile", str(path), "--target", "cce"]) == 1


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


async def test_pto_preview_shows_what_ptoas_rejects_and_pto_cpp_what_it_makes(
    client: LanguageClient, tmp_path: Path
):
    _require_ptoas()
    text = KERNEL.replace("pl.FP32", "pl.INT32").replace(
        "pl.add(tile_a, tile_b)", "pl.block.and_(tile_a, tile_b)"
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    result = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "pto", "function": "kernel"}
    )
    assert result.content == ""  # as for any error: no code that does not hold
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "E405"
    assert diagnostic.message.startswith(
        "PTOAS: 'pto.tand' op expects A2/A3 tand src0, src1, and dst element type to be i8/i16"
    )
    start = position_of(text, "tile_c = pl.block.and_")
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (
        start.line,
        start.character,
    )
    good = await open_document(client, tmp_path / "good.py", KERNEL)
    cpp = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": good}, "target": "pto-cpp", "function": "kernel"}
    )
    assert cpp.language == "cpp"
    assert "__global__ AICORE void kernel(" in cpp.content and "  TADD(" in cpp.content
