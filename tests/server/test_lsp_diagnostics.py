"""Published diagnostics: exact ranges and codes, edits, stale versions, settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_helpers import KERNEL, change, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptoc.cli import main


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
    # Up to 30 s: the re-analysis runs in the background, on a busy machine. An analysis that
    # was already running when the setting changed may publish the warning once more first.
    strict_codes: list[tuple[object, object]] = []
    for _ in range(3000):
        later = [p for p in client.published[published:] if p.uri == uri]  # type: ignore[attr-defined]
        strict_codes = [(d.code, d.severity) for d in later[-1].diagnostics] if later else []
        if any(severity == types.DiagnosticSeverity.Error for _, severity in strict_codes):
            break
        await asyncio.sleep(0.01)
    assert strict_codes == [("W006", types.DiagnosticSeverity.Error)]


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
