"""Calls of simple module functions in constants (``frontend/const_helpers.py``): read, never
run. The upstream phase-fence example sizes its tensors with ``chained_snapshot_shape(
branches=branches)``, a function that guards its argument and returns a tuple."""

from __future__ import annotations

import pytest
from frontend_helpers import analyze

from ptoc import driver
from ptoc.diagnostics import Severity

KERNEL = """import pypto.language as pl

DEFAULT = 2


def shape_of(n: int = DEFAULT, *, wide: bool = False) -> tuple[int, int]:
    \"\"\"Rows and columns.\"\"\"
    if n <= 0 or n > 64:
        raise ValueError(f"bad n {n}")
    cols = 64 if wide else 32
    if n == 1:
        return 8, cols
    return 16 * n, cols


{define}


@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    y = pl.store(pl.add(t, t), [0, 0], y)
    return y
"""


@pytest.mark.parametrize(
    ("define", "tile"),
    [
        ("ROWS, COLS = shape_of(4)", "float, 64, 32"),
        ("ROWS, COLS = shape_of(wide=True)", "float, 32, 64"),  # the default, a constant
        ("ROWS, COLS = shape_of(1, wide=DEFAULT > 1)", "float, 8, 64"),  # the first return
        ("ROWS = shape_of(3)[0]\nCOLS = 16", "float, 48, 16"),
    ],
)
def test_a_constant_may_call_a_simple_module_function(define: str, tile: str) -> None:
    source = KERNEL.replace("{define}", define)
    result = driver.compile_source(source, "cce", path="k.py")
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert f"Tile<TileType::Vec, {tile}" in result.text


@pytest.mark.parametrize(
    "define",
    [
        "ROWS, COLS = shape_of(0)",  # the guard raises: not a constant
        "ROWS, COLS = shape_of(n=1, depth=2)",  # no such parameter
        "import sys\nROWS, COLS = shape_of(len(sys.argv))",  # a value known when it runs
    ],
)
def test_a_call_the_reader_cannot_finish_is_not_a_constant(define: str) -> None:
    # the shapes are then unknown names, as any other value that is not constant
    found = analyze(KERNEL.replace("{define}", define).split("\n", 2)[2]).diagnostics
    assert found and all(d.severity is Severity.ERROR for d in found)
    assert {d.code for d in found} == {"E205"}  # the shape names cannot be evaluated


def test_a_helper_that_calls_itself_stops_at_a_fixed_depth() -> None:
    source = KERNEL.replace(
        "{define}", "def loop(n):\n    return loop(n)\n\n\nROWS, COLS = loop(1)"
    )
    found = analyze(source, header=False).diagnostics
    assert {d.code for d in found} == {"E205"}  # (not constant: no RecursionError, no hang)
