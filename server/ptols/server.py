"""The ptols language server: document lifecycle, background analysis, feature wiring."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import __version__, protocol
from .config import Settings
from .converter_warmup import WARM_DELAY, ConverterWarmer
from .documents import MAX_LIVE_LOOP_DEPTH, Document, DocumentStore, analysable
from .early import FirstMessage
from .isolated import Child
from .optional import NO_TREE_SITTER, has_tree_sitter
from .rpc import PtolsProtocol, QuietWriter, run_stdio
from .text import UTF16

if TYPE_CHECKING:  # the compiler loads after `initialize` (see warm_up): cold start stays short
    from ptoc.frontend import ModuleAnalysis

    from .convert import Positions

log = logging.getLogger("ptols")
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

MIN_DEBOUNCE = 0.005
MAX_DEBOUNCE = 0.060
SLOW_ANALYSIS = 0.050  # processor seconds: faster analyses start at once, without debounce
SWITCH_INTERVAL = 0.001  # seconds a thread waits before asking for the interpreter lock
BUFFER_DELAY = 0.400  # idle time before computing buffer/address hovers
ANALYSIS_WAIT = 0.8  # how long a request waits for the analysis of the newest text
WARM_UP_MODULES = (
    "ptoc.driver",
    "ptoc.fmt",
    "ptols.convert",
    "ptols.syntax",
    "ptols.features.common",
    "ptols.features.hover",
    "ptols.features.completion",
    "ptols.features.signature_help",
    "ptols.features.navigation",
    "ptols.features.symbols",
    "ptols.features.inlay_hints",
    "ptols.features.code_actions",
    "ptols.features.formatting",
    "ptols.features.preview",
    "ptols.features.hardware",
    "ptols.features.run",
)


class PtolsServer(LanguageServer):
    protocol: PtolsProtocol

    def __init__(self) -> None:
        super().__init__("ptols", __version__, protocol_cls=PtolsProtocol)
        # Set while no edit waits for its analysis: background compiles wait for it.
        self.quiet = threading.Event()
        self.quiet.set()
        self.store = DocumentStore(self.quiet)
        self.settings = Settings()
        self.analysis_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-analysis")
        self.compile_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-compile")
        # Previews on their own thread: one never waits for a whole file's background compile
        # (which pauses while an edit is analysed); the same function's pipeline is shared.
        self.preview_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-preview")
        # The hardware view's per-function facts: off the compile thread, so a preview never
        # queues behind them.
        self.facts_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-facts")
        self.format_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-format")
        # Formatting and pass diffs run in child processes: their transient memory would stay
        # in the server's (isolated.py says why).
        self.format_child = Child("format")
        self.pass_diff_child = Child("pass-diff")
        self.syntax_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-syntax")
        self.converter = ConverterWarmer(self.protocol)
        self.disk_diagnostics: Any = (
            None  # pull diagnostics of files not open (handlers/diagnostics)
        )

    # --- lifecycle ----------------------------------------------------------------------------
    def start_io(
        self,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
        first: FirstMessage | None = None,
    ) -> None:
        """Serve on stdio until `exit` or the end of input; never returns. ``first``: what
        was read, and maybe answered, before the server loaded (early.py)."""
        self.protocol.first_message = first
        self._stop_event = threading.Event()
        self.protocol.set_writer(QuietWriter(stdout or sys.stdout.buffer, self.output_lost))
        try:
            run_stdio(self.protocol, self._stop_event, stdin)
        except (KeyboardInterrupt, SystemExit):
            pass
        self.terminate(self.exit_code())

    def exit_code(self) -> int:
        """0 after `shutdown`, else 1 (the LSP specification's rule for `exit`)."""
        return 0 if self.protocol._shutdown else 1

    def output_lost(self) -> None:
        log.warning("the client closed the server's output stream: exiting")
        self.terminate(1)

    def terminate(self, code: int) -> None:
        """End the process at once: busy worker threads are not waited for, and nothing is
        written to streams that may be gone."""
        logging.shutdown()
        os._exit(code)

    # --- helpers ------------------------------------------------------------------------------
    def log_error(self, where: str, error: BaseException) -> None:
        text = "".join(traceback.format_exception(error))
        log.error("%s failed:\n%s", where, text)
        try:
            self.window_log_message(
                types.LogMessageParams(
                    types.MessageType.Error, f"ptols: {where} failed: {error}\n{text}"
                )
            )
        except Exception:
            pass

    def encoding(self) -> str:
        try:
            return str(self.workspace.position_encoding or UTF16)
        except RuntimeError:  # not initialised yet
            return UTF16

    def positions(self, doc: Document, analysed: str | None = None) -> Positions:
        """Spans of ``analysed`` (default: the latest analysis' text) -> the current text."""
        return doc.positions(self.encoding(), analysed)

    def notify(self, method: str, params: Any) -> None:
        try:
            self.protocol.notify(method, params)
        except Exception as error:  # a closed stream must not take the server down
            log.debug("notify %s failed: %s", method, error)

    # --- analysis scheduling ------------------------------------------------------------------
    def schedule(self, doc: Document, immediate: bool = False) -> None:
        if doc.pending is not None and not doc.pending.done():
            doc.pending.cancel()  # an analysis it started finishes, unpublished; a queued one goes
        self.quiet.clear()
        doc.pending = asyncio.get_running_loop().create_task(
            self.analyse(doc, doc.version, doc.text, immediate)
        )

    def settle(self) -> None:
        """Background compiles may go on once no document waits for its analysis."""
        if all(doc.pending is None or doc.pending.done() for doc in self.store):
            self.quiet.set()
            self.converter.start_later()

    def debounce(self, doc: Document) -> float:
        """None for files that analyse fast (the per-function cache makes most edits so): the
        analysis starts at once, and edits made meanwhile wait for it on the analysis thread,
        only the newest queued. Slow files wait half their last analysis (5-60 ms) so that a
        burst of typing is analysed once. Processor time, so that load does not slow it more."""
        if doc.last_duration < SLOW_ANALYSIS:
            return 0.0
        return min(max(doc.last_duration * 0.5, MIN_DEBOUNCE), MAX_DEBOUNCE)

    async def analyse(self, doc: Document, version: int | None, text: str, immediate: bool) -> None:
        try:
            delay = 0.0 if immediate else self.debounce(doc)
            if delay:
                await asyncio.sleep(delay)
            if doc.version != version:
                return
            if not doc.is_pypto:
                doc.analysis = None
                self.publish(doc, [], version)
                doc.analysed.set()
                return
            if doc.too_large:
                doc.analysis = None
                self.publish(doc, [too_large_diagnostic(doc)], version)
                doc.analysed.set()
                return
            self.notify(protocol.STATUS, protocol.StatusParams("analysing", doc.uri))
            from ptoc.frontend import analyze_source

            loop = asyncio.get_running_loop()
            source = analysable(text)
            edition, specs = self.settings.front_end_choices(doc.path, source)
            analyse = partial(analyze_source, edition=edition, jit_specs=specs)
            result, doc.last_duration = await loop.run_in_executor(
                self.analysis_pool, timed, analyse, source, doc.path, doc.cache
            )
            if doc.version != version or doc.text != text:
                return  # stale: a newer edit is already queued; never publish old results
            doc.analysis, doc.analysis_version, doc.analysis_text = result, version, source
            doc.pipelines.keep_only(result)
            if not any(d.code == "E000" for d in result.diagnostics):
                doc.last_clean, doc.last_clean_text = result, source
            doc.analysed.set()
            from ptoc.driver import backend_diagnostics

            known = backend_diagnostics(result, doc.backend_memo, compute=False)
            doc.backend = (version, known)
            self.publish(doc, self.diagnostics_of(doc, result), version)
            self.notify(protocol.PREVIEW_CHANGED, protocol.PreviewChangedParams(doc.uri, version))
            in_force = result.edition.describe() if result.edition is not None else None
            self.notify(protocol.STATUS, protocol.StatusParams("ready", doc.uri, in_force))
            self.schedule_buffers(doc)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.log_error(f"analysis of {doc.uri}", error)
            self.notify(protocol.STATUS, protocol.StatusParams("ready", doc.uri))
        finally:
            asyncio.get_running_loop().call_soon(self.settle)  # once this task is done

    def diagnostics_of(self, doc: Document, analysis: ModuleAnalysis) -> list[types.Diagnostic]:
        from .convert import to_lsp_diagnostic

        items: list[types.Diagnostic] = []
        if analysis.uses_pypto:
            positions = self.positions(doc, doc.analysis_text)
            backend = doc.backend
            extra = backend[1] if backend is not None and backend[0] == doc.analysis_version else []
            from .hardware import ptoas_sync_diagnostics, run_diagnostics

            found = [*analysis.diagnostics, *extra, *run_diagnostics(doc)]
            found += ptoas_sync_diagnostics(doc, found)
            overrides = self.settings.overrides_for(doc.path, {d.code for d in found})
            for diagnostic in found:
                converted = to_lsp_diagnostic(diagnostic, doc.uri, positions, overrides)
                if converted is not None:
                    items.append(converted)
        return items

    def publish(self, doc: Document, items: list[types.Diagnostic], version: int | None) -> None:
        """Publish diagnostics of ``version``, unless a newer version has been published."""
        last = doc.published_version
        if version is not None and last is not None and version < last:
            return
        doc.published_version = version
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(doc.uri, items, version)
        )

    def preview_job(
        self, doc: Document, key: tuple[Any, ...], analysis: ModuleAnalysis
    ) -> asyncio.Future[Any]:
        """The compilation for a preview, shared by requests for the same key; its result is
        kept per (version, target, function, pipeline)."""
        job = doc.preview_jobs.get(key)
        if job is not None:
            return job
        from .features import preview

        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(
            self.preview_pool, doc.pipelines.run, preview.compile_preview, analysis, *key[1:]
        )
        doc.preview_jobs[key] = job

        def done(finished: asyncio.Future[Any]) -> None:
            doc.preview_jobs.pop(key, None)
            if finished.cancelled() or finished.exception() is not None:
                return
            if doc.analysis_version == key[0]:
                doc.previews[key] = finished.result()
                from .hardware import keep_ptoas_sync

                keep_ptoas_sync(self, doc, key, finished.result().sync)

        job.add_done_callback(done)
        return job

    def format_job(self, doc: Document) -> asyncio.Future[Any]:
        """`ptoc fmt` of the document's current text on its own thread; a request that gives up
        waiting leaves it running, and asking again for the same text takes its result."""
        running = doc.format_job
        if running is not None and running[0] is doc.text:
            return running[1]
        from .features import formatting

        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(
            self.format_pool,
            formatting.format_document,
            doc.text,
            doc.path,
            self.settings.line_length,
            self.format_child,
        )
        doc.format_job = (doc.text, job)
        return job

    def symbols_job(self, doc: Document) -> asyncio.Future[Any]:
        """Document symbols of the current text, computed on the syntax thread (tree-sitter and
        the walk stay off the message loop); shared by requests for the same text."""
        running = doc.symbols_job
        if running is not None and running[0] is doc.text:
            return running[1]
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self.syntax_pool, doc.symbols_of, doc.text, self.encoding())
        doc.symbols_job = (doc.text, job)
        return job

    def schedule_buffers(self, doc: Document) -> None:
        task = doc.buffer_task
        if task is not None and not task.done():
            task.cancel()
        doc.buffer_task = asyncio.get_running_loop().create_task(
            self.compute_buffers(doc, doc.version)
        )

    async def compute_buffers(self, doc: Document, version: int | None) -> None:
        try:
            await asyncio.sleep(BUFFER_DELAY)
            analysis = doc.analysis
            if doc.version != version or analysis is None:
                return
            if doc.analysed_loop_depth > MAX_LIVE_LOOP_DEPTH:
                return  # compiling it could take minutes (synchronisation is costly in depth)
            loop = asyncio.get_running_loop()
            await self.compute_backend(doc, version, analysis)
            if doc.version != version or analysis.has_errors:
                return
            from ptoc import driver

            memo = doc.buffer_memo
            pipeline = self.settings.pipeline or driver.default_pipeline(
                self.settings.default_target
            )
            found = await loop.run_in_executor(
                self.compile_pool, doc.pipelines.run, driver.buffer_types, analysis, pipeline, memo
            )
            if len(memo) > 4 * max(len(analysis.function_infos), 64):
                memo.clear()
            if doc.version == version:
                doc.buffers = (version, found)
            from .hardware import compute_facts

            await compute_facts(self, doc, version)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.log_error("buffer computation", error)

    async def compute_backend(
        self, doc: Document, version: int | None, analysis: ModuleAnalysis
    ) -> None:
        """E401 / E402 of the functions not known yet; published again when they add any."""
        from ptoc.driver import backend_diagnostics

        memo = doc.backend_memo
        found = await asyncio.get_running_loop().run_in_executor(
            self.compile_pool, doc.pipelines.run, backend_diagnostics, analysis, memo
        )
        if len(memo) > 4 * max(len(analysis.function_infos), 64):
            memo.clear()
        known = doc.backend
        if doc.version == version and (known is None or known[1] != found):
            doc.backend = (version, found)
            self.publish(doc, self.diagnostics_of(doc, analysis), version)
            from .handlers.diagnostics import refresh

            refresh(self)  # a client that pulls learns of what came from the background

    async def current_analysis(
        self, doc: Document, timeout: float = ANALYSIS_WAIT
    ) -> ModuleAnalysis | None:
        """The analysis of the document's current text, waiting a bounded time for a queued
        one; else the latest analysis (the answer carries its version), or None."""
        if not doc.current and doc.is_pypto and not doc.too_large:
            if doc.pending is None or doc.pending.done():
                self.schedule(doc, immediate=True)
            try:
                await asyncio.wait_for(doc.analysed.wait(), timeout)
            except TimeoutError:
                pass
        return doc.analysis

    def lookup(self, uri: str) -> Document | None:
        doc = self.store.get(uri)
        if doc is None or not doc.is_pypto or doc.analysis is None:
            return None
        return doc

    async def refresh_all(self) -> None:
        """After a configuration change: re-publish what is current, re-analyse the rest."""
        for doc in self.store:
            if doc.current and doc.analysis is not None:
                self.publish(doc, self.diagnostics_of(doc, doc.analysis), doc.analysis_version)
                changed = protocol.PreviewChangedParams(doc.uri, doc.analysis_version)
                self.notify(protocol.PREVIEW_CHANGED, changed)
            else:
                self.schedule(doc, immediate=True)
        caps = self.client_capabilities.workspace
        if caps is not None and caps.inlay_hint is not None and caps.inlay_hint.refresh_support:
            try:
                self.workspace_inlay_hint_refresh(None)
            except Exception:
                pass

    def warm_up(self) -> None:
        """Import the compiler and the features. Called on `initialized`: after `initialize`
        has been answered (a short cold start) and before any document arrives; on the message
        loop, so no two threads ever import the same module at once."""
        import importlib

        if not has_tree_sitter():
            log.warning(NO_TREE_SITTER)
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Warning, NO_TREE_SITTER)
            )
        for name in WARM_UP_MODULES:
            if name == "ptols.syntax" and not has_tree_sitter():
                continue
            try:
                importlib.import_module(name)
            except Exception as error:  # a broken install shows up in the log, not as a crash
                self.log_error(f"loading {name}", error)
        try:
            from ptoc.driver import bound_c_heap, collect_when_grown, preload

            bound_c_heap()  # a long session's C heap stays near what is in use
            collect_when_grown()  # each analysis leaves cycles: free them as they pile up
            preload()  # every compiler stage, so no request pays for the first import
        except Exception as error:
            self.log_error("loading the compiler", error)
        # The converter is warmed once the first analysis is published (``settle``), or soon
        # if no document comes (see converter_warmup).
        self.converter.start_later(WARM_DELAY)

    async def pull_configuration(self) -> None:
        caps = self.client_capabilities.workspace
        if caps is None or not caps.configuration:
            return
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="ptoc")])
            )
        except Exception as error:
            log.info("configuration request failed: %s", error)
            return
        if values:
            self.settings = Settings.from_client(values[0])
            await self.refresh_all()


def timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``function(*args)`` and the processor time this thread spent in it (seconds)."""
    started = time.thread_time()
    result = function(*args)
    return result, time.thread_time() - started


def too_large_diagnostic(doc: Document) -> types.Diagnostic:
    """The one diagnostic of a document above a live-analysis limit, on the line at fault."""
    from ptoc.diagnostics import code_url

    message, row = doc.limit or ("file too large for live analysis", 0)
    end = min(len(doc.index.line(row)), 200)
    return types.Diagnostic(
        range=types.Range(
            types.Position(row, 0), doc.index.position_of(doc.index.offset(row, end), UTF16)
        ),
        message=f"{message} (run `ptoc check` on it)",
        severity=types.DiagnosticSeverity.Warning,
        code="W900",
        code_description=types.CodeDescription(href=code_url("W900")),
        source="ptoc",
    )


def create_server() -> PtolsServer:
    server = PtolsServer()
    from .handlers import register

    register(server)
    return server
