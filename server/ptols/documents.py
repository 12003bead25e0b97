"""What the server knows about each open document.

The server keeps the text itself (not pygls' workspace copy): edits are applied with LSP's line
breaks and end-of-line rules (ptols.text), so its text is always the editor's.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from .optional import has_tree_sitter
from .pipelines import SharedPipelines
from .text import BOM, LineIndex, apply_change

if TYPE_CHECKING:
    from ptoc.frontend import AnalysisCache, ModuleAnalysis

    from .convert import Positions
    from .syntax import SyntaxTree

# Above these a document gets one "too large" diagnostic instead of analysis (the compiler's
# parse holds the interpreter lock for about a second per megabyte, stalling every request).
MAX_LIVE_BYTES = 1_000_000
MAX_LIVE_LINE = 100_000  # characters
MAX_LIVE_LOOP_DEPTH = 12  # deeper loop nests are not compiled live (synchronisation is costly)
# Programs of more IR statements get no live pass diff: every stage is printed and diffed (a
# 1,268-statement task graph took 1.6 s, a 2,000-submit one over 10 s, its payload ~20 MB).
MAX_LIVE_PASS_DIFF_STATEMENTS = 1000
LOOP_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?(for|while)\b|^([ \t]*)\S", re.MULTILINE)


def _new_cache() -> AnalysisCache:
    from ptoc.frontend import AnalysisCache

    return AnalysisCache()


def mentions_pypto(text: str) -> bool:
    """Cheap check before any analysis: is this a PyPTO file? (the compiler's own sniff, on
    the text the compiler reads; a lone \r ends a line there too)"""
    from ptoc.filekind import is_pypto_source

    text = analysable(text)
    return is_pypto_source(text.replace("\r", "\n") if "\r" in text else text)


def over_limit(text: str) -> tuple[str, int] | None:
    """Why ``text`` is not analysed live (message, 0-based line), or None."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_LIVE_BYTES:
        return (
            f"file too large for live analysis: {size / 1e6:.1f} MB > {MAX_LIVE_BYTES / 1e6:.1f} "
            f"MB",
            0,
        )
    if len(text) > MAX_LIVE_LINE:
        index = LineIndex(text)
        ends = [*index.starts[1:], len(text)]
        length, row = max(
            (end - start, row)
            for row, (start, end) in enumerate(zip(index.starts, ends, strict=True))
        )
        if length > MAX_LIVE_LINE:
            return (
                f"line {row + 1} too long for live analysis: {length:,} characters > "
                f"{MAX_LIVE_LINE:,}",
                row,
            )
    return None


def too_large(text: str) -> bool:
    return over_limit(text) is not None


def loop_depth(text: str) -> int:
    """How deep loops nest, from indentation alone (linear, no tree walk)."""
    open_loops: list[int] = []  # indentation widths of the loops enclosing the current line
    deepest = 0
    for match in LOOP_LINE.finditer(text):
        indent = len((match.group(1) if match.group(2) else match.group(3)).expandtabs(8))
        while open_loops and open_loops[-1] >= indent:
            open_loops.pop()
        if match.group(2):
            open_loops.append(indent)
            deepest = max(deepest, len(open_loops))
    return deepest


def analysable(text: str) -> str:
    """The text the compiler reads: without a leading byte order mark (positions map back)."""
    return text[1:] if text.startswith(BOM) else text


