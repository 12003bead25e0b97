"""What the server knows about each open document."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pygls.uris import to_fs_path
from pygls.workspace import PositionCodec

if TYPE_CHECKING:
    from ptoc.frontend import AnalysisCache, ModuleAnalysis

    from .convert import Positions
    from .syntax import SyntaxTree


def _new_cache() -> AnalysisCache:
    from ptoc.frontend import AnalysisCache

    return AnalysisCache()


def mentions_pypto(text: str) -> bool:
    """Cheap check before any analysis: is this a PyPTO file? (the compiler's own sniff)"""
    from ptoc.filekind import is_pypto_source

    return is_pypto_source(text)


@dataclass
class Document:
    uri: str
    text: str
    version: int | None
    syntax: SyntaxTree
    path: str = ""
    cache: AnalysisCache = field(default_factory=_new_cache)
    analysis: ModuleAnalysis | None = None  # the latest completed analysis
    analysis_version: int | None = None
    analysis_text: str = ""
    last_clean: ModuleAnalysis | None = None  # the latest analysis without syntax errors
    last_clean_text: str = ""
    last_duration: float = 0.0
    pending: asyncio.Task[Any] | None = None
    analysed: asyncio.Event = field(default_factory=asyncio.Event)
    previews: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _positions: tuple[str, Positions] | None = None  # converter for the last text asked about

    @staticmethod
    def open(uri: str, text: str, version: int | None) -> Document:
        path = to_fs_path(uri) or uri
        from .syntax import SyntaxTree  # tree-sitter loads with the first document, not at start-up

        return Document(uri, text, version, SyntaxTree.parse(text), path=path)

    def change(self, text: str, version: int | None) -> None:
        self.text = text
        self.version = version
        self.syntax = self.syntax.update(text)
        self.analysed.clear()
        self.previews.clear()

    @property
    def is_pypto(self) -> bool:
        if self.analysis is not None and self.analysis_text == self.text:
            return self.analysis.uses_pypto
        return mentions_pypto(self.text)

    @property
    def current(self) -> bool:
        return self.analysis is not None and self.analysis_version == self.version and self.analysis_text == self.text

    def positions(self, codec: PositionCodec, text: str | None = None) -> Positions:
        source = text if text is not None else self.analysis_text
        cached = self._positions
        if cached is not None and cached[0] is source:
            return cached[1]
        from .convert import Positions

        positions = Positions(source.splitlines(True) or [""], codec)
        self._positions = (source, positions)
        return positions


class DocumentStore:
    def __init__(self) -> None:
        self.documents: dict[str, Document] = {}

    def get(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def open(self, uri: str, text: str, version: int | None) -> Document:
        document = Document.open(uri, text, version)
        self.documents[uri] = document
        return document

    def close(self, uri: str) -> Document | None:
        document = self.documents.pop(uri, None)
        if document is not None and document.pending is not None:
            document.pending.cancel()
        return document

    def __iter__(self):
        return iter(list(self.documents.values()))
