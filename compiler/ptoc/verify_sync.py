"""``ptoc compile --verify-sync``: the synchronisation checker (``passes/sync_check``) over
every program a compile lowered, after its whole pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnostics import Diagnostic

if TYPE_CHECKING:
    from .driver import CompileResult


def verify_compiled(result: CompileResult) -> list[Diagnostic]:
    """The checker's findings on each program the pipeline lowered without errors."""
    from .passes.sync_check import verify_program

    found: list[Diagnostic] = []
    for output in result.programs:
        pipeline = output.pipeline
        if pipeline is not None and not pipeline.has_errors:
            found.extend(verify_program(pipeline.program))
    return found
