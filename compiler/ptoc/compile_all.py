"""``ptoc compile`` of a file whose ``@pl.jit`` kernels are called with several shapes: with no
``--specialise``, every specialisation, each headed by the calls it comes from. On standard
output they follow each other; with ``-o OUT`` the first goes to OUT and the n-th to OUT with
``.n`` before its suffix (two specialisations of one kernel define the same C++ or MLIR symbol,
so one file could not hold both)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .driver import CompileResult
    from .frontend import ModuleAnalysis

#: The options that describe one compile (a source map, pass dumps, a timeline ...): with any
#: of them the first specialisation alone is compiled, as ``--specialise 1`` would.
SINGLE_COMPILE_OPTIONS = (
    "dump_passes",
    "pass_diff",
    "timeline",
    "timeline_summary",
    "memory_map",
    "line_map",
    "verify_sync",
)


def rounds(analysis: ModuleAnalysis, args: argparse.Namespace) -> int:
    """How many specialisations the command compiles: the most any kernel has, or 1."""
    if args.specialise is not None:
        return 1
    if any(getattr(args, option, None) for option in SINGLE_COMPILE_OPTIONS):
        return 1
    return max((len(found) for found in analysis.jit_specialisations.values()), default=1)


def banner(analysis: ModuleAnalysis, n: int, comment: str) -> str:
    """``// ptoc: specialisation 2: tile_add (call at line 40)``."""
    kernels = [
        f"{name} ({labels[n - 1]})"
        for name, labels in analysis.jit_labels.items()
        if len(labels) >= n
    ]
    return f"{comment} ptoc: specialisation {n}: {'; '.join(kernels)}\n"


def numbered(output: str, n: int) -> str:
    stem, suffix = os.path.splitext(output)
    return f"{stem}.{n}{suffix}"


def later_rounds(
    analysis: ModuleAnalysis,
    args: argparse.Namespace,
    count: int,
    compile_round: Callable[[ModuleAnalysis], CompileResult],
) -> list[tuple[int, CompileResult]]:
    """Specialisations 2..count of the JIT kernels (the file's other programs are compiled once,
    with the first); a round without the chosen ``--function`` is left out."""
    done: list[tuple[int, CompileResult]] = []
    for n in range(2, count + 1):
        chosen = analysis.specialised(n)
        chosen.programs = [p for p in chosen.programs if p.name in analysis.jit_specialisations]
        if args.function is not None:
            chosen.programs = [p for p in chosen.programs if p.function(args.function) is not None]
        if chosen.programs:
            done.append((n, compile_round(chosen)))
    return done
