"""Code actions: the compiler's quick fixes and annotation rewrites."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import KERNEL, analysed, open_document, position_of, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.features import code_actions
from ptols.handlers.common import text_lines


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


# --- ptols.features.code_actions called directly, without a client -------------------------------


URI = "file:///k.py"


def test_code_actions_module_turns_diagnostic_fixes_into_quick_fixes():
    where = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}
    fix = {"title": "Use y", "preferred": True, "edits": [{"range": where, "newText": "y"}]}
    diagnostic = types.Diagnostic(
        types.Range(types.Position(1, 0), types.Position(1, 3)), "m", data={"fixes": [fix]}
    )
    (action,) = code_actions.quick_fixes(URI, [diagnostic])
    assert (action.title, action.kind, action.is_preferred) == (
        "Use y",
        types.CodeActionKind.QuickFix,
        True,
    )
    assert action.edit == types.WorkspaceEdit(
        changes={URI: [types.TextEdit(diagnostic.range, "y")]}
    )
    assert code_actions.quick_fixes(URI, [types.Diagnostic(diagnostic.range, "no data")]) == []


def test_code_actions_module_offers_the_deduced_annotation():
    a = analysed()
    line, column = a.at("tile_c = ")
    (action,) = code_actions.annotation_actions(
        URI, a.analysis, text_lines(a.text), a.positions, line, column, column
    )
    assert action.title == "Add type annotation `pl.Tile[[64, 64], pl.FP32]`"
    end = types.Position(14, 14)
    assert action.edit == types.WorkspaceEdit(
        changes={URI: [types.TextEdit(types.Range(end, end), ": pl.Tile[[64, 64], pl.FP32]")]}
    )


# --- PyPTO 2026-08: the whole-file upgrade and the W031 quick fixes ------------------------------

UPGRADED = KERNEL.replace(
    "pl.store(tile_c, [0, 0], [64, 64], out)", "pl.store(tile_c, [0, 0], out)"
)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """The text after LSP edits (ASCII text: UTF-16 columns are code points)."""
    lines = text.split("\n")
    starts = [sum(len(line) + 1 for line in lines[:n]) for n in range(len(lines))]

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    ordered = sorted(edits, key=lambda e: offset(e.range.start), reverse=True)
    for edit in ordered:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def code_actions_at(
    client: LanguageClient, uri: str, where: types.Range, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=where,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )


async def test_upgrade_to_2026_08_is_offered_on_a_2026_03_file(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    pos = position_of(KERNEL, "tile_a = ")
    actions = await code_actions_at(client, uri, types.Range(pos, pos), [])
    (upgrade,) = [a for a in actions if a.title == "Upgrade to PyPTO 2026-08"]
    assert upgrade.kind == types.CodeActionKind.RefactorRewrite and upgrade.disabled is None
    assert upgrade.edit is None  # VS Code resolves it: computed when chosen
    upgrade = await client.code_action_resolve_async(upgrade)
    (edit,) = upgrade.edit.changes[uri]
    end = types.Position(KERNEL.count("\n"), 0)
    assert edit.range == types.Range(types.Position(0, 0), end)  # the whole file
    assert apply_text_edits(KERNEL, [edit]) == UPGRADED
    # the upgraded file is 2026-08: nothing more to offer
    uri = await open_document(client, tmp_path / "new.py", UPGRADED)
    actions = await code_actions_at(client, uri, types.Range(pos, pos), [])
    assert "Upgrade to PyPTO 2026-08" not in [a.title for a in actions]


async def test_w031_quick_fix_writes_the_chosen_editions_spelling(
    client: LanguageClient, tmp_path: Path
):
    (tmp_path / "pyproject.toml").write_text('[tool.ptoc]\nedition = "2026-08"\n')
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    diagnostics = await wait_for_diagnostics(client, uri, 1)
    (other,) = [d for d in diagnostics if d.code == "W031"]
    assert other.severity == types.DiagnosticSeverity.Warning
    assert other.range == types.Range(
        position_of(KERNEL, "pl.store"), position_of(KERNEL, "pl.store", len("pl.store"))
    )
    assert other.message == (
        "`pl.store(tile_c, [0, 0], [64, 64], out)` is the PyPTO 2026-03 spelling; PyPTO "
        "2026-08 (set by [tool.ptoc] edition) writes `pl.store(tile_c, [0, 0], out)`"
    )
    actions = await code_actions_at(client, uri, other.range, [other])
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.title == "Change to `pl.store(tile_c, [0, 0], out)`" and fix.is_preferred
    assert apply_text_edits(KERNEL, fix.edit.changes[uri]) == UPGRADED


def test_without_resolve_the_upgrade_comes_with_its_edit_or_disabled_with_the_reason():
    edit = types.TextEdit(types.Range(types.Position(0, 0), types.Position(3, 0)), "new")
    (action,) = code_actions.upgrade_actions(URI, False, lambda: (edit, ""), False)
    assert action.edit == types.WorkspaceEdit(changes={URI: [edit]}) and action.data is None
    refused = lambda: (None, "function 'k' cannot be upgraded")  # noqa: E731
    (action,) = code_actions.upgrade_actions(URI, False, refused, True)
    assert action.edit is None
    assert action.disabled == types.CodeActionDisabled("function 'k' cannot be upgraded")
    assert code_actions.upgrade_actions(URI, False, refused, False) == []
    (lazy,) = code_actions.upgrade_actions(URI, True, refused, True)
    assert (lazy.edit, lazy.disabled, code_actions.upgrade_uri(lazy)) == (None, None, URI)


def test_the_upgrade_is_offered_on_2026_03_files_only():
    assert code_actions.offers_upgrade(analysed(KERNEL).analysis)
    assert not code_actions.offers_upgrade(analysed(UPGRADED).analysis)


FIXABLE = KERNEL.replace(
    "tile_c = pl.add(tile_a, tile_b)", "tile_c: pl.Tile[[64, 64], pl.FP16] = pl.add(tile_a, tile_b)"
).replace("self.kernel(a, b, out)", "self.kernl(a, b, out)")


async def test_source_fix_all_applies_the_certain_fixes_only(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", FIXABLE)
    everything = types.Range(types.Position(0, 0), types.Position(0, 0))

    async def actions(only: list[str] | None) -> list[types.CodeAction]:
        found = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=everything,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    (fix_all,) = await actions([types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.ptoc"
    assert fix_all.edit is not None and fix_all.edit.changes is not None
    # W006's annotation fix is certain; E203's did-you-mean (`kernl` -> `kernel`) is a guess.
    assert [(e.range, e.new_text) for e in fix_all.edit.changes[uri]] == [
        (
            types.Range(types.Position(14, 16), types.Position(14, 42)),
            "pl.Tile[[64, 64], pl.FP32]",
        )
    ]
    assert [a.kind for a in await actions(["source"])] == ["source.fixAll.ptoc"]
    assert await actions([types.CodeActionKind.QuickFix]) == []  # no diagnostics given


async def test_a_2026_08_tile_division_of_two_dtypes_offers_the_cast(
    client: LanguageClient, tmp_path: Path
):
    (tmp_path / "pyproject.toml").write_text('[tool.ptoc]\nedition = "2026-08"\n')
    text = (
        UPGRADED.replace(
            "        b: pl.Tensor[[64, 64], pl.FP32],", "        b: pl.Tensor[[64, 64], pl.FP16],"
        )
        .replace("b: pl.Tensor[[64, 64], pl.FP32], out", "b: pl.Tensor[[64, 64], pl.FP16], out")
        .replace("pl.add(tile_a, tile_b)", "pl.div(tile_a, tile_b)")
    )
    uri = await open_document(client, tmp_path / "k.py", text)
    (diagnostic,) = await wait_for_diagnostics(client, uri, 1)
    assert diagnostic.code == "E306"
    start = position_of(text, "tile_b)")
    assert diagnostic.range == types.Range(start, types.Position(start.line, start.character + 6))
    actions = await code_actions_at(client, uri, diagnostic.range, [diagnostic])
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.title == "Convert with `pl.cast(tile_b, pl.FP32)`"
    fixed = apply_text_edits(text, fix.edit.changes[uri])
    assert "tile_c = pl.div(tile_a, pl.cast(tile_b, pl.FP32))" in fixed
    uri = await open_document(client, tmp_path / "fixed.py", fixed)
    assert list(await wait_for_diagnostics(client, uri, 1)) == []