@dataclass
class Document:
    uri: str
    text: str
    version: int | None
    path: str = ""
    cache: AnalysisCache = field(default_factory=_new_cache)
    analysis: ModuleAnalysis | None = None  # the latest completed analysis
    analysis_version: int | None = None
    analysis_text: str = ""
    last_clean: ModuleAnalysis | None = None  # the latest analysis without syntax errors
    last_clean_text: str = ""
    last_duration: float = 0.0
    published_version: int | None = None  # never publish an older version after a newer one
    pending: asyncio.Task[Any] | None = None
    analysed: asyncio.Event = field(default_factory=asyncio.Event)
    previews: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    preview_jobs: dict[tuple[Any, ...], asyncio.Future[Any]] = field(default_factory=dict)
    # The sync checker's findings on PTOAS's C++ of each pto-cpp preview made, per preview key
    # (its version first): published with the document's diagnostics while that version is.
    ptoas_sync: dict[tuple[Any, ...], list[Any]] = field(default_factory=dict)
    # Background work on one text, shared by the requests for that same text: (text, job).
    symbols_job: tuple[str, asyncio.Future[Any]] | None = None
    format_job: tuple[str, asyncio.Future[Any]] | None = None
    # Buffer / address hovers of an analysed version, and their memo per function.
    buffers: tuple[int | None, dict[Any, Any]] | None = None
    buffer_task: asyncio.Task[Any] | None = None
    buffer_memo: dict[Any, Any] = field(default_factory=dict)
    # E401 / E402 (version, diagnostics), computed per function in the background; the memo
    # keeps each function's result while it is unchanged.
    backend: tuple[int | None, list[Any]] | None = None
    backend_memo: dict[Any, Any] = field(default_factory=dict)
    # The hardware view (ptols.hardware): each function's facts (memory map, sync sites, CCE
    # lines), their memo per function, the job computing them for a version, and the verdicts
    # of failed runs by function name.
    facts_memo: dict[Any, Any] = field(default_factory=dict)
    facts_job: tuple[int | None, asyncio.Future[Any]] | None = None
    known_facts: tuple[ModuleAnalysis, int, list[Any]] | None = None  # (analysis, memo size, …)
    run_verdicts: dict[str, Any] = field(default_factory=dict)
    # Semantic tokens of one analysis seen through one text: ((analysis, text, encoding),
    # result id, data); the data of recent result ids, for deltas.
    semantic: tuple[tuple[Any, str, str], str, list[int]] | None = None
    semantic_sent: dict[str, list[int]] = field(default_factory=dict)
    # One pipeline result per function, shared by previews, facts, buffers and E401 / E402.
    pipelines: SharedPipelines = field(default_factory=SharedPipelines)
    _syntax: SyntaxTree | None = None
    _index: LineIndex | None = None
    _limit: tuple[str, tuple[str, int] | None] | None = None
    _depth: tuple[str, int] | None = None
    _positions: dict[tuple[int, int, str], Positions] = field(default_factory=dict)

    @staticmethod
    def open(
        uri: str, text: str, version: int | None, quiet: threading.Event | None = None
    ) -> Document:
        path = to_fs_path(uri) or uri
        return Document(uri, text, version, path=path, pipelines=SharedPipelines(quiet))

    def close(self) -> None:
        """Stop the document's queued analysis and background computations."""
        for task in (self.pending, self.buffer_task):
            if task is not None and not task.done():
                task.cancel()
        # A cancelled task can keep its CancelledError, whose traceback holds the task's frame
        # and with it this document: a cycle that kept each closed document (its analyses,
        # memos, texts) alive until the next full collection (issue #33). The document lets go
        # of its tasks and jobs instead; each ends on its own.
        self.pending = self.buffer_task = None
        self.facts_job = self.symbols_job = self.format_job = None
        self.preview_jobs.clear()

    @property
    def limit(self) -> tuple[str, int] | None:
        """Why the current text is not analysed live (message, line), or None."""
        if self._limit is None or self._limit[0] is not self.text:
            self._limit = (self.text, over_limit(self.text))
        return self._limit[1]

    @property
    def too_large(self) -> bool:
        return self.limit is not None

    @property
    def analysed_loop_depth(self) -> int:
        """``loop_depth`` of the latest analysis' text (kept: previews ask on every request)."""
        known = self._depth
        if known is None or known[0] is not self.analysis_text:
            known = self._depth = (self.analysis_text, loop_depth(self.analysis_text))
        return known[1]

    @property
    def index(self) -> LineIndex:
        if self._index is None or self._index.text is not self.text:
            self._index = LineIndex(self.text)
        return self._index

    def symbols_of(self, text: str, encoding: str) -> list[types.DocumentSymbol] | None:
        """Document symbols of ``text`` (one version of this document), from the tree-sitter
        tree brought up to date incrementally (none without tree-sitter). Runs on the syntax
        thread only."""
        tree = self.syntax_of(text)
        if tree is None:
            return None
        from .convert import Positions
        from .features.symbols import document_symbols

        return document_symbols(tree, Positions(LineIndex(text), encoding))

    def syntax_of(self, text: str) -> SyntaxTree | None:
        """The tree-sitter tree of ``text`` (one version of this document), updated from the
        last one; None above the live-analysis limits or without tree-sitter. Runs on the syntax
        thread only."""
        if too_large(text) or not has_tree_sitter():
            self._syntax = None
            return None
        from .syntax import SyntaxTree  # tree-sitter loads with the first document, not at start-up

        tree = SyntaxTree.parse(text) if self._syntax is None else self._syntax.update(text)
        self._syntax = tree
        return tree

    def apply(
        self,
        changes: Sequence[types.TextDocumentContentChangeEvent],
        version: int | None,
        encoding: str,
    ) -> None:
        text = self.text
        for change in changes:
            index = self.index if text is self.text else LineIndex(text)
            text = apply_change(text, index, change, encoding)
        self.change(text, version)

    def change(self, text: str, version: int | None) -> None:
        self.text = text
        self.version = version
        self.analysed.clear()
        self.previews.clear()
        self.ptoas_sync.clear()

    @property
    def is_pypto(self) -> bool:
        if self.analysis is not None and self.current:
            return self.analysis.uses_pypto
        return mentions_pypto(self.text)

    @property
    def current(self) -> bool:
        """The latest analysis is of the current text and version."""
        return (
            self.analysis is not None
            and self.analysis_version == self.version
            and self.analysis_text == analysable(self.text)
        )

    def positions(self, encoding: str, analysed: str | None = None) -> Positions:
        """Converter from spans of ``analysed`` (default: the latest analysis' text) to positions
        in the current text."""
        from .convert import Positions

        source = analysed if analysed is not None else self.analysis_text
        key = (id(source), id(self.text), encoding)
        cached = self._positions.get(key)
        if (
            cached is not None
            and cached.analysed.text is source
            and cached.current.text is self.text
        ):
            return cached
        analysed_index = self.index if source is self.text else LineIndex(source)
        positions = Positions(analysed_index, encoding, self.index)
        if len(self._positions) > 4:
            self._positions.clear()
        self._positions[key] = positions
        return positions


class DocumentStore:
    def __init__(self, quiet: threading.Event | None = None) -> None:
        self.documents: dict[str, Document] = {}
        self.quiet = quiet  # handed to each document's pipelines (SharedPipelines.quiet)

    def get(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def open(self, uri: str, text: str, version: int | None) -> Document:
        replaced = self.documents.get(uri)
        if replaced is not None:  # opened again without a close: the new text starts afresh
            replaced.close()
        document = Document.open(uri, text, version, self.quiet)
        self.documents[uri] = document
        return document

    def close(self, uri: str) -> Document | None:
        document = self.documents.pop(uri, None)
        if document is not None:
            document.close()
        return document

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self.documents.values()))
