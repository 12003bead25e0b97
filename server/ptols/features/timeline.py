"""The predicted timeline in the editor: ``ptols/timeline``, per-line cycle hints, the hover
line and the ``≈ N cycles`` CodeLens (docs/lsp-extensions.md, docs/timeline.md).

All of it shapes the timelines ``ptoc.kernel_facts`` predicted for each function (none when
pto-isa's cost tables are missing). A function's hints, hover and lens count only the
instructions of its own lines, so a callee inlined into its caller is not counted twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from lsprotocol import types

from ptoc.ir.span import Span
from ptoc.kernel_facts import FunctionFacts
from ptoc.timeline import Timeline

from ..convert import Positions
from ..protocol import (
    FunctionTimeline,
    TimelineArrow,
    TimelineInstruction,
    TimelineLane,
    TimelineWait,
)
from ..text import Stale
from .hardware import line_end

#: Most instructions one function's answer lists (a long loop repeats its body): the rest are
#: left out, and a note says so.
MAX_INSTRUCTIONS = 20_000


class Lines:
    """1-based lines of the analysed text -> 0-based lines of the current text (None: the line
    changed since the analysis)."""

    def __init__(self, positions: Positions, file: str) -> None:
        self.positions = positions
        self.file = file
        self.known: dict[int, int | None] = {}

    def __call__(self, line: int) -> int | None:
        if line not in self.known:
            try:
                mapped = self.positions.range(Span(self.file, line, 0, line, 0)).start.line
            except Stale:
                mapped = None
            self.known[line] = mapped if line > 0 else None
        return self.known[line]


def timeline_functions(
    facts: Sequence[FunctionFacts], function: str | None, positions: Positions
) -> list[FunctionTimeline]:
    """``ptols/timeline`` functions (all, or the kernels of the source function ``function``)."""
    found: list[FunctionTimeline] = []
    for fact in facts:
        if function is not None and fact.function != function:
            continue
        lines = Lines(positions, fact.span.file)
        for timeline in fact.timelines:
            try:
                found.append(_function_timeline(timeline, positions.range(fact.span), lines))
            except Stale:
                continue
    return found


def _function_timeline(timeline: Timeline, where: types.Range, lines: Lines) -> FunctionTimeline:
    total = timeline.total
    busy = timeline.busy()
    shown = timeline.events[:MAX_INSTRUCTIONS]
    index = {id(e): i for i, e in enumerate(shown)}
    instructions = [
        TimelineInstruction(e.name, e.pipe.name, e.start, e.cycles, lines(e.line) or 0)
        for e in shown
    ]
    # The set -> wait arrows among the listed instructions only: a stream of 200,000
    # instructions has ~70,000 of them, 7 MB of an answer whose pane shows none past the list.
    listed_until = max(e.end for e in shown) if len(shown) < len(timeline.events) else None
    arrows = [
        TimelineArrow(
            f.key.signal.name,
            f.key.wait.name,
            f.set_time,
            f.wait_time,
            lines(f.set_line) or 0,
            lines(f.wait_line) or 0,
        )
        for f in timeline.flows
        if listed_until is None or f.wait_time <= listed_until
    ]
    bottleneck = max(busy, key=lambda p: busy[p]) if busy else None
    idles = [i for i in timeline.idles if i.pipe is bottleneck] or timeline.idles
    worst = max(idles, key=lambda i: i.cycles) if idles else None
    return FunctionTimeline(
        name=timeline.name,
        range=where,
        total=total,
        lanes=[
            TimelineLane(pipe.name, cycles, round(cycles / total, 4) if total else 0.0)
            for pipe, cycles in sorted(busy.items(), key=lambda kv: kv[0].value)
        ],
        instructions=instructions,
        arrows=arrows,
        critical_path=[index[id(e)] for e in timeline.critical_path() if id(e) in index],
        bottleneck=bottleneck.name if bottleneck is not None else None,
        longest_wait=None
        if worst is None
        else TimelineWait(
            worst.pipe.name,
            worst.signal.name,
            worst.cycles,
            lines(worst.wait_line) or 0,
            lines(worst.set_line) or 0,
        ),
        notes=_notes(timeline),
    )


def _notes(timeline: Timeline) -> list[str]:
    notes = []
    if timeline.dynamic_loops:
        notes.append(
            f"{timeline.dynamic_loops} loop(s) without a constant trip count, counted once"
        )
    if timeline.cut:
        notes.append(f"the stream was cut at {timeline.limit:,} instructions")
    if len(timeline.events) > MAX_INSTRUCTIONS:
        notes.append(f"only the first {MAX_INSTRUCTIONS:,} instructions are listed")
    return notes


def line_cycles(fact: FunctionFacts) -> Iterator[tuple[int, dict[str, int], int]]:
    """(1-based source line, busy cycles by pipe on it, its kernel's total) for each line of
    ``fact``'s own function that has pipe work."""
    for timeline in fact.timelines:
        per_line: dict[int, dict[str, int]] = {}
        for e in timeline.events:
            if fact.span.line <= e.line <= fact.span.end_line:
                pipes = per_line.setdefault(e.line, {})
                pipes[e.pipe.name] = pipes.get(e.pipe.name, 0) + e.cycles
        for line, pipes in sorted(per_line.items()):
            yield line, pipes, timeline.total


def cycle_hints(
    facts: Sequence[FunctionFacts], text_lines: list[str], positions: Positions, lines: range
) -> list[types.InlayHint]:
    """``≈ 559 cycles (MTE2)`` at the end of each statement line with pipe work, among
    ``lines`` (1-based); the tooltip is the hover line."""
    hints: list[types.InlayHint] = []
    for fact in facts:
        for line, pipes, total in line_cycles(fact):
            if line not in lines:
                continue
            position = line_end(text_lines, positions, fact.span.file, line)
            if position is None:
                continue
            cycles = sum(pipes.values())
            by_pipe = ", ".join(f"{pipe} {n:,}" for pipe, n in pipes.items())
            label = f"≈ {cycles:,} cycles ({by_pipe if len(pipes) > 1 else next(iter(pipes))})"
            hints.append(
                types.InlayHint(
                    position=position,
                    label=label,
                    padding_left=True,
                    tooltip=share_text(pipes, total),
                )
            )
    return hints


def share_text(pipes: dict[str, int], total: int) -> str:
    """``MTE2 2,048 cycles, 38 % of the kernel`` (a part per pipe)."""
    return "; ".join(
        f"{pipe} {cycles:,} cycles, {round(100 * cycles / total) if total else 0} % of the kernel"
        for pipe, cycles in pipes.items()
    )


def hover_line(facts: Sequence[FunctionFacts], line: int) -> str | None:
    """The hover line of source ``line`` (1-based): its predicted cycles and share."""
    for fact in facts:
        for found, pipes, total in line_cycles(fact):
            if found == line:
                return share_text(pipes, total)
    return None


def cycle_lenses(
    facts: Sequence[FunctionFacts], incore: dict[str, types.Range], uri: str
) -> list[types.CodeLens]:
    """``≈ N cycles`` on the name of each InCore function ``incore`` places (name -> range)
    whose timeline is known; it opens the timeline view."""
    lenses: list[types.CodeLens] = []
    for fact in facts:
        where = incore.get(fact.function)
        if where is None or not fact.timelines:
            continue
        total = sum(t.total for t in fact.timelines)
        arguments: list[Any] = [uri, fact.function]
        command = types.Command(f"≈ {total:,} cycles", "ptols.showTimeline", arguments=arguments)
        lenses.append(types.CodeLens(where, command))
    return lenses


__all__ = ["cycle_hints", "cycle_lenses", "hover_line", "timeline_functions"]
