"""The generated kernel matrix (``matrix.py``), each compiled, simulated and compared."""

from __future__ import annotations

import pytest

from .bench import Bench, Kernel, expected_results, load_kernel
from .matrix import Case, all_cases

CASES = all_cases()


def params() -> list[object]:
    marked = []
    for case in CASES:
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
    expected = expected_results(kernel, case.expect(kernel.inputs))
    outcome = bench.execute(kernel, expected)
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
