"""The PTO route end to end: every example function and every kernel of the execution
matrix (tests/execution/matrix.py) goes ptoc --target pto -> PTOAS -> C++ -> pto-isa's CPU
simulator, and must compute what the reference interpreter computes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pto_bench import EXAMPLES, Bench, Kernel, example_functions, expected_results, matrix, pto_load

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
# PTOAS checks each instruction against the target (A2/A3 by default): what it rejects there.
A3_BITWISE = "PTOAS: A2/A3 tand/tor/txor/tands/tors take i8/i16 elements only"
A3_BF16 = "PTOAS: A2/A3 tadd takes i32/i16/f16/f32 elements (no bf16)"
A3_TCMP = "PTOAS: pto.tcmp writes an i8 mask; the IR's compare result has the operands' dtype"
A3_PRELU = "PTOAS: A2/A3 tprelu's tmp tile must be u8"
A3_TEXTRACT = "PTOAS: A2/A3 textract reads from loc=mat only (block.view of a Vec tile)"
PTOAS_SCALAR_I32 = (
    "PTOAS v0.27 cannot lower pto.tmaxs/tmins with an i32 scalar ('ins/outs are not memref yet')"
)
# A literal that promotes the tile (the tile is converted first, then the op runs in place):
A3_I64 = "PTOAS: A2/A3 tadds has no i64 form (INT32 + an INT64 literal is INT64)"
PTO_DEFECTS: dict[str, str] = {
    "add_BF16_16x64": A3_BF16,
    "adds_INT32_literal_promotes": A3_I64,
    "and_INT32": A3_BITWISE,
    "ands_INT32_parameter": A3_BITWISE,
    "or_INT32": A3_BITWISE,
    "ors_INT32_parameter": A3_BITWISE,
    "xor_INT32_with_tmp": A3_BITWISE,
    **{f"cmp_FP32_{mode}": A3_TCMP for mode in ("EQ", "NE", "LT", "LE", "GT", "GE")},
    "maxs_INT32_parameter": PTOAS_SCALAR_I32,
    "mins_INT32_parameter": PTOAS_SCALAR_I32,
    "prelu_FP32_with_tmp": A3_PRELU,
    "view_FP32_at_offset": A3_TEXTRACT,
    "move_transpose_FP32": "block.move(transpose=True) has no PTO form (E400)",
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


@pytest.mark.parametrize("key", params(sorted(CASES)))
def test_matrix_kernel_through_ptoas_matches_the_reference(
    key: str, bench: Bench, ptoas: Path
) -> None:
    run(key, bench, ptoas)


def test_the_lists_name_existing_kernels() -> None:
    assert set(NOT_KERNELS) <= set(EXAMPLE_KEYS)
    assert set(PTO_DEFECTS) <= set(EXAMPLE_KEYS) | set(CASES)
    assert len(CASES) >= 150
