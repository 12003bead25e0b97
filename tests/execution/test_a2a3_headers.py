"""The CCE C++ of the kernels issue 29 fixed, compiled against pto-isa's A2/A3 instruction
headers (``npu/a2a3/``, in the configuration of its cost model: ``-D__COSTMODEL
-D__NPU_ARCH__=2201``, ../shared/vendor/README.md), which assert more than the CPU simulator
does (row-major vector operands, the Right operand's fractal, the bias table): what passes the
simulator must also compile for the chip. The patched include tree is made once by the
vendor's ``pto-isa-costmodel/prepare.py``; a compiled batch is remembered by content hash."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

from .bench import load_kernel
from .conftest import CACHE
from .matrix import Case, all_cases

ROOT = Path(__file__).resolve().parents[2]
PREPARE = ROOT.parent / "shared" / "vendor" / "pto-isa-costmodel" / "prepare.py"
FLAGS = ("-fsyntax-only", "-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-DPTO_COMM_NOT_SUPPORTED")
FLAGS += ("-std=c++20", "-include", "stdint.h", "-include", "stddef.h")

# The forms issue 29 fixed (tests/execution/realistic.py), the matmuls they build on, and
# one-column tiles loaded from and stored to [M, 1] tensors (a DN global tensor).
CHOSEN = ("row_mean", "rms_norm", "layer_norm", "scores_q_kT", "matmul_bias", "matmul_FP")
CHOSEN += ("move_transpose", "transpose", "reshape")
# Instructions the cost-model configuration does not build (no ``_IMPL`` under __COSTMODEL,
# ../shared/vendor/README.md), whatever the kernel.
NOT_MODELLED = {"maximum_FP32_broadcast_32x1": "TROWEXPANDMAX"}
CASES = [
    c
    for c in all_cases()
    if (c.name.startswith(CHOSEN) or c.name.endswith("_32x1")) and c.name not in NOT_MODELLED
]


@pytest.fixture(scope="module")
def a2a3_include() -> tuple[str, Path]:
    """The compiler and the patched include directory (made once per pto-isa checkout)."""
    try:
        compiler, pto_isa = find_compiler(), find_pto_isa(None)
    except ToolMissing as exc:
        missing(str(exc))
    if not PREPARE.is_file():
        missing(f"no {PREPARE}")
    out = CACHE / ("a2a3-" + hashlib.sha256(str(pto_isa.resolve()).encode()).hexdigest()[:12])
    include = out / "include"
    if not (include / "pto" / "pto-inst.hpp").is_file():
        command = [sys.executable, str(PREPARE), "--pto-isa", str(pto_isa), "--out", str(out)]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return compiler.command, include


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and a tool is missing: {reason}")
    pytest.skip(reason)


def compile_errors(compiler: str, include: Path, text: str) -> list[str]:
    """The compiler's errors on ``text`` (none: it compiles); a success is remembered."""
    flags = [*FLAGS, "-I", str(include / "pto" / "costmodel" / "stubs"), "-I", str(include)]
    key = hashlib.sha256("\0".join([compiler, *flags, text]).encode()).hexdigest()[:32]
    passed = CACHE / f"a2a3-ok-{key}"
    if passed.is_file():
        return []
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE, prefix="a2a3-") as scratch:
        source = Path(scratch) / "kernels.cpp"
        source.write_text(text, encoding="utf-8")
        done = subprocess.run([compiler, *flags, str(source)], capture_output=True, text=True)
    if done.returncode == 0:
        passed.touch()
        return []
    return [line for line in done.stderr.splitlines() if "error:" in line] or [done.stderr]


def translation_unit(cases: list[Case]) -> str:
    parts = ["#include <pto/pto-inst.hpp>", "using namespace pto;"]
    for index, case in enumerate(cases):
        kernel = load_kernel(case.name, case.source, case.function, fixed=case.inputs)
        assert kernel.text is not None, kernel.problem
        parts.append(f"namespace k{index} {{\n{kernel.text}\n}}  // {case.name}")
    return "\n".join(parts) + "\n"


def test_the_fixed_kernels_compile_against_the_a2a3_headers(
    a2a3_include: tuple[str, Path],
) -> None:
    compiler, include = a2a3_include
    assert len(CASES) >= 20
    errors = compile_errors(compiler, include, translation_unit(CASES))
    if errors:  # name the kernels that fail, one by one
        failing = [
            case.name
            for case in CASES
            if compile_errors(compiler, include, translation_unit([case]))
        ]
        pytest.fail(f"A2/A3 headers reject {failing}: {errors[:3]}")
