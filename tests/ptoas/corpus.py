"""The programs PTOAS must accept: every example, the kernels here, seed 002's golden text,
the PTO generator tests' IR-built kernels, and the language reference's programs."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ptoc.ir import Function

ROOT = Path(__file__).resolve().parents[2]
PTO_TESTS = ROOT / "tests" / "codegen" / "pto"


@dataclass(frozen=True)
class Kernel:
    name: str
    source: Path | None = None  # a kernel file: ptoc compile --target pto
    text: str | None = None  # a kernel file's text (a program of the language reference)
    mlir: Path | None = None  # MLIR as it is
    build: Callable[[], Function] | None = None  # hand-built post-pass IR


def kernel_files() -> list[Kernel]:
    here = Path(__file__).parent
    examples = [
        Kernel(f.relative_to(ROOT).as_posix(), source=f)
        for f in sorted((ROOT / "examples").rglob("*.py"))
    ]
    return examples + [
        Kernel(f.relative_to(here).as_posix(), source=f)
        for f in sorted((here / "kernels").glob("*.py"))
    ]


def golden_files() -> list[Kernel]:
    return [
        Kernel(f"golden/{f.name}", mlir=f) for f in sorted((PTO_TESTS / "golden").glob("*.mlir"))
    ]


def ir_kernels() -> list[Kernel]:
    """The hand-built kernels of the PTO generator's tests (they import as its tests do)."""
    if str(PTO_TESTS) not in sys.path:
        sys.path.insert(0, str(PTO_TESTS))
    import test_pto_control
    import test_pto_golden

    return [
        Kernel("mul_kernel_2d (seed 002)", build=test_pto_golden.mul_kernel_2d),
        Kernel(
            "accumulate (carried tile, if with a result)", build=test_pto_control.accumulate_kernel
        ),
    ]


def language_reference() -> list[Kernel]:
    """The ```python blocks of docs/language.md that define something."""
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [
        Kernel(f"docs/language.md block {i}", text=block)
        for i, block in enumerate(blocks)
        if "def " in block
    ]


def everything() -> list[Kernel]:
    return kernel_files() + golden_files() + ir_kernels() + language_reference()
