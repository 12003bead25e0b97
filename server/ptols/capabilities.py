"""The answer to ``initialize``, written without pygls or lsprotocol (early.py sends it before
they load: importing them is most of a cold start).

pygls derives that answer from the methods registered (handlers/__init__.py) with their options,
and from three things in the client's capabilities: the position encodings it offers, whether it
states ``willSave`` / ``willSaveWaitUntil``, and rename's ``prepareSupport``. ``ADVERTISED`` holds
the rest in the order pygls writes it. tests/server/test_lsp_initialize_answer.py compares this
module's answer with pygls' own, as JSON text, for several real clients, so the table cannot
drift from the handlers; at run time the server compares them again (rpc.py, early.py).

Parameters this module does not fully understand (an unexpected type where it reads a value, or
in a field pygls checks) get no answer here: pygls answers them, as it always did.
"""

from __future__ import annotations

from typing import Any

from . import __version__

NAME = "ptols"

# Registration options of the methods that take some, as lsprotocol's keyword arguments; the
# handler table builds its lsprotocol options from these (handlers/editing.py, hardware.py).
COMPLETION_OPTIONS: dict[str, Any] = {
    "trigger_characters": [".", "(", ",", "="],
    "resolve_provider": True,
}
SIGNATURE_OPTIONS: dict[str, Any] = {"trigger_characters": ["(", ","]}
CODE_ACTION_OPTIONS: dict[str, Any] = {
    "code_action_kinds": ["quickfix", "refactor.rewrite", "source.fixAll.ptoc"],
    "resolve_provider": True,  # "Upgrade to PyPTO 2026-08" computes its edit when chosen
}
CODE_LENS_OPTIONS: dict[str, Any] = {"resolve_provider": False}
# The semantic tokens legend (features/semantic_tokens.py says what each one marks). Standard
# token types, so every theme colours them; the kernel's own distinctions are modifiers.
TOKEN_TYPES = [
    "namespace",  # the module's alias and op namespaces: `pl`, `pl.block`
    "type",  # pl.Tensor, pl.Tile, pl.Scalar
    "enum",  # pl.MemorySpace, pl.FunctionType
    "enumMember",  # dtypes (pl.FP32) and enum members (pl.MemorySpace.Vec)
    "function",  # program functions; ops with `defaultLibrary`
    "macro",  # DSL helpers: pl.range, pl.yield_, pl.incore, pl.const
    "decorator",  # pl.program, pl.function, pl.inline
    "class",  # a @pl.program class
    "parameter",
    "variable",
]
TOKEN_MODIFIERS = [
    "declaration",
    "readonly",  # module constants
    "defaultLibrary",  # ops and everything else the DSL defines
    "tile",
    "tensor",
    "scalar",
    "loopCarried",  # an iter_arg: bound to its init value, then to what the body yields
    "memorySpace",  # pl.MemorySpace.X
    "dtype",  # pl.FP32 ...
]
DIAGNOSTIC_OPTIONS: dict[str, Any] = {  # in lsprotocol's field order (pygls writes that)
    "inter_file_dependencies": False,
    "workspace_diagnostics": True,
    "identifier": "ptoc",
}
SEMANTIC_TOKENS_LEGEND: dict[str, Any] = {
    "token_types": TOKEN_TYPES,
    "token_modifiers": TOKEN_MODIFIERS,
}

ENCODINGS = ("utf-8", "utf-16", "utf-32")  # what ptols (and pygls) can count positions in
DEFAULT_ENCODING = "utf-16"
INCREMENTAL = 2  # TextDocumentSyncKind.Incremental, pygls' default and ptols' choice


def camel(options: dict[str, Any]) -> dict[str, Any]:
    """lsprotocol's keyword arguments -> the JSON field names."""
    return {camel_name(name): value for name, value in options.items()}


