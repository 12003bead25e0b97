"""The pass explorer: what each pass of a pipeline changed in the printed IR.

A program's stages are its IR as the front end made it ("input") and after each pass, each
printed with its source map (the span of the statement on every line). A pass's diff compares
the stage before it with the one after: line counts added and removed, and the differing line
ranges (difflib's opcodes without the equal ones). ``ptoc compile --target ir --pass-diff``
renders the passes that changed something as unified or side-by-side diffs; ``ptols/passDiff``
sends the stages and the ranges to the editor, which draws them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from .driver import CompileResult, ProgramOutput, print_ir_mapped
from .ir.function import Program
from .ir.span import Span
from .records import record

STYLES = ("unified", "side-by-side")
CONTEXT = 3  # unchanged lines shown around a change, as diff -u

#: A differing range: tag ("replace", "delete", "insert"), before lines i1..i2, after j1..j2
#: (0-based, end exclusive).
Opcode = tuple[str, int, int, int, int]


@record(frozen=True)
class Stage:
    """The printed IR at one point of the pipeline: before any pass ("input") or after one."""

    name: str
    text: str
    spans: tuple[Span | None, ...]

    @property
    def lines(self) -> list[str]:
        return self.text.rstrip("\n").split("\n") if self.text else []


@record(frozen=True)
class PassDiff:
    """What pass ``name`` changed: stage ``after - 1`` against stage ``after``."""

    name: str
    after: int
    added: int
    removed: int
    opcodes: tuple[Opcode, ...]

    @property
    def changed(self) -> bool:
        return bool(self.opcodes)


@record(frozen=True)
class ProgramPasses:
    """One program's stages and its passes' diffs, in pipeline order."""

    program: str
    stages: tuple[Stage, ...]
    passes: tuple[PassDiff, ...]

    @property
    def changed(self) -> list[PassDiff]:
        return [p for p in self.passes if p.changed]

    @property
    def unchanged(self) -> list[PassDiff]:
        return [p for p in self.passes if not p.changed]


def explore(result: CompileResult) -> list[ProgramPasses]:
    """Every compiled program's stages and pass diffs (none for a program whose pipeline failed
    internally: its diagnostic says why)."""
    return [program_passes(output, result) for output in result.programs if output.pipeline]


def program_passes(output: ProgramOutput, result: CompileResult) -> ProgramPasses:
    assert output.pipeline is not None
    points = [("input", output.source), *output.pipeline.snapshots]
    stages: list[Stage] = []
    for index, (name, program) in enumerate(points):
        if index and program is points[index - 1][1]:  # the pass left the program as it was
            stages.append(Stage(name, stages[-1].text, stages[-1].spans))
        elif is_printed_output(output, program, result):  # printed once already
            stages.append(Stage(name, output.text, tuple(output.line_spans)))
        else:
            stages.append(printed_stage(name, program, result))
    diffs = tuple(diff_stages(stages, index) for index in range(1, len(stages)))
    return ProgramPasses(output.source.name, tuple(stages), diffs)


def is_printed_output(output: ProgramOutput, program: Program, result: CompileResult) -> bool:
    """Whether ``output.text`` is ``program`` printed: the IR target's final program."""
    assert output.pipeline is not None
    return (
        result.target == "ir"
        and program is output.pipeline.program
        and bool(output.text)
        and len(output.line_spans) == output.text.count("\n")
    )


def printed_stage(name: str, program: Program, result: CompileResult) -> Stage:
    try:
        text, spans = print_ir_mapped(program, result)
    except Exception as exc:  # keep the other stages
        return Stage(name, f"# printing the IR after {name} failed: {type(exc).__name__}\n", ())
    return Stage(name, text, tuple(spans))


def diff_stages(stages: Sequence[Stage], after: int) -> PassDiff:
    if stages[after - 1].text == stages[after].text:
        return PassDiff(stages[after].name, after, 0, 0, ())
    before_lines, after_lines = stages[after - 1].lines, stages[after].lines
    matcher = SequenceMatcher(None, before_lines, after_lines, autojunk=False)
    opcodes = tuple(op for op in matcher.get_opcodes() if op[0] != "equal")
    removed = sum(i2 - i1 for _, i1, i2, _, _ in opcodes)
    added = sum(j2 - j1 for _, _, _, j1, j2 in opcodes)
    return PassDiff(stages[after].name, after, added, removed, opcodes)


def hunks(before: list[str], after: list[str]) -> list[list[Opcode]]:
    """The differing ranges with CONTEXT equal lines around each, grouped into hunks as diff -u
    groups them (equal ranges included as "equal" opcodes)."""
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    return [list(group) for group in matcher.get_grouped_opcodes(CONTEXT)]


def counts(diff: PassDiff) -> str:
    return f"+{diff.added} -{diff.removed}"


def summary(program: ProgramPasses) -> list[str]:
    """The program's header: how many passes ran, changed, and which were hidden."""
    lines = [
        f"# {program.program}: {len(program.passes)} passes, {len(program.changed)} changed the IR"
    ]
    if program.unchanged:
        names = ", ".join(p.name for p in program.unchanged)
        lines.append(f"# unchanged (hidden): {names}")
    return lines


def render(programs: Sequence[ProgramPasses], style: str = "unified", width: int = 160) -> str:
    """The changed passes of every program as unified or side-by-side diffs."""
    out: list[str] = []
    for program in programs:
        out.extend(summary(program))
        for diff in program.changed:
            before, after = program.stages[diff.after - 1].lines, program.stages[diff.after].lines
            out.append(f"=== {diff.after:02d} {diff.name}  {counts(diff)}")
            if style == "side-by-side":
                out.extend(side_by_side(before, after, width))
            else:
                out.extend(unified(diff, before, after))
    return "\n".join(out) + "\n" if out else ""


def unified(diff: PassDiff, before: list[str], after: list[str]) -> list[str]:
    out = [f"--- before {diff.name}", f"+++ after {diff.name}"]
    for group in hunks(before, after):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(f" {line}" for line in before[a1:a2])
                continue
            out.extend(f"-{line}" for line in before[a1:a2])
            out.extend(f"+{line}" for line in after[b1:b2])
    return out


def _range(start: int, end: int) -> str:
    """A hunk side as diff -u writes it: 1-based start, then the length unless it is 1."""
    length = end - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def side_by_side(before: list[str], after: list[str], width: int) -> list[str]:
    """Before on the left, after on the right, a marker between: ``|`` changed, ``<`` removed,
    ``>`` added, a space for context; each side cut to its column with ``…``."""
    column = max((width - 3) // 2, 20)
    out: list[str] = []
    for group in hunks(before, after):
        out.append(f"@@ {group[0][1] + 1} | {group[0][3] + 1} @@")
        for tag, i1, i2, j1, j2 in group:
            left, right = before[i1:i2], after[j1:j2]
            for row in range(max(len(left), len(right))):
                old = left[row] if row < len(left) else None
                new = right[row] if row < len(right) else None
                out.append(_row(tag, old, new, column))
    return out


def _row(tag: str, old: str | None, new: str | None, column: int) -> str:
    marker = " " if tag == "equal" else "|" if old is not None and new is not None else "<"
    if old is None:
        marker = ">"
    text = f"{_cut(old or '', column):<{column}} {marker} {_cut(new or '', column)}"
    return text.rstrip()


def _cut(line: str, column: int) -> str:
    return line if len(line) <= column else line[: column - 1] + "…"


__all__ = [
    "STYLES",
    "PassDiff",
    "ProgramPasses",
    "Stage",
    "counts",
    "diff_stages",
    "explore",
    "hunks",
    "render",
]
