"""Code compiled from generated source, kept between runs as modules' bytecode is.

``records`` compiles an ``__init__`` per shape of class, ``ir.visitor`` a copier and a rebuilder
per node class and ``ir.walk`` a step per node class and walker: small functions compiled at
every start of ``ptoc check`` (about a tenth of it went to Python's parser and compiler). As
``__pycache__`` keeps a module's code, ``__pycache__/generated.<tag>.marshal`` beside this
module keeps these, each under its exact source text (so an entry is never stale), for the
Python version that compiled it. It is read once per process and rewritten when a source is new;
nothing is written when Python writes no bytecode (``-B``, ``PYTHONDONTWRITEBYTECODE``) or
cannot write there, and an unreadable file is ignored.
"""

from __future__ import annotations

import _thread
import marshal
import os
import sys
from types import CodeType


def path_beside(module_file: str) -> str:
    """Where the cache of a package's generated code lives: its ``__pycache__``, under this
    Python's tag, as the package's bytecode does."""
    folder = os.path.dirname(os.path.abspath(module_file))
    return os.path.join(folder, "__pycache__", f"generated.{sys.implementation.cache_tag}.marshal")


PATH = path_beside(__file__)

#: Entries at most (ptoc generates ~100 sources; a full cache starts afresh).
LIMIT = 1000

_codes: dict[str, CodeType] | None = None


def compiled(source: str) -> CodeType:
    """``compile(source, "<string>", "exec")``, from the cache when it holds ``source``."""
    global _codes
    codes = _codes if _codes is not None else load(PATH)
    _codes = codes
    code = codes.get(source)
    if code is None:
        if len(codes) >= LIMIT:  # sources of classes since renamed pile up in a working copy
            codes.clear()
        code = codes[source] = compile(source, "<string>", "exec")
        if not sys.dont_write_bytecode:
            save(PATH, codes)
    return code


def load(path: str) -> dict[str, CodeType]:
    """The cached code by source; empty when the file is missing, damaged or was written by
    another Python."""
    try:
        with open(path, "rb") as file:
            version, codes = marshal.loads(file.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if version != sys.hexversion or not isinstance(codes, dict):
        return {}
    return codes


def save(path: str, codes: dict[str, CodeType]) -> None:
    """Write the cache whole, atomically: a reader sees the old file or the new one."""
    partial = f"{path}.{os.getpid()}.{_thread.get_ident()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as file:
            file.write(marshal.dumps((sys.hexversion, dict(codes))))
        os.replace(partial, path)
    except OSError:  # a read-only installation: compile again next time
        try:
            os.remove(partial)
        except OSError:
            pass