def camel_name(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


class Unknown(Exception):
    """A value of a type pygls might refuse or read differently: pygls answers instead."""


def is_a(value: Any, kind: type | tuple[type, ...]) -> bool:
    """isinstance, except that JSON's true / false are no numbers."""
    return kind is bool if isinstance(value, bool) else isinstance(value, kind)


def field(data: Any, *path: str, kind: type | tuple[type, ...] = bool) -> Any:
    """The value at ``path`` in nested JSON objects (None where absent or null); Unknown when a
    step is not an object or the value is not of ``kind``."""
    for name in path:
        if data is None:
            return None
        if not isinstance(data, dict):
            raise Unknown(name)
        data = data.get(name)
    if data is not None and not is_a(data, kind):
        raise Unknown(path[-1])
    return data


def strings(data: Any, *path: str) -> list[str] | None:
    values = field(data, *path, kind=list)
    if values is not None and not all(isinstance(value, str) for value in values):
        raise Unknown(path[-1])
    return values


def check_params(params: dict[str, Any]) -> None:
    """The fields of InitializeParams whose type pygls checks, other than the capabilities."""
    if not isinstance(params.get("capabilities"), dict):
        raise Unknown("capabilities")
    field(params, "processId", kind=int)
    for name in ("locale", "rootPath", "rootUri"):
        field(params, name, kind=str)
    if params.get("clientInfo") is not None:
        if field(params, "clientInfo", "name", kind=str) is None:
            raise Unknown("clientInfo")
        field(params, "clientInfo", "version", kind=str)
    if params.get("trace") not in (None, "off", "messages", "verbose"):
        raise Unknown("trace")
    field(params, "workDoneToken", kind=(int, str))
    for folder in field(params, "workspaceFolders", kind=list) or []:
        for name in ("uri", "name"):
            if not isinstance(field(folder, name, kind=str), str):
                raise Unknown("workspaceFolders")


def position_encoding(capabilities: dict[str, Any]) -> str:
    """The client's first offer that ptols supports; else UTF-16 (the protocol's default)."""
    for offered in strings(capabilities, "general", "positionEncodings") or []:
        if offered in ENCODINGS:
            return offered
    return DEFAULT_ENCODING


def text_document_sync(capabilities: dict[str, Any]) -> dict[str, Any]:
    sync: dict[str, Any] = {"openClose": True, "change": INCREMENTAL}
    # pygls writes `false` (ptols handles neither) when the client states either at all
    for name in ("willSave", "willSaveWaitUntil"):
        if field(capabilities, "textDocument", "synchronization", name) is not None:
            sync[name] = False
    sync["save"] = True
    return sync


def rename_provider(capabilities: dict[str, Any]) -> Any:
    """Rename options only for a client that supports prepareRename (the protocol's rule)."""
    if field(capabilities, "textDocument", "rename", "prepareSupport"):
        return {"prepareProvider": True}
    return True


def server_capabilities(capabilities: dict[str, Any]) -> dict[str, Any]:
    """ServerCapabilities as pygls writes them for ptols' handlers, in pygls' field order."""
    return {
        "positionEncoding": position_encoding(capabilities),
        "textDocumentSync": text_document_sync(capabilities),
        "completionProvider": camel(COMPLETION_OPTIONS),
        "hoverProvider": True,
        "signatureHelpProvider": camel(SIGNATURE_OPTIONS),
        "definitionProvider": True,
        "referencesProvider": True,
        "documentHighlightProvider": True,
        "documentSymbolProvider": True,
        "codeActionProvider": camel(CODE_ACTION_OPTIONS),
        "codeLensProvider": {**camel(CODE_LENS_OPTIONS), "resolveProvider": False},
        "workspaceSymbolProvider": {"resolveProvider": False},
        "documentFormattingProvider": True,
        "documentRangeFormattingProvider": True,
        "renameProvider": rename_provider(capabilities),
        "foldingRangeProvider": True,
        "selectionRangeProvider": True,
        "executeCommandProvider": {"commands": []},
        "callHierarchyProvider": True,
        "semanticTokensProvider": {
            "legend": camel(SEMANTIC_TOKENS_LEGEND),
            "full": {"delta": True},
        },
        "inlayHintProvider": {"resolveProvider": False},
        "diagnosticProvider": camel(DIAGNOSTIC_OPTIONS),
        "workspace": {
            "workspaceFolders": {"supported": True, "changeNotifications": True},
            "fileOperations": {},
        },
    }


def initialize_result(params: Any) -> dict[str, Any] | None:
    """InitializeResult as pygls would send it for ``params`` (JSON data); None when ``params``
    hold something this module does not understand."""
    if not isinstance(params, dict):
        return None
    try:
        check_params(params)
        capabilities = server_capabilities(params["capabilities"])
    except Unknown:
        return None
    return {"capabilities": capabilities, "serverInfo": {"name": NAME, "version": __version__}}
