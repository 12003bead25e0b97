"""Every example program checks clean, and the kernels compile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ptoc.frontend import analyze_source

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ALL_EXAMPLES = sorted(EXAMPLES.rglob("*.py"))
EXPECTED = {
    "block_computation.py",
    "conditional.py",
    "flash_attention.py",
    "jit_tile_add.py",
    "loop_sum.py",
    "mul_kernel_2d.py",
    "simple_add.py",
    "tensor_add.py",
    "tensor_attention.py",
    "tensor_flash_attention.py",
    "ir/my_program.py",
}


def ptoc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptoc", *args], capture_output=True, text=True, timeout=120
    )


def test_the_expected_examples_exist() -> None:
    assert {p.relative_to(EXAMPLES).as_posix() for p in ALL_EXAMPLES} == EXPECTED


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: p.relative_to(EXAMPLES).as_posix())
def test_example_has_no_diagnostics(path: Path) -> None:
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert analysis.uses_pypto
    assert [d.format() for d in analysis.diagnostics] == []
    assert analysis.all_programs()


def test_ptoc_check_on_the_examples_folder() -> None:
    result = ptoc("check", str(EXAMPLES))
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == f"0 errors, 0 warnings in {len(EXPECTED)} files\n"


def test_the_seed_ir_file_keeps_its_program_name() -> None:
    path = EXAMPLES / "ir" / "my_program.py"
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    (program,) = analysis.all_programs()
    assert program.name == "my_program"
    assert [fn.name for fn in program.functions] == ["add", "multiply", "compute"]


@pytest.mark.parametrize(
    ("example", "target"),
    [
        ("simple_add.py", "cce"),
        ("simple_add.py", "pto"),
        ("mul_kernel_2d.py", "pto"),
        ("block_computation.py", "cce"),
        ("tensor_add.py", "cce"),
        ("tensor_add.py", "pto"),
        ("tensor_attention.py", "cce"),
        ("tensor_attention.py", "pto"),
        ("tensor_flash_attention.py", "cce"),
        ("tensor_flash_attention.py", "pto"),
        ("jit_tile_add.py", "cce"),
        ("jit_tile_add.py", "pto"),
    ],
)
def test_kernel_compiles(example: str, target: str) -> None:
    result = ptoc("compile", str(EXAMPLES / example), "--target", target)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.strip()
