"""What pto-isa's CPU simulator cannot see in an accumulating product (issue #29).

A2/A3's ``TMATMUL_ACC(out, in, a, b)`` and ``TGEMV_ACC`` pass only ``out`` to the mad
instruction and add into it, ignoring ``in`` (pto-isa include/pto/npu/a2a3/TMatmul.hpp); the
simulator (include/pto/cpu/TMatmul.hpp) reads ``in``. Kernel text where the two are different
tiles runs right on the simulator and computes ``out_old + a @ b`` on the chip, so every
kernel the execution bench runs is checked here first: each such call names one tile for both,
or two tiles placed at the same address (``TASSIGN``) that no assignment re-points.
"""

from __future__ import annotations

import re

_CALL = re.compile(r"\b(TMATMUL_ACC|TGEMV_ACC)(?:<[^>;]*>)?\(([^;]*)\);")
_ADDRESS = re.compile(r"\bTASSIGN\((\w+), (\w+)\);")
_REPOINTED = re.compile(r"^\s*(\w+) = \w+;$", re.MULTILINE)


def _arguments(text: str) -> list[str]:
    """The top-level comma-separated arguments of a call's argument text."""
    found: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        elif char == "," and depth == 0:
            found.append(text[start:index].strip())
            start = index + 1
    found.append(text[start:].strip())
    return found


def accumulator_problems(text: str) -> list[str]:
    """Each ``TMATMUL_ACC`` / ``TGEMV_ACC`` call of ``text`` whose output and input accumulator
    are not one tile, as a line naming it (empty: every call accumulates in place)."""
    addresses: dict[str, set[str]] = {}
    for tile, address in _ADDRESS.findall(text):
        addresses.setdefault(tile, set()).add(address)
    repointed = set(_REPOINTED.findall(text))
    problems: list[str] = []
    for instruction, argument_text in _CALL.findall(text):
        arguments = _arguments(argument_text)
        if len(arguments) != 4:  # (c, a, b): one accumulator
            continue
        out, in_ = arguments[0], arguments[1]
        if out == in_:
            continue
        placed = addresses.get(out)
        if placed is not None and len(placed) == 1 and placed == addresses.get(in_):
            if not {out, in_} & repointed:
                continue
        problems.append(
            f"{instruction}({out}, {in_}, ...): A2/A3 adds into '{out}' and ignores '{in_}', "
            "a different tile"
        )
    return problems
