"""Programs whose simulated results cannot be compared with the reference interpreter's, known
from the diagnostics of their compile: ``ptoc run --sim`` says why instead of building them."""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..ir.function import Program

# code -> why, for "'f' cannot be compared on the simulator: {why}" ({count}: how many)
_REASONS = {
    # codegen/cce/orchestration/ops.py leaves the op out: a later use names an undeclared value
    "W010": (
        "its host code leaves out {count} tensor op(s) that compute (W010 above); put them in "
        "a kernel (an InCore function or a `with pl.incore():` scope)"
    ),
    # codegen/common.py: a host function (@pl.jit.host) is a comment, not a program to run
    "I010": (
        "it runs on the host, whose code ptoc does not generate (I010 above); run a chip program "
        "it launches instead"
    ),
    # a2a3's TSTORE from UB is a DMA copy; the CPU simulator's TStore (include/pto/cpu/TStore.hpp)
    # converts each element with ConvertStoreValue
    "W021": (
        "it stores {count} tile(s) into a tensor of another type of the same size (W021 "
        "above): the NPU copies the bits, which the reference interpreter follows, and pto-isa's "
        "CPU simulator converts the values"
    ),
}


def refusal(function: str, diagnostics: Iterable[Diagnostic]) -> str | None:
    """Why ``function`` cannot be compared on the simulator, or None."""
    codes = [d.code for d in diagnostics if d.code in _REASONS]
    if not codes:
        return None
    why = _REASONS[codes[0]].format(count=codes.count(codes[0]))
    return f"'{function}' cannot be compared on the simulator: {why}"


def within(diagnostics: Iterable[Diagnostic], program: Program, function: str) -> list[Diagnostic]:
    """The diagnostics inside ``function`` and the functions it calls (a file's other kernels
    do not keep it from being compared)."""
    from ..driver import callees

    wanted = set(callees(program, function))
    spans = [fn.span for fn in program.functions if fn.name in wanted]
    return [
        d
        for d in diagnostics
        if any(d.span.file == s.file and s.line <= d.span.line <= s.end_line for s in spans)
    ]
