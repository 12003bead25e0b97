"""The execution bench of tests/execution (its batched, cached simulator builds and its
harness), fed with kernels that went the PTO way: ptoc --target pto -> PTOAS -> C++."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from execution import matrix  # noqa: E402
from execution.bench import Bench, Kernel, expected_results, load_kernel  # noqa: E402

# Example functions with no kernel by design (on either route).
from execution.test_examples import EXAMPLES, NOT_KERNELS, example_functions  # noqa: E402

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
