"""The PTO route end to end: every example function and every kernel of the execution
matrix (tests/execution/matrix.py) goes ptoc --target pto -> PTOAS -> C++ -> pto-isa's CPU
simulator, and must compute what the reference interpreter computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pto_bench import (
    EXAMPLES,
    NOT_KERNELS,
    Bench,
    Kernel,
    example_functions,
    expected_results,
    matrix,
    pto_load,
)

from ptoc.frontend import analyze_source
from ptoc.run.pto_kernel import pto_kernel
from ptoc.run.simulator import Toolchain


def pto_forms() -> list[matrix.Case]:
    """Kernels of the PTO route's own A2/A3 forms (docs/codegen-pto.md) beyond the matrix:
    bit-wise ops on INT16 views, expanded scalars, an f32 slope, a dynamic window of rows."""
    simple, cast = matrix.simple, matrix.cast
    scalar_kernels = (
        ("ors_UINT16_parameter", "pl.block.ors(t_a, s)", "UINT16", 0x8003, np.bitwise_or),
        ("ands_INT16_parameter", "pl.block.ands(t_a, s)", "INT16", 0x0F0F, np.bitwise_and),
        ("maxs_INT16_parameter", "pl.maxs(t_a, s)", "INT16", 3, np.maximum),
        ("mins_UINT16_parameter", "pl.mins(t_a, s)", "UINT16", 9, np.minimum),
    )
    cases = [
        simple(
            name,
            [("a", (16, 64), dtype)],
            [f"t_c = {call}"],
            "t_c",
            (16, 64),
            dtype,
            lambda a, fn=fn, dtype=dtype: cast(fn(a["a"], a["s"]), dtype),
            scalars=[("s", f"pl.Scalar[pl.{dtype}]")],
            fixed={"s": np.array(value, dtype=matrix.DTYPES[dtype])},
        )
        for name, call, dtype, value, fn in scalar_kernels
    ]
    cases.append(
        simple(
            "xors_INT32_parameter_with_tmp",
            [("a", (16, 64), "INT32")],
            ["t_tmp = pl.create_tile([16, 64], dtype=pl.INT32)", "t_c = pl.xors(t_a, s, t_tmp)"],
            "t_c",
            (16, 64),
            "INT32",
            lambda a: cast(np.bitwise_xor(a["a"], a["s"]), "INT32"),
            scalars=[("s", "pl.Scalar[pl.INT32]")],
            fixed={"s": np.array(-77, dtype=np.int32)},
        )
    )
    cases.append(
        simple(
            "and_INT64",
            [("a", (16, 64), "INT64"), ("b", (16, 64), "INT64")],
            ["t_c = pl.block.and_(t_a, t_b)"],
            "t_c",
            (16, 64),
            "INT64",
            lambda a: cast(np.bitwise_and(a["a"], a["b"]), "INT64"),
        )
    )
    cases.append(
        simple(
            "lrelu_FP16_parameter",
            [("a", (16, 64), "FP16")],
            ["t_c = pl.lrelu(t_a, s)"],
            "t_c",
            (16, 64),
            "FP16",
            lambda a: cast(np.where(a["a"] > 0, a["a"], a["a"] * np.float16(0.25)), "FP16"),
            scalars=[("s", "pl.Scalar[pl.FP16]")],
            fixed={"s": np.array(0.25, dtype=np.float16)},
        )
    )
    cases.append(
        simple(
            "view_FP32_rows_at_a_parameter",
            [("a", (16, 64), "FP32")],
            ["t_c = pl.view(t_a, [8, 64], [i, 0])"],
            "t_c",
            (8, 64),
            "FP32",
            lambda a: cast(a["a"][4:12], "FP32"),
            scalars=[("i", "pl.Scalar[pl.INT64]")],
            fixed={"i": np.array(4, dtype=np.int64)},
        )
    )
    return cases


CASES = {case.name: case for case in [*matrix.all_cases(), *pto_forms()]}
EXAMPLE_KEYS = example_functions()

# Known failures of the PTO route, each with its reason (xfail strict: a fix must remove it).
PTO_DEFECTS: dict[str, str] = {}
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
