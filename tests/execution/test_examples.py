"""Every function of every example, compiled to CCE C++, run on pto-isa's CPU simulator and
compared with the reference interpreter (seeded inputs, as ``ptoc run --sim`` makes them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.cli import analyze

from .bench import Bench, Kernel, expected_results, load_kernel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Functions that have no CCE kernel by design.
NOT_KERNELS = {
    "flash_attention.py::flash_attention": "an orchestration function: it runs on the host",
    "tensor_attention.py::attention": "an orchestration function (after OutlineIncoreScopes): "
    "it runs on the host; tests/execution/test_orchestration.py runs it with its kernels",
    "tensor_flash_attention.py::flash_attention": "an orchestration function (after "
    "OutlineIncoreScopes): it runs on the host; test_orchestration.py runs it with its kernels",
    "tensor_add.py::main": "an orchestration function (after OutlineIncoreScopes): it runs on "
    "the host; its outlined scope main_incore_0 is not a source function",
    "jit_tile_add.py::tile_add": "a @pl.jit entry: an orchestration function that runs on the "
    "host; tests/cli/test_cli_jit.py runs it on the interpreter",
}
# Functions that fail today because of a known code-generation defect.
DEFECTS = {}


def example_functions() -> list[str]:
    found: list[str] = []
    for path in sorted(EXAMPLES.rglob("*.py")):
        relative = path.relative_to(EXAMPLES).as_posix()
        analysis = analyze(path.read_text(encoding="utf-8"), str(path))
        for program in analysis.all_programs():
            found.extend(f"{relative}::{function.name}" for function in program.functions)
    return found


ALL = example_functions()
KERNELS = [key for key in ALL if key not in NOT_KERNELS]


def params() -> list[object]:
    return [
        pytest.param(
            key,
            id=key,
            marks=[pytest.mark.xfail(strict=True, reason=DEFECTS[key])] if key in DEFECTS else [],
        )
        for key in KERNELS
    ]


def test_the_lists_name_existing_example_functions() -> None:
    assert set(NOT_KERNELS) <= set(ALL)
    assert set(DEFECTS) <= set(KERNELS)
    assert len(KERNELS) >= 8


_kernels: dict[str, Kernel] = {}


def kernel_for(key: str) -> Kernel:
    if key not in _kernels:
        relative, function = key.split("::")
        source = (EXAMPLES / relative).read_text(encoding="utf-8")
        _kernels[key] = load_kernel(key, source, function, alone=key in DEFECTS)
    return _kernels[key]


@pytest.fixture(scope="module")
def built(bench: Bench) -> None:
    bench.build_all([kernel_for(key) for key in KERNELS])


@pytest.mark.parametrize("key", params())
def test_example_matches_the_reference(key: str, bench: Bench, built: None) -> None:
    kernel = kernel_for(key)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
