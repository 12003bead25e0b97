"""What the child processes run (``isolated.py``): plain data in, plain data out.

Nothing here loads the protocol's types (lsprotocol, pygls): a child imports only this module
and the compiler, and starts smaller and sooner for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptoc.diagnostics import Diagnostic
    from ptoc.editions import ChosenEdition
    from ptoc.frontend import ModuleAnalysis
    from ptoc.pass_diff import ProgramPasses


def formatted(text: str, path: str, line_length: int) -> tuple[str | None, str]:
    """`ptoc fmt` of ``text``: the new text, or None when nothing changes (or fmt refuses:
    the reason)."""
    from ptoc.fmt import format_source

    result = format_source(text, path, line_length, explicit=True)
    if not result.changed:
        return None, result.reason if result.status in ("refused", "error") else ""
    return result.text, ""


def compile_pass_diff(
    analysis: ModuleAnalysis, function: str | None, pipeline: str | None, strict: bool
) -> tuple[list[ProgramPasses], list[Diagnostic], str]:
    """Every program's stages and pass diffs, the errors and pass diagnostics that go with
    them, and the pipeline that ran (``pipeline`` None: the IR target's own)."""
    from ptoc import driver
    from ptoc.diagnostics import Severity
    from ptoc.pass_diff import explore

    result = driver.compile_source(analysis, "ir", function, pipeline, strict=strict)
    errors = [d for d in result.front_end if d.severity is Severity.ERROR]
    return explore(result), [*errors, *result.back_end], result.pipeline


def text_pass_diff(
    text: str,
    path: str,
    edition: ChosenEdition | None,
    jit_specs: dict[str, tuple[str, ...]] | None,
    function: str | None,
    pipeline: str | None,
    strict: bool,
) -> tuple[list[ProgramPasses], list[Diagnostic], str]:
    """``compile_pass_diff`` of ``text`` analysed as the server analysed it."""
    from ptoc.frontend import analyze_source

    analysis = analyze_source(text, path, edition=edition, jit_specs=jit_specs)
    return compile_pass_diff(analysis, function, pipeline, strict)
