"""Every kernel source of the execution suite (tests/execution), for checks that need the
kernels but not the simulator: the matrix, the examples, the language constructs and the
tensor-level programs."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from execution import matrix  # noqa: E402
from execution.test_language_constructs import SOURCE as CONSTRUCTS  # noqa: E402
from execution.test_orchestration import PROGRAMS  # noqa: E402

EXAMPLES = TESTS.parent / "examples"


def suite_sources() -> dict[str, str]:
    """Name -> source text of every program the execution suite runs."""
    sources = {case.name: case.source for case in matrix.all_cases()}
    for path in sorted(EXAMPLES.rglob("*.py")):
        sources[f"examples/{path.relative_to(EXAMPLES).as_posix()}"] = path.read_text("utf-8")
    sources["language_constructs"] = CONSTRUCTS
    known = set(sources.values())
    for name, (source, _) in PROGRAMS.items():
        if source not in known:
            sources[name] = source
    return sources
