"""Definition and references."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document, position_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features import navigation
from ptols.features.common import occurrence_at


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


# --- ptols.features.navigation called directly, without a client ---------------------------------


URI = "file:///k.py"


def test_navigation_module_finds_definition_and_references_of_a_variable():
    a = analysed()
    occ = occurrence_at(a.analysis, *a.at("tile_c, [0, 0]", 2))  # the use in pl.store
    assert occ is not None
    definition = navigation.definition(occ, URI, a.positions)
    assert definition == types.Location(
        URI, types.Range(types.Position(14, 8), types.Position(14, 14))
    )
    uses = navigation.references(a.analysis, occ, URI, a.positions, True)
    assert [(r.range.start.line, r.range.start.character) for r in uses] == [(14, 8), (15, 26)]
    assert navigation.references(a.analysis, occ, URI, a.positions, False) == uses[1:]


def test_navigation_module_renames_a_variable_and_refuses_an_op():
    a = analysed()
    variable = occurrence_at(a.analysis, *a.at("tile_c = ", 1))
    op = occurrence_at(a.analysis, *a.at("pl.add", 3))
    assert variable is not None and op is not None
    edit = navigation.rename(a.analysis, variable, URI, a.positions, "sum_tile")
    assert edit is not None and edit.changes is not None
    assert [(e.range.start.line, e.new_text) for e in edit.changes[URI]] == [
        (14, "sum_tile"),
        (15, "sum_tile"),
    ]
    assert navigation.prepare_rename(op, a.positions) is None
