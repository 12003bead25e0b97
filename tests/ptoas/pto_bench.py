"""The execution bench of tests/execution (its batched, cached simulator builds and its
harness), fed with kernels that went the PTO way: ptoc --target pto -> PTOAS -> C++."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from execution import matrix  # noqa: E402
from execution.bench import Bench, Kernel, expected_results, load_kernel  # noqa: E402

# Example functions with no kernel by design (on either route).
from execution.test_examples import EXAMPLES, NOT_KERNELS, example_functions  # noqa: E402

from ptoc.editions import Edition, EditionSource  # noqa: E402
from ptoc.frontend import analyze_source  # noqa: E402
from ptoc.run.execute import cce_kernel, tensor_level  # noqa: E402
from ptoc.run.inputs import generate_inputs  # noqa: E402
from ptoc.run.pto_kernel import LauncherError, pto_kernel  # noqa: E402

__all__ = [
    "EXAMPLES",
    "NOT_KERNELS",
    "Bench",
    "Kernel",
    "example_functions",
    "expected_results",
    "matrix",
    "pto_load",
    "routed_kernel",
]


def pto_load(key: str, source: str, function: str, ptoas: Path, **options: object) -> Kernel:
    """The kernel with PTOAS's C++ (and a launcher) as its text, or the reason it has none."""
    kernel = load_kernel(key, source, function, codegen=False, **options)  # type: ignore[arg-type]
    try:
        text, diagnostics = pto_kernel(kernel.program, function, ptoas)
    except LauncherError as exc:
        text, diagnostics = None, []
        kernel.problem = str(exc)
    if text is None and kernel.problem is None:
        kernel.problem = "ptoc or PTOAS failed: " + "; ".join(d.format() for d in diagnostics)
    kernel.text = text
    return kernel


def routed_kernel(
    name: str,
    source: str,
    edition: Edition,
    route: str,
    ptoas: Path,
    given: dict[str, Any] | None = None,
) -> Kernel:
    """The function ``kernel`` of a test program in ``edition``, with its C++ from the CCE route
    (``route == "cce"``) or through PTOAS, and inputs from seed 0 (``given`` fixes some). A
    PTOAS kernel is built alone: PTOAS names every one ``kernel``, with C linkage."""
    path = name.partition("@")[0] + ".py"  # the case's key
    analysis = analyze_source(source, path, edition=(edition, EditionSource.FLAG))
    assert [d.format() for d in analysis.diagnostics] == []
    level, found = tensor_level(analysis.programs[0], "kernel")
    inputs = generate_inputs(level, found, 0, given or {})
    kernel = Kernel(name, level, found, inputs, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, "kernel")
    else:
        kernel.text, diagnostics = pto_kernel(level, "kernel", ptoas)
    if kernel.text is None:
        kernel.problem = "; ".join(d.format() for d in diagnostics)
    return kernel
