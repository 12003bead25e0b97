"""Which functions are ``@pl.jit`` ones, read from their decorators alone. Kept apart from
``jit.py`` so that analysing a file without JIT kernels never loads the JIT machinery."""

from __future__ import annotations

import ast

from .names import attribute_chain

SUB_KINDS = ("incore", "inline", "opaque", "host", "extern")


def jit_kind(decorator: ast.expr) -> str | None:
    """``@pl.jit`` -> "jit", ``@pl.jit.incore(level=...)`` -> "incore"; None: not a JIT one."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    chain = attribute_chain(target)
    if not chain:
        return None
    if chain[-1] == "jit":
        return "jit"
    if len(chain) >= 2 and chain[-2] == "jit" and chain[-1] in SUB_KINDS:
        return chain[-1]
    return None


def jit_decorator(fn: ast.FunctionDef) -> tuple[ast.expr, str] | None:
    for decorator in fn.decorator_list:
        kind = jit_kind(decorator)
        if kind is not None:
            return decorator, kind
    return None
