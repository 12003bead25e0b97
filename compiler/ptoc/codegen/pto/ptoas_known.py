"""Forms of PTO MLIR a PTOAS version is known to crash on, found before it is run: a crash says
only "exit code -11, no output", so ptoc names the form and the line instead.

* PTOAS before v0.57 (v0.27 is the vendored one) crashes on an ``scf.for`` that carries a
  ``!pto.tensor_view`` in its ``iter_args`` (a loop that stores into a loop-carried output
  tensor: row softmax, layer norm, GEMM over 2x2 output tiles); v0.57 accepts it.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from ...scratch import run_tool

#: The first version known to assemble loop-carried tensor views.
CARRIES_TENSOR_VIEWS = (0, 57)
VERSION_TIMEOUT = 10  # seconds for `ptoas --version`
_VERSION = re.compile(r"ptoas\s+v?(\d+)\.(\d+)", re.IGNORECASE)
# "%4 = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %3) -> (!pto.tensor_view<?x?xf32>) {"
_CARRYING_LOOP = re.compile(r"scf\.for .*iter_args\((?P<args>.*)\) -> \((?P<types>.*)\) \{$")


def version(ptoas: Path) -> tuple[int, int] | None:
    """PTOAS's ``--version`` (``ptoas 0.27``) as (major, minor); None when it says none."""
    stat = ptoas.stat()
    return _version(str(ptoas), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _version(ptoas: str, mtime_ns: int, size: int) -> tuple[int, int] | None:
    try:
        done = run_tool([ptoas, "--version"], VERSION_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _VERSION.search(done.stdout + done.stderr)
    return (int(found[1]), int(found[2])) if found else None


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside <...>, (...) and [...] (types hold commas)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts


def carried_tensor_views(mlir: str) -> list[tuple[int, int, list[str]]]:
    """(1-based line, 1-based column, carried names) of each ``scf.for`` carrying tensor views."""
    found = []
    for number, line in enumerate(mlir.splitlines(), 1):
        loop = _CARRYING_LOOP.search(line)
        if loop is None or "!pto.tensor_view" not in loop["types"]:
            continue
        pairs = zip(split_top_level(loop["args"]), split_top_level(loop["types"]), strict=False)
        names = [arg.split("=")[0].strip() for arg, kind in pairs if "!pto.tensor_view" in kind]
        found.append((number, line.index("scf.for") + 1, names))
    return found


def known_crashes(mlir: str, ptoas: Path) -> list[tuple[int, int, str]]:
    """(line, column, message) for each form in ``mlir`` that this ``ptoas`` is known to crash
    on; empty when there is none (or its version is unknown: it is then run)."""
    loops = carried_tensor_views(mlir)
    if not loops:
        return []
    found = version(ptoas)
    if found is None or found >= CARRIES_TENSOR_VIEWS:
        return []
    named = ".".join(map(str, found))
    wanted = ".".join(map(str, CARRIES_TENSOR_VIEWS))
    return [
        (
            line,
            column,
            f"v{named} crashes on an scf.for that carries a !pto.tensor_view in its iter_args"
            f" ({', '.join(names)}: a tensor stored into inside the loop), so it was not run;"
            f" PTOAS v{wanted} accepts it (set $PTOAS or --ptoas to it)",
        )
        for line, column, names in loops
    ]
