"""The code attrs generates for lsprotocol's classes, compiled once per installation.

Importing pygls imports lsprotocol.types, and attrs builds each of its ~600 classes there: it
writes their ``__init__``, ``__eq__``, ``__repr__``... as Python source and compiles it, ~620
``compile`` calls, two thirds of the server's start after ``initialize`` is answered (~200 of
~330 ms, during which the first document waits for its diagnostics). As Python keeps a module's
bytecode in ``__pycache__``, ``__pycache__/attrs.<tag>.marshal`` beside this module keeps that
code, each entry under attrs' exact file name and source (so an entry is never stale) and for
the Python that compiled it (``ptoc.codecache``'s file format).

attrs offers no hook for this; it compiles in one private function, ``_compile_and_eval(script,
globs, locs, filename)``. ``install`` replaces it only where it has exactly that signature, and
compiles as attrs itself would (the same ``__future__`` flags as attrs' module), so the code is
the same either way; with another attrs, nothing is replaced and the server starts as before.
"""

from __future__ import annotations
import __future__

import os
import sys
from collections.abc import Mapping
from types import CodeType, ModuleType
from typing import Any

from ptoc.codecache import load, save

PATH = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "__pycache__",
    f"attrs.{sys.implementation.cache_tag}.marshal",
)

#: The parameters of the attrs function replaced; any other shape is left alone.
EXPECTED = ["script", "globs", "locs", "filename"]


class AttrsCodeCache:
    """Compiled attrs code by ``filename + NUL + source``; ``flush`` writes what this process
    used when something had to be compiled (entries of an older attrs drop out)."""

    def __init__(self, path: str, flags: int) -> None:
        self.path = path
        self.flags = flags
        self.codes: dict[str, CodeType] = load(path)
        self.used: dict[str, CodeType] = {}
        self.missed = 0

    def compile_and_eval(
        self,
        script: str,
        globs: dict[str, Any] | None,
        locs: Mapping[str, object] | None = None,
        filename: str = "",
    ) -> None:
        key = f"{filename}\0{script}"
        code = self.codes.get(key)
        if code is None:
            code = self.codes[key] = compile(
                script, filename, "exec", flags=self.flags, dont_inherit=True
            )
            self.missed += 1
        self.used[key] = code
        eval(code, globs, locs)

    def flush(self) -> None:
        if self.missed and not sys.dont_write_bytecode:
            save(self.path, self.used)
            self.missed = 0


def install(path: str = PATH) -> AttrsCodeCache | None:
    """Compile attrs' generated code through a cache from now on (None: this attrs compiles
    elsewhere, and is left as it is)."""
    try:
        import attr._make as make
    except ImportError:
        return None
    code = getattr(getattr(make, "_compile_and_eval", None), "__code__", None)
    if code is None or list(code.co_varnames[: code.co_argcount]) != EXPECTED:
        return None
    cache = AttrsCodeCache(path, future_flags(make))
    make._compile_and_eval = cache.compile_and_eval  # type: ignore[attr-defined]
    return cache


def future_flags(module: ModuleType) -> int:
    """The ``__future__`` features ``compile`` inherits when ``module`` calls it."""
    flags = 0
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if module.__dict__.get(name) is feature:
            flags |= int(feature.compiler_flag)
    return flags
