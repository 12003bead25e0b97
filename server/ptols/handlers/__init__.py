"""Every LSP method ptols answers, in one table: method -> module-level handler (+ options).

Handlers are plain module functions ``handler(ls, params)`` in this package's modules, grouped
by what they serve; each is wrapped by ``guarded`` when registered, so an exception inside one
is logged and answered as an LSP error while the server lives. Adding a method is one entry
here and one function (docs/architecture.md, "Adding a handler").
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .. import protocol
from ..rpc import ReportedError
from ..text import Stale
from . import (
    diagnostics,
    editing,
    extensions,
    hardware,
    jit,
    lifecycle,
    navigation,
    structure,
    symbols,
)

if TYPE_CHECKING:
    from ..server import PtolsServer

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Handler:
    method: str
    function: Callable[..., Any]
    options: Any = None  # the method's registration options (trigger characters, kinds)
    guard: bool = True  # False: lifecycle methods, whose errors pygls reports itself
    label: str = ""  # the name errors are reported under; default: the method's last part

    @property
    def name(self) -> str:
        return self.label or self.method.rsplit("/", 1)[-1]


HANDLERS: tuple[Handler, ...] = (
    Handler(types.INITIALIZED, lifecycle.initialized, guard=False),
    Handler(types.EXIT, lifecycle.exit_session, guard=False),
    Handler(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION, lifecycle.did_change_configuration, guard=False
    ),
    Handler(types.TEXT_DOCUMENT_DID_OPEN, lifecycle.did_open),
    Handler(types.TEXT_DOCUMENT_DID_CHANGE, lifecycle.did_change),
    Handler(types.TEXT_DOCUMENT_DID_SAVE, lifecycle.did_save),
    Handler(types.TEXT_DOCUMENT_DID_CLOSE, lifecycle.did_close),
    Handler(types.TEXT_DOCUMENT_HOVER, navigation.hover),
    Handler(types.TEXT_DOCUMENT_DEFINITION, navigation.definition),
    Handler(types.TEXT_DOCUMENT_REFERENCES, navigation.references),
    Handler(types.TEXT_DOCUMENT_PREPARE_RENAME, navigation.prepare_rename),
    Handler(types.TEXT_DOCUMENT_RENAME, navigation.rename),
    Handler(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, symbols.document_symbol),
    Handler(types.WORKSPACE_SYMBOL, symbols.workspace_symbol, label="workspaceSymbol"),
    Handler(
        types.COMPLETION_ITEM_RESOLVE, editing.completion_resolve, label="completionItem/resolve"
    ),
    Handler(types.TEXT_DOCUMENT_COMPLETION, editing.completion, editing.COMPLETION_OPTIONS),
    Handler(types.TEXT_DOCUMENT_SIGNATURE_HELP, editing.signature_help, editing.SIGNATURE_OPTIONS),
    Handler(types.TEXT_DOCUMENT_INLAY_HINT, editing.inlay_hint),
    Handler(types.TEXT_DOCUMENT_CODE_ACTION, editing.code_action, editing.CODE_ACTION_OPTIONS),
    Handler(types.CODE_ACTION_RESOLVE, editing.code_action_resolve, label="codeAction/resolve"),
    Handler(types.TEXT_DOCUMENT_FORMATTING, editing.formatting),
    Handler(types.TEXT_DOCUMENT_RANGE_FORMATTING, editing.range_formatting),
    Handler(
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
        structure.semantic_tokens_full,
        structure.SEMANTIC_TOKENS_LEGEND,
        label="semanticTokens/full",
    ),
    Handler(
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
        structure.semantic_tokens_delta,
        structure.SEMANTIC_TOKENS_LEGEND,
        label="semanticTokens/full/delta",
    ),
    Handler(types.TEXT_DOCUMENT_FOLDING_RANGE, structure.folding_range),
    Handler(types.TEXT_DOCUMENT_SELECTION_RANGE, structure.selection_range),
    Handler(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, structure.document_highlight),
    Handler(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, structure.prepare_call_hierarchy),
    Handler(
        types.CALL_HIERARCHY_INCOMING_CALLS,
        structure.incoming_calls,
        label="callHierarchy/incomingCalls",
    ),
    Handler(
        types.CALL_HIERARCHY_OUTGOING_CALLS,
        structure.outgoing_calls,
        label="callHierarchy/outgoingCalls",
    ),
    Handler(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        diagnostics.document_diagnostic,
        diagnostics.DIAGNOSTIC_OPTIONS,
        label="textDocument/diagnostic",
    ),
    Handler(
        types.WORKSPACE_DIAGNOSTIC, diagnostics.workspace_diagnostic, label="workspace/diagnostic"
    ),
    Handler(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, diagnostics.did_change_watched_files),
    Handler(protocol.PREVIEW, extensions.preview),
    Handler(protocol.FUNCTIONS, extensions.functions),
    Handler(protocol.TEXT_DIGEST, extensions.text_digest),
    Handler(protocol.PASSES, extensions.passes),
    Handler(protocol.SOURCE_MAP, hardware.source_map),
    Handler(protocol.MEMORY_MAP, hardware.memory_map),
    Handler(protocol.RUN, hardware.run),
    Handler(protocol.TIMELINE, hardware.timeline),
    Handler(protocol.SPECIALISATIONS, jit.specialisations),
    Handler(protocol.PASS_DIFF, hardware.pass_diff),
    Handler(protocol.INSTRUCTION, extensions.instruction),
    Handler(types.TEXT_DOCUMENT_CODE_LENS, hardware.code_lens, hardware.CODE_LENS_OPTIONS),
)


def register(server: PtolsServer) -> None:
    for handler in HANDLERS:
        function = handler.function
        if handler.guard:
            function = guarded(server, handler.name)(function)
        if handler.options is None:
            server.feature(handler.method)(function)
        else:
            server.feature(handler.method, handler.options)(function)


def guarded(server: PtolsServer, name: str) -> Callable[[F], F]:
    """An exception inside a handler is logged and answered as an LSP error; the server lives.
    A JsonRpcException is an answer the handler chose (InvalidParams, a refused rename); Stale
    means the answer would point into text changed since the analysis: no answer."""

    def failed(error: Exception) -> ReportedError:
        server.log_error(name, error)  # once: the answer is not logged again (rpc.py)
        return ReportedError(f"ptols: {name} failed: {error}")

    def wrap(fn: F) -> F:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except (asyncio.CancelledError, JsonRpcException):
                    raise
                except Stale:
                    return None
                except Exception as error:
                    raise failed(error) from error

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except JsonRpcException:
                raise
            except Stale:
                return None
            except Exception as error:
                raise failed(error) from error

        return run  # type: ignore[return-value]

    return wrap
