"""``ptoc compile --verify-sync``: the synchronisation checker (``passes/sync_check``) over
every program a compile lowered, after its whole pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnostics import Diagnostic

if TYPE_CHECKING:
    from .driver import CompileResult


def verify_compiled(result: CompileResult) -> list[Diagnostic]:
    """The checker's findings on each program the pipeline lowered without errors. After a
    pipeline without InsertSync (``ptoas``: PTOAS schedules the sync of the PTO route) only
    functions that set or wait for events themselves are checked: the others have no sync
    of their own to check."""
    from .driver import PIPELINES
    from .passes.sync_check import holds_sync, verify_function

    inserts_sync = "InsertSync" in PIPELINES.get(result.pipeline, ())
    found: list[Diagnostic] = []
    for output in result.programs:
        pipeline = output.pipeline
        if pipeline is None or pipeline.has_errors:
            continue
        for fn in pipeline.program.functions:
            source = output.source.function(fn.name)
            if inserts_sync or (source is not None and holds_sync(source)):
                found.extend(verify_function(fn))
    return found
