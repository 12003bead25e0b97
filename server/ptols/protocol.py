"""The custom LSP extensions of ptols (documented in docs/lsp-extensions.md)."""

from __future__ import annotations

from typing import Any

PREVIEW = "ptols/preview"  # request: {textDocument: {uri}, target, function?} -> preview
PREVIEW_CHANGED = "ptols/previewChanged"  # notification: {uri, version}
FUNCTIONS = "ptols/functions"  # request: {textDocument: {uri}} -> {functions: [...]}
PASSES = "ptols/passes"  # request: {} -> {passes: [...], pipelines: {...}}
TEXT_DIGEST = "ptols/textDigest"  # request: {textDocument: {uri}} -> {version, length, sha256}
STATUS = "ptols/status"  # notification: {state: "analysing"|"ready", uri?}


def field(params: Any, *path: str, default: Any = None) -> Any:
    """Read a field of custom params, which arrive as plain data (dict) or attribute objects."""
    value = params
    for key in path:
        if value is None:
            return default
        if isinstance(value, dict):
            value = value.get(key)
        else:
            value = getattr(value, key, None)
    return default if value is None else value
