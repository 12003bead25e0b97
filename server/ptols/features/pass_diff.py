"""The pass explorer (``ptols/passDiff``): ``ptoc.pass_diff``'s stages and pass diffs, shaped
for the editor.

A stage after a pass that changed nothing is the stage before it, so it is sent once: a pass
names the stages before and after it by index, the same index when it changed nothing.
"""

from __future__ import annotations

from ptoc import driver
from ptoc.pass_diff import ProgramPasses

from ..convert import Positions
from ..protocol import PassChange, PassStage, ProgramPassDiff
from .hardware import source_map_entries


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


__all__ = ["descriptions", "program_payload"]
