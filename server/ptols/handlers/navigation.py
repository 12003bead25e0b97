"""Requests answered at the occurrence under the cursor: hover, definition, references, rename."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .common import features, locate

if TYPE_CHECKING:
    from ..server import PtolsServer


def hover(ls: PtolsServer, params: types.HoverParams) -> types.Hover | None:
    found = locate(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    buffers = found.doc.buffers
    after = buffers[1] if buffers is not None and buffers[0] == found.doc.analysis_version else None
    shown = features.hover.hover(
        found.analysis, found.occ, found.positions.range(found.occ.span), after
    )
    if shown is None or found.analysis is not found.doc.analysis:
        return shown
    from ..hardware import known_facts

    line, _ = found.positions.position(params.position)
    return features.hardware.with_notes(shown, known_facts(found.doc), found.occ, line)


def definition(ls: PtolsServer, params: types.DefinitionParams) -> types.Location | None:
    found = locate(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    return features.navigation.definition(found.occ, found.doc.uri, found.positions)


def references(ls: PtolsServer, params: types.ReferenceParams) -> list[types.Location] | None:
    found = locate(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    return features.navigation.references(
        found.analysis,
        found.occ,
        found.doc.uri,
        found.positions,
        params.context.include_declaration,
    )


def prepare_rename(ls: PtolsServer, params: types.PrepareRenameParams) -> types.Range | None:
    found = locate(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    return features.navigation.prepare_rename(found.occ, found.positions)


def rename(ls: PtolsServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    found = locate(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    return features.navigation.rename(
        found.analysis, found.occ, found.doc.uri, found.positions, params.new_name
    )
