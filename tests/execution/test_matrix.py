"""The generated kernel matrix (``matrix.py``), each compiled, simulated and compared."""

from __future__ import annotations

import pytest

from ptoc.ir.dtype import DataType
from ptoc.ir.types import TensorType
from ptoc.run.compare import compare
from ptoc.run.execute import cce_kernel

from .bench import Bench, Kernel, expected_results, load_kernel
from .matrix import Case, all_cases

CASES = all_cases()
# Kernels with no CCE form on A2/A3, whose instruction headers assert more than pto-isa's CPU
# simulator (tests/execution/test_a2a3_headers.py): the diagnostic ptoc reports on the op's
# call. (line, first column, last column) are 1-based, 0-based, 0-based as Span keeps them.
CCE_REJECTS: dict[str, tuple[str, tuple[int, int, int], str]] = {
    "adds_INT32_literal_promotes": (
        "E400",
        (13, 14, 28),
        "block.adds: TADDS takes INT16, INT32, FP16, FP32 elements on A2/A3 (pto-isa's "
        "npu/a2a3), not INT64 (a literal makes the INT32 tile's result INT64); use a "
        "pl.Scalar[pl.INT32] value instead of the literal",
    ),
}


def params() -> list[object]:
    marked = []
    for case in CASES:
        if case.name in CCE_REJECTS:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=case.defect)] if case.defect else []
        marked.append(pytest.param(case, id=case.name, marks=marks))
    return marked


_kernels: dict[str, Kernel] = {}


@pytest.fixture(scope="module")
def built(bench: Bench, request: pytest.FixtureRequest) -> dict[str, Kernel]:
    """Every selected case's kernel, built in batches before the first test runs."""
    selected = {
        item.callspec.params["case"].name
        for item in request.session.items
        if hasattr(item, "callspec")
        and "case" in item.callspec.params
        and item.module is request.module
    }
    for case in CASES:
        if case.name in selected and case.name not in _kernels:
            _kernels[case.name] = load_kernel(
                case.name, case.source, case.function, fixed=case.inputs, alone=bool(case.defect)
            )
    bench.build_all(list(_kernels.values()))
    return _kernels


@pytest.mark.parametrize("case", params())
def test_kernel_matches_the_reference(case: Case, bench: Bench, built: dict[str, Kernel]) -> None:
    kernel = built[case.name]
    expected = expected_results(kernel)
    outcome = bench.execute(kernel, expected)
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())


@pytest.mark.parametrize("name", sorted(CCE_REJECTS))
def test_kernel_without_an_a2a3_form_is_rejected_by_ptoc(name: str) -> None:
    case = next(c for c in CASES if c.name == name)
    kernel = load_kernel(name, case.source, case.function, fixed=case.inputs, codegen=False)
    text, diagnostics = cce_kernel(kernel.program, case.function)
    code, (line, start, end), message = CCE_REJECTS[name]
    assert text is None
    assert [(d.code, d.message) for d in diagnostics] == [(code, message)]
    span = diagnostics[0].span
    assert (span.line, span.column, span.end_line, span.end_column) == (line, start, line, end)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_interpreter_agrees_with_the_numpy_statement(case: Case) -> None:
    """The cases' numpy statements are an independent reading of each op: the reference
    interpreter must agree with them (no simulator needed)."""
    kernel = load_kernel(case.name, case.source, case.function, fixed=case.inputs, codegen=False)
    expected = expected_results(kernel)
    statement = case.expect(kernel.inputs)
    for name, want in statement.items():
        comparison = compare(name, param_dtype(kernel, name), expected.outputs[name], want)
        assert comparison.ok, comparison.line()


def param_dtype(kernel: Kernel, name: str) -> DataType:
    param = next(p for p in kernel.function.params if p.name == name)
    assert isinstance(param.type, TensorType)
    return param.type.dtype
