"""Seeded mutants of real programs (today's upstream examples, read in place, and the project's
own) through ``ptoc check`` and, where that is clean, ``ptoc compile`` to C++ and to MLIR:
never an internal error (E900, or a pass that raised), never an exception, never stuck (issue
#33).

Each mutant is what an editor analyses while someone types: a line deleted, duplicated, moved
or indented, a number replaced (``2**40`` on the way to ``2**4``), a name swapped for another,
a dtype or memory space changed, a few characters cut. A mutant found a defect in each of:
slice searches that counted down from an extent of 2**40 (K of a matmul, rows over Vec and Acc),
the timeline walking 2**40 trips past its cut, a kernel that returns nothing assigned from
(E213), a value nothing gives a kernel (a builder's local ptoc cannot compute, a pl.dynamic
only a loop uses: E400).
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ptoc.cli import main

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "pypto-2026-08" / "examples"
MUTANTS = 150
STUCK = 30  # seconds: far beyond any command here (each takes well under one)
NAME = re.compile(r"\b[A-Za-z_]\w*\b")
NUMBER = re.compile(r"\b\d+\b")
CRASHED = re.compile(r"E404\]: pass \w+ failed")  # a pass raised (the manager's report)
NUMBERS = ["0", "1", "3", "7", "16", "17", "64", "100000", "-1", "2**40"]
SWAPS = [
    ("FP32", "FP16"),
    ("FP16", "INT8"),
    ("BF16", "FP32"),
    ("INT32", "FP32"),
    ("Vec", "Mat"),
    ("Left", "Right"),
    ("Acc", "Vec"),
]


def sources() -> list[Path]:
    found = [p for p in sorted(UPSTREAM.rglob("*.py")) if p.name != "__init__.py"]
    found = [p for p in found if "pypto" in p.read_text(encoding="utf-8")]
    return found + sorted((ROOT / "examples").glob("*.py"))


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    kind = rng.randrange(9)
    if kind == 0 and lines:
        del lines[rng.randrange(len(lines))]
    elif kind == 1 and lines:
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
    elif kind == 2 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3 and (numbers := list(NUMBER.finditer(text))):
        hit = rng.choice(numbers)
        return text[: hit.start()] + rng.choice(NUMBERS) + text[hit.end() :]
    elif kind == 4 and (names := list(NAME.finditer(text))):
        hit = rng.choice(names)
        return text[: hit.start()] + rng.choice(names).group() + text[hit.end() :]
    elif kind == 5:
        old, new = rng.choice(SWAPS)
        starts = [m.start() for m in re.finditer(old, text)]
        if starts:
            at = rng.choice(starts)
            return text[:at] + new + text[at + len(old) :]
    elif kind == 6:
        at = rng.randrange(len(text) + 1)
        return text[:at] + text[at + rng.randrange(1, 40) :]
    elif kind == 7 and lines:
        i = rng.randrange(len(lines))
        lines[i] = "    " + lines[i]
    elif kind == 8 and lines:
        i = rng.randrange(len(lines))
        lines[i] = lines[i].lstrip()
    return "".join(lines)


class Stuck(Exception):
    pass


@contextlib.contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """Raise Stuck in the command after ``seconds`` (again every second: a compiler that
    catches it and goes on is stopped too)."""

    def stop(*_: object) -> None:
        raise Stuck

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def ptoc(*argv: str) -> tuple[int, str]:
    """The exit code and what ``ptoc *argv`` printed, or "stuck" when it ran for STUCK
    seconds (the compiler may catch Stuck and go on: the clock decides)."""
    out, err = io.StringIO(), io.StringIO()
    began = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), bounded(STUCK):
            code = main(list(argv))
    except Stuck:
        code = -1
    if time.monotonic() - began >= STUCK:
        return -1, f"stuck for {STUCK} s: ptoc {' '.join(argv)}"
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("seed", [1, 2])
def test_mutants_of_real_programs_never_crash_or_hang(tmp_path: Path, seed: int) -> None:
    files = sources()
    rng = random.Random(seed)
    problems: list[str] = []
    compiled = 0
    for number in range(MUTANTS):
        source = rng.choice(files)
        text = source.read_text(encoding="utf-8")
        for _ in range(rng.randrange(1, 3)):
            text = mutate(text, rng)
        path = tmp_path / source.name
        path.write_text(text, encoding="utf-8")
        code, said = ptoc("check", str(path))
        commands = [("check",)]
        if code == 0:
            compiled += 1
            for target in ("cce", "pto"):
                commands.append(("compile", target))
                said += ptoc("compile", str(path), "--target", target)[1]
        if "E900" in said or "Traceback" in said or "stuck for" in said or CRASHED.search(said):
            kept = tmp_path / f"mutant-{seed}-{number}-{source.name}"
            kept.write_text(text, encoding="utf-8")
            problems.append(f"{kept} ({source.name}, {commands}): {said[-400:]}")
    assert problems == []
    assert compiled > MUTANTS // 4  # most mutants still check clean: the back ends ran
