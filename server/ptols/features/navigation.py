"""Go-to-definition, references and rename."""

from __future__ import annotations

import keyword
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
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
    line = max(op.name_line - 1, 0)
    return types.Location(uri, types.Range(types.Position(line, 0), types.Position(line, 0)))


def definition(occ: Occurrence, uri: str, positions: Positions) -> types.Location | None:
    if occ.kind is OccurrenceKind.OP and occ.op_name:
        return op_location(occ.op_name)
    if occ.definition is not None and occ.definition.is_known:
        if occ.definition.file != occ.span.file:  # a kernel imported from a file beside it
            return elsewhere(occ.definition)
        return positions.location(uri, occ.definition)
    return None


def elsewhere(span: Span) -> types.Location | None:
    """A place in another file, as its text on disk has it (code points as UTF-16 units: the
    same on an ASCII line)."""
    uri = from_fs_path(str(Path(span.file).resolve()))
    if uri is None:
        return None
    start = types.Position(span.line - 1, span.column)
    return types.Location(uri, types.Range(start, types.Position(span.line - 1, span.column)))


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
    analysis: ModuleAnalysis,
    occ: Occurrence,
    uri: str,
    positions: Positions,
    include_declaration: bool,
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
    spans = _same_symbol(analysis, occ)
    refusal = rename_refusal(analysis, occ, spans, new_name)
    if refusal is not None:
        raise JsonRpcInvalidParams(refusal)  # shown to the user as it stands
    edits = [types.TextEdit(positions.range(span), new_name) for span in spans]
    return types.WorkspaceEdit(changes={uri: edits})


# Names that mean something to the DSL wherever they appear.
_MODULE_WIDE = (OccurrenceKind.FUNCTION, OccurrenceKind.CONSTANT, OccurrenceKind.PROGRAM)
_BINDINGS = (*RENAMEABLE, OccurrenceKind.PROGRAM)


def rename_refusal(
    analysis: ModuleAnalysis, occ: Occurrence, spans: list[Span], new_name: str
) -> str | None:
    """Why ``occ`` cannot be renamed to ``new_name`` (None: it can). A rename must not change
    what any name refers to: the new name may not already name something else where the
    renamed one is used (it would capture those uses, or be captured by them)."""
    old = occ.name
    if keyword.iskeyword(new_name) or keyword.issoftkeyword(new_name):
        return f"cannot rename '{old}' to '{new_name}': '{new_name}' is a Python keyword"
    if not new_name.isidentifier():
        return f"cannot rename '{old}' to '{new_name}': it is not a Python identifier"
    if new_name == old:
        return None
    if new_name == analysis.prefix:
        return (
            f"cannot rename '{old}' to '{new_name}': '{new_name}' is the module's name for "
            "pypto.language"
        )
    renamed = set(spans)
    if occ.kind in _MODULE_WIDE:
        scope: Span | None = None  # the whole file
    else:
        anchor = occ.definition or occ.span
        scope = next((f.span for f in analysis.function_infos if _contains(f.span, anchor)), None)
    for other in analysis.index.occurrences:
        if other.name != new_name or other.kind not in _BINDINGS or other.span in renamed:
            continue
        if scope is not None and not _contains(scope, other.span):
            continue  # outside the function: a module name it does not use stays unaffected
        return (
            f"cannot rename '{old}' to '{new_name}': '{new_name}' already names "
            f"{_what(other)} (line {other.span.line}), so the two would be confused"
        )
    return None


def _contains(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and (
        inner.end_line,
        inner.end_column,
    ) <= (outer.end_line, outer.end_column)


def _what(occ: Occurrence) -> str:
    return {
        OccurrenceKind.FUNCTION: "a function",
        OccurrenceKind.CONSTANT: "a module constant",
        OccurrenceKind.PROGRAM: "a program",
        OccurrenceKind.PARAMETER: "a parameter",
        OccurrenceKind.LOOP_VAR: "a loop variable",
        OccurrenceKind.ITER_ARG: "a loop-carried value",
    }.get(occ.kind, "another value")
