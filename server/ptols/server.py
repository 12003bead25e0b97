"""The ptols language server: document lifecycle, background analysis, feature wiring."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from . import __version__, protocol
from .config import Settings
from .documents import Document, DocumentStore

if TYPE_CHECKING:  # the compiler loads after `initialize` (see warm_up): cold start stays short
    from ptoc.frontend import ModuleAnalysis

    from .convert import Positions

log = logging.getLogger("ptols")
F = TypeVar("F", bound=Callable[..., Any])

MIN_DEBOUNCE = 0.005
MAX_DEBOUNCE = 0.060
BUFFER_DELAY = 0.400  # idle time before computing buffer/address hovers
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
)


class PtolsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ptols", __version__)
        self.store = DocumentStore()
        self.settings = Settings()
        self.analysis_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-analysis")
        self.compile_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptols-compile")
        self.buffers: dict[str, tuple[int | None, dict[Any, Any]]] = {}
        self.buffer_tasks: dict[str, asyncio.Task[Any]] = {}
        self.buffer_memo: dict[str, dict[Any, Any]] = {}
        # E401 / E402 per document (version, diagnostics), computed per function in the
        # background; the memo keeps each function's result while it is unchanged.
        self.backend: dict[str, tuple[int | None, list[Any]]] = {}
        self.backend_memo: dict[str, dict[Any, Any]] = {}

    # --- helpers ------------------------------------------------------------------------------
    def log_error(self, where: str, error: BaseException) -> None:
        text = "".join(traceback.format_exception(error))
        log.error("%s failed:\n%s", where, text)
        try:
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"ptols: {where} failed: {error}\n{text}"))
        except Exception:
            pass

    def codec(self) -> Any:
        return self.workspace.position_codec

    def positions(self, doc: Document, text: str | None = None) -> Positions:
        return doc.positions(self.codec(), text)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        try:
            self.protocol.notify(method, params)
        except Exception as error:  # a closed stream must not take the server down
            log.debug("notify %s failed: %s", method, error)

    # --- analysis scheduling ------------------------------------------------------------------
    def schedule(self, doc: Document, immediate: bool = False) -> None:
        if doc.pending is not None and not doc.pending.done():
            doc.pending.cancel()
        doc.pending = asyncio.get_running_loop().create_task(self.analyse(doc, doc.version, doc.text, immediate))

    def debounce(self, doc: Document) -> float:
        """Adaptive: short for files that analyse fast, longer (bounded) for slow ones."""
        return min(max(doc.last_duration * 0.5, MIN_DEBOUNCE), MAX_DEBOUNCE)

    async def analyse(self, doc: Document, version: int | None, text: str, immediate: bool) -> None:
        try:
            if not immediate:
                await asyncio.sleep(self.debounce(doc))
            if doc.version != version:
                return
            if not doc.is_pypto:
                self.publish(doc, None)
                return
            self.notify(protocol.STATUS, {"state": "analysing", "uri": doc.uri})
            from ptoc.frontend import analyze_source

            loop = asyncio.get_running_loop()
            started = time.perf_counter()
            result: ModuleAnalysis = await loop.run_in_executor(
                self.analysis_pool, analyze_source, text, doc.path, doc.cache
            )
            doc.last_duration = time.perf_counter() - started
            if doc.version != version or doc.text != text:
                return  # stale: a newer edit is already queued; never publish old results
            doc.analysis, doc.analysis_version, doc.analysis_text = result, version, text
            if not any(d.code == "E000" for d in result.diagnostics):
                doc.last_clean, doc.last_clean_text = result, text
            doc.analysed.set()
            from ptoc.driver import backend_diagnostics

            known = backend_diagnostics(result, self.backend_memo.setdefault(doc.uri, {}), compute=False)
            self.backend[doc.uri] = (version, known)
            self.publish(doc, result)
            self.notify(protocol.PREVIEW_CHANGED, {"uri": doc.uri, "version": version})
            self.notify(protocol.STATUS, {"state": "ready", "uri": doc.uri})
            self.schedule_buffers(doc)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.log_error(f"analysis of {doc.uri}", error)
            self.notify(protocol.STATUS, {"state": "ready", "uri": doc.uri})

    def publish(self, doc: Document, analysis: ModuleAnalysis | None) -> None:
        from .convert import to_lsp_diagnostic

        items: list[types.Diagnostic] = []
        if analysis is not None and analysis.uses_pypto:
            positions = self.positions(doc, doc.analysis_text)
            backend = self.backend.get(doc.uri)
            extra = backend[1] if backend is not None and backend[0] == doc.analysis_version else []
            found = [*analysis.diagnostics, *extra]
            overrides = self.settings.overrides_for(doc.path, {d.code for d in found})
            for diagnostic in found:
                converted = to_lsp_diagnostic(diagnostic, doc.uri, positions, overrides)
                if converted is not None:
                    items.append(converted)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(doc.uri, items, doc.analysis_version if analysis else doc.version))

    def forget(self, uri: str) -> None:
        """Drop everything kept for a closed document (buffer hovers, their memo and task)."""
        self.buffers.pop(uri, None)
        self.buffer_memo.pop(uri, None)
        self.backend.pop(uri, None)
        self.backend_memo.pop(uri, None)
        task = self.buffer_tasks.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    def schedule_buffers(self, doc: Document) -> None:
        task = self.buffer_tasks.get(doc.uri)
        if task is not None and not task.done():
            task.cancel()
        self.buffer_tasks[doc.uri] = asyncio.get_running_loop().create_task(self.compute_buffers(doc, doc.version))

    async def compute_buffers(self, doc: Document, version: int | None) -> None:
        try:
            await asyncio.sleep(BUFFER_DELAY)
            analysis = doc.analysis
            if doc.version != version or analysis is None:
                return
            loop = asyncio.get_running_loop()
            await self.compute_backend(doc, version, analysis)
            if doc.version != version or analysis.has_errors:
                return
            from ptoc import driver

            memo = self.buffer_memo.setdefault(doc.uri, {})
            pipeline = self.settings.pipeline or driver.default_pipeline(self.settings.default_target)
            found = await loop.run_in_executor(self.compile_pool, driver.buffer_types, analysis, pipeline, memo)
            if len(memo) > 4 * max(len(analysis.function_infos), 64):
                memo.clear()
            if doc.version == version:
                self.buffers[doc.uri] = (version, found)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.log_error("buffer computation", error)

    async def compute_backend(self, doc: Document, version: int | None, analysis: ModuleAnalysis) -> None:
        """E401 / E402 of the functions not known yet; published again when they add any."""
        from ptoc.driver import backend_diagnostics

        memo = self.backend_memo.setdefault(doc.uri, {})
        found = await asyncio.get_running_loop().run_in_executor(
            self.compile_pool, backend_diagnostics, analysis, memo)
        if len(memo) > 4 * max(len(analysis.function_infos), 64):
            memo.clear()
        known = self.backend.get(doc.uri)
        if doc.version == version and (known is None or known[1] != found):
            self.backend[doc.uri] = (version, found)
            self.publish(doc, analysis)

    async def current_analysis(self, doc: Document, timeout: float = 5.0) -> ModuleAnalysis | None:
        """The analysis of the document's current text (waits for a queued analysis)."""
        if not doc.current:
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
        for doc in self.store:
            if doc.analysis is not None:
                self.publish(doc, doc.analysis)
                self.notify(protocol.PREVIEW_CHANGED, {"uri": doc.uri, "version": doc.analysis_version})
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

        for name in WARM_UP_MODULES:
            try:
                importlib.import_module(name)
            except Exception as error:  # a broken install shows up in the log, not as a crash
                self.log_error(f"loading {name}", error)
        try:
            from ptoc.driver import preload

            preload()  # every compiler stage, so no request pays for the first import
        except Exception as error:
            self.log_error("loading the compiler", error)

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


def guarded(server: PtolsServer, name: str) -> Callable[[F], F]:
    """An exception inside a handler is logged and answered as an LSP error; the server lives."""

    def wrap(fn: F) -> F:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except (asyncio.CancelledError, JsonRpcException):
                    raise  # a cancellation, or an answer the handler chose (a refused rename)
                except Exception as error:
                    server.log_error(name, error)
                    raise JsonRpcInternalError(f"ptols: {name} failed: {error}") from error

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except JsonRpcException:
                raise  # an answer the handler chose (a refused rename)
            except Exception as error:
                server.log_error(name, error)
                raise JsonRpcInternalError(f"ptols: {name} failed: {error}") from error

        return run  # type: ignore[return-value]

    return wrap


def create_server() -> PtolsServer:
    server = PtolsServer()
    from .handlers import register

    register(server)
    return server
