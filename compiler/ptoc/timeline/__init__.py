"""A predicted per-pipe timeline of each lowered function: ``ptoc compile --timeline OUT.json``
(Chrome trace format) and ``--timeline-summary``.

``tables.py`` reads the cycle facts from the pto-isa installation at run time, ``costs.py``
prices each instruction, ``schedule.py`` lays the stream out on the pipes. This module renders
the result. See docs/timeline.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..ir.function import FunctionType
from .schedule import Timeline, predict
from .tables import CostTables, TablesMissing

if TYPE_CHECKING:
    from ..driver import CompileResult


_INSTALLED: list[CostTables | None] = []


def installed_tables() -> CostTables | None:
    """The tables of the pto-isa installation ``ptoc run --sim`` would use (read once per
    process), or None when there is none: the editor then shows no cycles."""
    if not _INSTALLED:
        from ..run.toolchain import ToolMissing, find_pto_isa

        try:
            _INSTALLED.append(CostTables.load(find_pto_isa(None)))
        except (ToolMissing, TablesMissing):
            _INSTALLED.append(None)
    return _INSTALLED[0]


def compiled_timelines(
    result: CompileResult, pto_isa: Path, scalars: dict[str, int] | None = None
) -> list[Timeline]:
    """The timeline of every kernel a compile lowered (after its pipeline); ``scalars``:
    values of scalar parameters by name, for loops whose trip count depends on them."""
    tables = CostTables.load(pto_isa)
    found: list[Timeline] = []
    for output in result.programs:
        if output.pipeline is None or output.pipeline.has_errors:
            continue
        for fn in output.pipeline.program.functions:
            if fn.func_type is not FunctionType.Orchestration:
                timeline = predict(fn, tables, scalars)
                if timeline.events:  # a function of scalars only has no pipe work
                    found.append(timeline)
    return found


def trace_json(timelines: list[Timeline]) -> dict[str, Any]:
    """Chrome's trace format: a process per function, a thread per pipe, an ``X`` event per
    instruction (``ts``/``dur`` in cycles), a flow arrow per set_flag -> wait_flag."""
    events: list[dict[str, Any]] = []
    flow = 0
    for pid, timeline in enumerate(timelines):
        events.append(
            {"ph": "M", "name": "process_name", "pid": pid, "args": {"name": timeline.name}}
        )
        for pipe in sorted({e.pipe for e in timeline.events}, key=lambda p: p.value):
            events.append(
                {
                    "ph": "M",
                    "name": "thread_name",
                    "pid": pid,
                    "tid": pipe.name,
                    "args": {"name": pipe.name},
                }
            )
        for e in timeline.events:
            events.append(
                {
                    "ph": "X",
                    "name": e.name,
                    "pid": pid,
                    "tid": e.pipe.name,
                    "ts": e.start,
                    "dur": e.cycles,
                    "args": {"line": e.line},
                }
            )
        for f in timeline.flows:
            flow += 1
            common = {"name": f.key.describe(), "cat": "sync", "pid": pid, "id": flow}
            events.append({**common, "ph": "s", "tid": f.key.signal.name, "ts": f.set_time})
            events.append(
                {**common, "ph": "f", "bp": "e", "tid": f.key.wait.name, "ts": f.wait_time}
            )
    return {"traceEvents": events, "otherData": {"unit": "cycles (ts and dur)"}}


def summary(timeline: Timeline, frequency_hz: float) -> str:
    total = timeline.total
    lines = [
        f"{timeline.name}: ≈ {total:,} cycles ({total / frequency_hz * 1e6:.2f} µs at "
        f"{frequency_hz / 1e9:.2f} GHz)"
    ]
    busy = timeline.busy()
    for pipe, cycles in sorted(busy.items(), key=lambda kv: kv[0].value):
        share = cycles / total if total else 0.0
        lines.append(f"  {pipe.name:5} {cycles:>9,} cycles busy  {share:4.0%}")
    if busy:
        bottleneck = max(busy, key=lambda p: busy[p])
        lines.append(f"  bottleneck: {bottleneck.name}")
        idles = [i for i in timeline.idles if i.pipe is bottleneck] or timeline.idles
        if idles:
            worst = max(idles, key=lambda i: i.cycles)
            lines.append(
                f"  longest wait: {worst.pipe.name} idles {worst.cycles:,} cycles at line "
                f"{worst.wait_line}, waiting for {worst.signal.name} (set at line {worst.set_line})"
            )
    path = " → ".join(f"{e.name} line {e.line} ({e.pipe.name})" for e in timeline.critical_path())
    if path:
        lines.append(f"  critical path: {path}")
    if timeline.dynamic_loops:
        lines.append(
            f"  note: {timeline.dynamic_loops} loop(s) without a constant trip count, counted "
            "once (--timeline-scalar NAME=VALUE gives a parameter's value)"
        )
    if timeline.cut:
        lines.append(f"  note: the stream was cut at {timeline.limit:,} instructions")
    return "\n".join(lines) + "\n"


__all__ = [
    "TablesMissing",
    "Timeline",
    "compiled_timelines",
    "installed_tables",
    "predict",
    "summary",
    "trace_json",
]
