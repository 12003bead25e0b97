"""``ptoc compile --verify-sync``: the synchronisation checker (``passes/sync_check``) over
every program a compile lowered, after its whole pipeline; on the PTO route (a pipeline
without InsertSync), over the C++ PTOAS makes when it inserts the sync itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from pathlib import Path

    from .driver import CompileResult
    from .ir.function import Program

PTO_TARGETS = ("pto", "pto-cpp")


def verify_compiled(result: CompileResult) -> list[Diagnostic]:
    """The checker's findings on each program the pipeline lowered without errors. After a
    pipeline without InsertSync (``ptoas``: PTOAS schedules the sync of the PTO route) the
    functions that set or wait for events themselves are checked as written, and every
    kernel (those too) in the C++ PTOAS makes with its sync insertion on (when PTOAS is
    found; on ``--target pto`` a missing PTOAS is a W410). A finding of the C++ on a line
    the IR's check already reported with the same code is left out."""
    from .driver import PIPELINES
    from .passes.sync_check import holds_sync, verify_function

    inserts_sync = "InsertSync" in PIPELINES.get(result.pipeline, ())
    ptoas = None if inserts_sync else _ptoas(result)
    found: list[Diagnostic] = []
    for output in result.programs:
        pipeline = output.pipeline
        if pipeline is None or pipeline.has_errors:
            continue
        for fn in pipeline.program.functions:
            source = output.source.function(fn.name)
            if inserts_sync or (source is not None and holds_sync(source)):
                found.extend(verify_function(fn))
        if ptoas is not None:
            found.extend(new_lines(found, _verify_ptoas(pipeline.program, ptoas, result.function)))
        elif not inserts_sync and result.target in PTO_TARGETS:
            found.append(_no_ptoas(pipeline.program))
    return found


def new_lines(known: list[Diagnostic], more: list[Diagnostic]) -> list[Diagnostic]:
    """``more`` without the findings on a line where ``known`` has one of the same code (a
    kernel's own sync is checked in the IR and in PTOAS's C++: one report of each)."""
    seen = {(d.code, d.span.file, d.span.line) for d in known}
    return [d for d in more if (d.code, d.span.file, d.span.line) not in seen]


def _ptoas(result: CompileResult) -> Path | None:
    from .driver import available_ptoas

    return result.ptoas or available_ptoas(result.ptoas_version)


def _verify_ptoas(program: Program, ptoas: Path, function: str | None) -> list[Diagnostic]:
    """The findings on the sync in PTOAS's C++ of the kernels of ``program`` (only
    ``function`` when the compile names one: its MLIR is then the one ``--function`` writes,
    so a ``pto-cpp`` compile's PTOAS run is reused)."""
    from .driver import ptoas_synchronised_cpp
    from .passes.sync_check.cpp_check import verify_cpp

    made = ptoas_synchronised_cpp(program, ptoas, function)
    if made is None:  # ptoc's own errors stopped the compile before: PTOAS failed
        return [_not_checked(program, "PTOAS did not compile the MLIR (--verify shows why)")]
    wanted = frozenset(
        name for name, fn in made.functions.items() if function is None or fn.name == function
    )
    spans = {name: fn.span for name, fn in made.functions.items()}
    return verify_cpp(made.cpp, made.mlir, made.line_spans, spans, only=wanted)


def _no_ptoas(program: Program) -> Diagnostic:
    return _not_checked(program, "PTOAS was not found (pass --ptoas PATH or set PTOAS)")


def _not_checked(program: Program, why: str) -> Diagnostic:
    return Diagnostic(
        "W410",
        Severity.WARNING,
        f"the sync PTOAS inserts on the PTO route was not checked: {why}",
        program.span,
    )
