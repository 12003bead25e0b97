"""The PTO route end to end: every example function and every kernel of the execution
matrix (tests/execution/matrix.py) goes ptoc --target pto -> PTOAS -> C++ -> pto-isa's CPU
simulator, and must compute what the reference interpreter computes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pto_bench import EXAMPLES, Bench, Kernel, example_functions, expected_results, matrix, pto_load

from ptoc.frontend import analyze_source
from ptoc.run.pto_kernel import pto_kernel
from ptoc.run.simulator import Toolchain

CASES = {case.name: case for case in matrix.all_cases()}
EXAMPLE_KEYS = example_functions()

# Example functions with no PTO kernel by design.
NOT_KERNELS = {
    "flash_attention.py::flash_attention": "an orchestration function: it runs on the host",
    "tensor_attention.py::attention": "an orchestration function (after OutlineIncoreScopes): "
    "it runs on the host; tests/execution/test_orchestration.py runs it with its kernels",
    "tensor_flash_attention.py::flash_attention": "an orchestration function (after "
    "OutlineIncoreScopes): it runs on the host; test_orchestration.py runs it with its kernels",
    "tensor_add.py::main": "an orchestration function (after OutlineIncoreScopes): it runs on "
    "the host",
}
# Known failures of the PTO route, each with its reason (xfail strict: a fix must remove it).
A3_TCMP = "PTOAS: pto.tcmp writes an i8 mask; the IR's compare result has the operands' dtype"
PTO_DEFECTS: dict[str, str] = {
    **{f"cmp_FP32_{mode}": A3_TCMP for mode in ("EQ", "NE", "LT", "LE", "GT", "GE")},
}
# Kernels with no PTO form on A2/A3 (PTOAS's default target, whose limits ptoc checks itself
# from the registry's traits): the diagnostic ptoc reports on the op's call, before PTOAS runs.
# (line, first column, last column) are 1-based, 0-based, 0-based as Span keeps them.
PTO_REJECTS: dict[str, tuple[str, tuple[int, int, int], str]] = {
    "add_BF16_16x64": (
        "E400",
        (15, 14, 30),
        "block.add: pto.tadd takes INT16, UINT16, INT32, UINT32, FP16, FP32 elements on A2/A3 "
        "(PTOAS), not BF16; convert with pl.cast(..., target_type=pl.FP32) first",
    ),
    "adds_INT32_literal_promotes": (
        "E400",
        (13, 14, 28),
        "block.adds: pto.tadds takes INT16, UINT16, INT32, UINT32, FP16, FP32 elements on "
        "A2/A3 (PTOAS), not INT64 (a literal makes the INT32 tile's result INT64); use a "
        "pl.Scalar[pl.INT32] value instead of the literal",
    ),
    "move_transpose_FP32": (
        "E400",
        (13, 14, 76),
        "block.move: transpose=true has no PTO form (pto.tmov has no such attribute)",
    ),
}


def params(keys: list[str]) -> list[object]:
    return [
        pytest.param(
            key,
            id=key,
            marks=[pytest.mark.xfail(strict=True, reason=PTO_DEFECTS[key])]
            if key in PTO_DEFECTS
            else [],
        )
        for key in keys
    ]


_kernels: dict[str, Kernel] = {}


def kernel_for(key: str, ptoas: Path) -> Kernel:
    if key not in _kernels:
        if key in CASES:
            case = CASES[key]
            _kernels[key] = pto_load(
                key, case.source, case.function, ptoas, fixed=case.inputs, alone=key in PTO_DEFECTS
            )
        else:
            relative, function = key.split("::")
            source = (EXAMPLES / relative).read_text(encoding="utf-8")
            _kernels[key] = pto_load(key, source, function, ptoas, alone=key in PTO_DEFECTS)
    return _kernels[key]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path, request: pytest.FixtureRequest) -> Bench:
    """Every selected kernel, built in batches before the first test runs."""
    selected = {
        item.callspec.params["key"]
        for item in request.session.items
        if hasattr(item, "callspec")
        and "key" in item.callspec.params
        and item.module is request.module
    }
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, ptoas) for key in sorted(selected)])
    return bench


def run(key: str, bench: Bench, ptoas: Path) -> None:
    kernel = kernel_for(key, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())


@pytest.mark.parametrize("key", params([k for k in EXAMPLE_KEYS if k not in NOT_KERNELS]))
def test_example_through_ptoas_matches_the_reference(key: str, bench: Bench, ptoas: Path) -> None:
    run(key, bench, ptoas)


@pytest.mark.parametrize("key", params(sorted(set(CASES) - set(PTO_REJECTS))))
def test_matrix_kernel_through_ptoas_matches_the_reference(
    key: str, bench: Bench, ptoas: Path
) -> None:
    run(key, bench, ptoas)


@pytest.mark.parametrize("key", sorted(PTO_REJECTS))
def test_kernel_without_an_a2a3_form_is_rejected_by_ptoc(key: str, ptoas: Path) -> None:
    case = CASES[key]
    program = analyze_source(case.source, "kernel.py").programs[0]
    text, diagnostics = pto_kernel(program, case.function, ptoas)
    code, (line, start, end), message = PTO_REJECTS[key]
    assert text is None
    assert [(d.code, d.message) for d in diagnostics] == [(code, message)]
    span = diagnostics[0].span
    assert (span.line, span.column, span.end_line, span.end_column) == (line, start, line, end)


def test_the_lists_name_existing_kernels() -> None:
    assert set(NOT_KERNELS) <= set(EXAMPLE_KEYS)
    assert set(PTO_DEFECTS) <= set(EXAMPLE_KEYS) | set(CASES)
    assert set(PTO_REJECTS) <= set(CASES) and not set(PTO_REJECTS) & set(PTO_DEFECTS)
    assert len(CASES) >= 150
