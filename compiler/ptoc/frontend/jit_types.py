"""What a JIT kernel's text fixes about its types before any call (spec §3.3): ``pl.RUNTIME``
marks a scalar parameter a run-time value (E211 anywhere else), and each bare tensor has one
dtype, its dtype variable, so two tiles loaded from it and annotated with different dtypes
clash for every call (E212)."""

from __future__ import annotations

import ast

from ..diagnostics import DiagnosticBag, Related
from .jit_calls import bare_tensor
from .names import attribute_chain
from .source import SourceText


def is_runtime(node: ast.expr | None) -> bool:
    chain = attribute_chain(node) if node is not None else None
    return bool(chain) and chain is not None and chain[-1] == "RUNTIME"


def runtime_params(fn: ast.FunctionDef) -> list[str]:
    """The parameters whose default is ``pl.RUNTIME``: run-time values, not compile-time."""
    return [arg.arg for arg, default in defaults(fn) if is_runtime(default)]


def defaults(fn: ast.FunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    positional = fn.args.args[len(fn.args.args) - len(fn.args.defaults) :]
    pairs = list(zip(positional, fn.args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d]
    return pairs


def check_runtime_defaults(fn: ast.FunctionDef, source: SourceText, bag: DiagnosticBag) -> None:
    for arg, default in defaults(fn):
        if is_runtime(default) and bare_tensor(arg.annotation) is not None:
            bag.error(
                "E211",
                f"pl.RUNTIME marks a scalar parameter a run-time value; '{arg.arg}' is a tensor, "
                "whose shape and dtype come from the call",
                source.span(default),
            )


def tile_dtype(annotation: ast.expr) -> ast.expr | None:
    """The dtype of ``pl.Tile[[64, 64], pl.FP32]`` (its node)."""
    if not isinstance(annotation, ast.Subscript):
        return None
    chain = attribute_chain(annotation.value)
    index = annotation.slice
    if not chain or chain[-1] != "Tile" or not isinstance(index, ast.Tuple):
        return None
    return index.elts[1] if len(index.elts) >= 2 else None


def loaded_from(value: ast.expr) -> str | None:
    """The tensor ``pl.load(a, ...)`` (or ``pl.tile.load``) reads, by name."""
    if not (isinstance(value, ast.Call) and value.args):
        return None
    chain = attribute_chain(value.func)
    tensor = value.args[0]
    if chain and chain[-1] == "load" and isinstance(tensor, ast.Name):
        return tensor.id
    return None


def check_dtype_clashes(fn: ast.FunctionDef, source: SourceText, bag: DiagnosticBag) -> None:
    tensors = {a.arg for a in fn.args.args if bare_tensor(a.annotation) is not None}
    first: dict[str, tuple[str, ast.expr]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.AnnAssign) and node.value is not None):
            continue
        tensor, dtype = loaded_from(node.value), tile_dtype(node.annotation)
        chain = attribute_chain(dtype) if dtype is not None else None
        if tensor not in tensors or dtype is None or not chain:
            continue
        assert tensor is not None
        name = chain[-1]
        if tensor not in first:
            first[tensor] = (name, dtype)
            continue
        seen, where = first[tensor]
        if seen != name:
            bag.error(
                "E212",
                f"tiles loaded from '{tensor}' are annotated {seen} and {name}: both hold "
                f"dtype({tensor}), which no call can make both",
                source.span(dtype),
                related=(Related(source.span(where), f"annotated {seen} here"),),
            )


def check_types(fn: ast.FunctionDef, source: SourceText, bag: DiagnosticBag) -> None:
    check_runtime_defaults(fn, source, bag)
    check_dtype_clashes(fn, source, bag)
