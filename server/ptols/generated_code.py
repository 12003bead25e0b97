"""The code attrs and cattrs generate for lsprotocol's classes, compiled once per installation.

Importing pygls imports lsprotocol.types, and attrs builds each of its ~600 classes there: it
writes their ``__init__``, ``__eq__``, ``__repr__``... as Python source and compiles it (~600
``compile`` calls, two thirds of importing pygls: ~200 of ~330 ms). cattrs does the same for
the reader and writer of each message type the server handles (~300 more, ~40 ms). Both run
while the first document waits for its diagnostics. As Python keeps a module's bytecode in
``__pycache__``, ``__pycache__/generated.<tag>.marshal`` beside this module keeps that code,
each entry under the exact file name and source it was compiled from (so an entry is never
stale) and for the Python that compiled it (``ptoc.codecache``'s file format).

Neither library offers a hook; both call the builtin ``compile`` by name. ``install`` gives
each of their code-generating modules a module-level ``compile`` (a global shadows a builtin)
that answers from the cache and otherwise compiles exactly as the builtin would have there,
with that module's ``__future__`` flags, so the code is the same either way.
"""

from __future__ import annotations
import __future__

import builtins
import sys
from types import CodeType, ModuleType
from typing import Any

from ptoc.codecache import load, path_beside, save

PATH = path_beside(__file__)

#: The builtin, which the modules' own ``compile`` shadows.
builtin_compile = builtins.compile

#: The modules whose generated code is cached: attrs' class builder, cattrs' hook generator.
GENERATORS = ("attr._make", "cattrs.gen")


#: Entries at most: beyond, a flush keeps only what this process used (entries of library
#: versions since replaced pile up otherwise; one start uses ~800).
LIMIT = 4000


class GeneratedCodeCache:
    """Compiled code by file name, mode, flags and source; ``flush`` writes the cache when
    something had to be compiled: every entry, so that a miss early in a start never drops
    entries the same start uses later."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = load(path)
        self.used: dict[str, CodeType] = {}
        self.missed = 0

    def compiler_for(self, module: ModuleType) -> Any:
        """``compile`` as ``module`` sees the builtin, answering from this cache."""
        inherited = future_flags(module)

        def compile(  # noqa: A001  (it stands for the builtin in ``module``)
            source: Any,
            filename: Any,
            mode: str,
            flags: int = 0,
            dont_inherit: bool = False,
            optimize: int = -1,
        ) -> Any:
            flags |= 0 if dont_inherit else inherited
            if not (isinstance(source, str) and isinstance(filename, str) and optimize == -1):
                return builtin_compile(source, filename, mode, flags, True, optimize)
            key = f"{filename}\0{mode}\0{flags}\0{source}"
            code = self.codes.get(key)
            if code is None:
                code = self.codes[key] = builtin_compile(source, filename, mode, flags, True)
                self.missed += 1
            self.used[key] = code
            return code

        return compile

    def flush(self) -> None:
        if self.missed and not sys.dont_write_bytecode:
            save(self.path, self.codes if len(self.codes) <= LIMIT else self.used)
            self.missed = 0


#: The cache ``install`` set up in this process, if any.
installed: GeneratedCodeCache | None = None


def install(path: str = PATH, generators: tuple[str, ...] = GENERATORS) -> GeneratedCodeCache:
    """Compile what these modules generate through one cache from now on (one that is missing
    is left out). They are all imported first: the few classes they build for themselves are
    compiled as before, since one of them (frozen, so hashed) has source that differs in every
    process (a string's hash, salted per process) and would be compiled and written anew on
    every start."""
    import importlib

    global installed
    cache = installed = GeneratedCodeCache(path)
    modules = []
    for name in generators:
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue
    for module in modules:
        module.compile = cache.compiler_for(module)  # type: ignore[attr-defined]
    return cache


def flush() -> None:
    """Keep what was compiled since the last flush (called once a start's work is done)."""
    if installed is not None:
        installed.flush()


def future_flags(module: ModuleType) -> int:
    """The ``__future__`` features ``compile`` inherits when ``module`` calls it."""
    flags = 0
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if module.__dict__.get(name) is feature:
            flags |= int(feature.compiler_flag)
    return flags
