"""Go-to-definition, references and rename."""

from __future__ import annotations

import keyword
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.span import Span
from ptoc.ops import REGISTRY

from ..convert import Positions

RENAMEABLE = {
    OccurrenceKind.VARIABLE,
    OccurrenceKind.PARAMETER,
    OccurrenceKind.ITER_ARG,
    OccurrenceKind.LOOP_VAR,
    OccurrenceKind.FUNCTION,
    OccurrenceKind.CONSTANT,
}


def op_location(op_name: str) -> types.Location | None:
    """An op's registration in ptoc's source (file and line)."""
    op = REGISTRY.get(op_name)
    if op is None or not op.source_file:
        return None
    uri = from_fs_path(str(Path(op.source_file).resolve()))
    if uri is None:
        return None
    line = max(op.source_line - 1, 0)
    return types.Location(uri, types.Range(types.Position(line, 0), types.Position(line, 0)))


def definition(occ: Occurrence, uri: str, positions: Positions) -> types.Location | None:
    if occ.kind is OccurrenceKind.OP and occ.op_name:
        return op_location(occ.op_name)
    if occ.definition is not None and occ.definition.is_known:
        return positions.location(uri, occ.definition)
    return None


def _same_symbol(analysis: ModuleAnalysis, occ: Occurrence) -> list[Span]:
    target = occ.definition if occ.definition is not None else occ.span
    spans = []
    for other in analysis.index.occurrences:
        if other.kind is OccurrenceKind.TYPE or other.kind is OccurrenceKind.OP:
            continue
        if other.definition == target or other.span == target:
            if other.name == occ.name:
                spans.append(other.span)
    # keep one entry per place
    unique: dict[tuple[int, int, int, int], Span] = {}
    for span in spans:
        unique[(span.line, span.column, span.end_line, span.end_column)] = span
    return [unique[k] for k in sorted(unique)]


def references(
    analysis: ModuleAnalysis, occ: Occurrence, uri: str, positions: Positions, include_declaration: bool
) -> list[types.Location]:
    spans = _same_symbol(analysis, occ)
    if not include_declaration and occ.definition is not None:
        spans = [s for s in spans if s != occ.definition]
    return [positions.location(uri, s) for s in spans]


def prepare_rename(occ: Occurrence, positions: Positions) -> types.Range | None:
    if occ.kind not in RENAMEABLE:
        return None
    return positions.range(occ.span)


def rename(
    analysis: ModuleAnalysis, occ: Occurrence, uri: str, positions: Positions, new_name: str
) -> types.WorkspaceEdit | None:
    if occ.kind not in RENAMEABLE:
        return None
    if not new_name.isidentifier() or keyword.iskeyword(new_name):
        raise ValueError(f"'{new_name}' is not a valid Python identifier")
    edits = [types.TextEdit(positions.range(span), new_name) for span in _same_symbol(analysis, occ)]
    return types.WorkspaceEdit(changes={uri: edits})
