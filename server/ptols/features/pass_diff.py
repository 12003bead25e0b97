"""The pass explorer (``ptols/passDiff``): ``ptoc.pass_diff``'s stages and pass diffs, shaped
for the editor.

A stage after a pass that changed nothing is the stage before it, so it is sent once: a pass
names the stages before and after it by index, the same index when it changed nothing.
"""

from __future__ import annotations

from ptoc import driver
from ptoc.diagnostics import Diagnostic, Severity
from ptoc.editions import ChosenEdition
from ptoc.frontend import ModuleAnalysis
from ptoc.pass_diff import ProgramPasses, explore

from ..convert import Positions
from ..protocol import PassChange, PassStage, ProgramPassDiff
from .hardware import source_map_entries


def compile_pass_diff(
    analysis: ModuleAnalysis, function: str | None, pipeline: str | None, strict: bool
) -> tuple[list[ProgramPasses], list[Diagnostic], str]:
    """Every program's stages and pass diffs, the errors and pass diagnostics that go with
    them, and the pipeline that ran (``pipeline`` None: the IR target's own)."""
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
    """``compile_pass_diff`` of ``text`` analysed as the server analysed it (run in the pass
    explorer's child, ``ptols.isolated``: every stage of a pipeline, printed with its spans, is
    many times what the server keeps alive)."""
    from ptoc.frontend import analyze_source

    analysis = analyze_source(text, path, edition=edition, jit_specs=jit_specs)
    return compile_pass_diff(analysis, function, pipeline, strict)


def program_payload(
    program: ProgramPasses, descriptions: dict[str, str], positions: Positions
) -> ProgramPassDiff:
    stages: list[PassStage] = []
    index_of: list[int] = []  # a stage of the pipeline -> its index in ``stages``
    for index, stage in enumerate(program.stages):
        if index > 0 and not program.passes[index - 1].changed:
            index_of.append(index_of[-1])
            continue
        index_of.append(len(stages))
        entries = source_map_entries(stage.spans, positions)
        stages.append(PassStage(stage.name, stage.text, entries))
    passes = [
        PassChange(
            name=p.name,
            description=descriptions.get(p.name, ""),
            before=index_of[p.after - 1],
            after=index_of[p.after],
            added=p.added,
            removed=p.removed,
            changes=[[i1, i2, j1, j2] for _, i1, i2, j1, j2 in p.opcodes],
        )
        for p in program.passes
    ]
    return ProgramPassDiff(program.program, stages, passes)


def descriptions() -> dict[str, str]:
    return dict(driver.pass_descriptions())


__all__ = ["compile_pass_diff", "descriptions", "program_payload", "text_pass_diff"]
