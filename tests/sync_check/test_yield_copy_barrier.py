"""The CCE generator's loop-yield copies, as the checker models them: found by
``--verify-sync``, a copy overwriting what an earlier copy of the same yield reads gets a
barrier first (V may overlap its own instructions)."""

from __future__ import annotations

from sync_suite import suite_sources

from ptoc.driver import compile_source
from ptoc.passes.sync_check import verify_program
from ptoc.passes.sync_check.stream import BarrierInstr, Loop, OpInstr, StreamReader

FIBONACCI = suite_sources()["loop_carried_two_tile_fibonacci"]


def test_the_second_copy_waits_for_the_first_to_read() -> None:
    text = compile_source(FIBONACCI, "cce").text
    body = text[text.index("    for (") : text.index("    }\n", text.index("    for ("))]
    assert body.splitlines()[1:] == [
        "        pipe_barrier(PIPE_V);",
        "        TADD(r, p, q);",
        "        pipe_barrier(PIPE_V);",
        "        TMOV(p, q);",
        "        pipe_barrier(PIPE_V);",
        "        TMOV(q, r);",
    ]


def test_the_checker_reads_the_same_copies() -> None:
    result = compile_source(FIBONACCI, "ir")
    (output,) = result.programs
    assert output.pipeline is not None
    (fn,) = output.pipeline.program.functions
    (loop,) = [n for n in StreamReader(fn).nodes if isinstance(n, Loop)]
    tail = [type(n).__name__ for n in loop.body[-4:]]
    assert tail == ["BarrierInstr", "OpInstr", "BarrierInstr", "OpInstr"]
    assert isinstance(loop.body[-1], OpInstr) and isinstance(loop.body[-2], BarrierInstr)
    assert loop.copied == (0, 1)
    assert verify_program(output.pipeline.program) == []
