"""What several handlers share: the feature modules (loaded on first use) and reading the
analysis at a cursor."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ..text import Stale

if TYPE_CHECKING:
    from ptoc.frontend import ModuleAnalysis, Occurrence

    from ..convert import Positions
    from ..documents import Document
    from ..server import PtolsServer


class _Features:
    """The feature modules, imported on first use: they pull in the compiler, which the
    server loads after `initialize` (PtolsServer.warm_up) rather than before answering it."""

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(f"ptols.features.{name}")
        setattr(self, name, module)
        return module


features = _Features()


class Located(NamedTuple):
    doc: Document
    occ: Occurrence
    positions: Positions
    analysis: ModuleAnalysis


def locate(ls: PtolsServer, uri: str, position: types.Position) -> Located | None:
    """The occurrence under the cursor, with the analysis it comes from and the position
    converter from that analysis' text to the current one. An analysis of an older text
    answers only where the text has not changed since (Stale: no answer)."""
    doc = ls.lookup(uri)
    if doc is None or doc.analysis is None:
        return None
    candidates = [(doc.analysis, doc.analysis_text)]
    if doc.last_clean is not None and doc.last_clean is not doc.analysis:
        # While the text does not parse, the last good analysis still answers for intact parts.
        candidates.append((doc.last_clean, doc.last_clean_text))
    for analysis, text in candidates:
        positions = ls.positions(doc, text)
        try:
            occ = features.common.occurrence_at(analysis, *positions.position(position))
            if occ is not None:
                positions.range(occ.span)  # the occurrence itself must be unchanged
                return Located(doc, occ, positions, analysis)
        except Stale:
            continue
    return None


def open_document(ls: PtolsServer, uri: str, method: str) -> Document:
    """The open document at ``uri``; one that is not (or no longer: a tab closed while the
    request travelled) open is the request's mistake, answered with InvalidParams."""
    doc = ls.store.get(uri)
    if doc is None:
        raise JsonRpcInvalidParams(f"ptols: {method}: document not open: {uri}")
    return doc


def pypto_document(ls: PtolsServer, uri: str) -> Document | None:
    """The open document at ``uri`` if it is a PyPTO file (analysed or not yet)."""
    doc = ls.store.get(uri)
    return doc if doc is not None and doc.is_pypto else None


def cursor(ls: PtolsServer, doc: Document, position: types.Position) -> tuple[int, int, int]:
    """(1-based line, code-point column, offset into the current text) of an LSP position."""
    positions = ls.positions(doc, doc.text)
    offset = positions.offset(position)
    row, column = positions.current.row_column(offset)
    return row + 1, column, offset


def text_lines(text: str) -> list[str]:
    """The lines of a text without their breaks (LSP's line breaks only)."""
    from ptoc.lines import split_lines

    return [line.rstrip("\r\n") for line in split_lines(text)]
