"""Builder functions (``def build(n, m=16): @pl.program class P ...``): their parameters and
locals are sizes known when the builder runs, so a tile may be shaped by them; functions the
builder defines, or has another builder make, are callable by name from its programs."""

from __future__ import annotations

import textwrap

import pytest
from frontend_helpers import HEADER, analyze, codes, where

from ptoc import driver
from ptoc.diagnostics import Severity
from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.ir.types import TileType

BUILDER = """
def shape_of(n):
    return 2 * n, 64


def build(n: int, m: int = 16):
    rows, cols = shape_of(n)

    @pl.function(type=pl.FunctionType.InCore)
    def double(
        x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]
    ) -> pl.Tensor[[rows, cols], pl.FP32]:
        t = pl.load(x, [0, 0], [rows, cols])
        y = pl.store(pl.add(t, t), [0, 0], y)
        return y

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self, x: pl.Tensor[[n, m], pl.FP32], y: pl.Out[pl.Tensor[[n, m], pl.FP32]]
        ) -> pl.Tensor[[n, m], pl.FP32]:
            t = pl.load(x, [0, 0], [n, m])
            u = pl.create_tile([n, m], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            s = pl.row_sum(t, u)
            y = pl.store(t, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]
        ) -> pl.Tensor[[rows, cols], pl.FP32]:
            y = double(x, y)
            return y

    return P
"""


def test_a_tile_may_be_shaped_by_the_builders_parameters():
    analysis = analyze(BUILDER)
    assert codes(analysis) == []
    (program,) = analysis.all_programs()
    tile = next(o.type for o in analysis.index.occurrences if o.name == "u" and o.is_definition)
    assert isinstance(tile, TileType)
    assert [getattr(d, "name", None) for d in tile.shape] == ["n", "m"]


def test_a_runtime_scalar_still_may_not_shape_a_tile():
    text = BUILDER.replace(
        "def k(\n            self,", "def k(\n            self, r: pl.Scalar[pl.INDEX],"
    )
    text = text.replace("pl.create_tile([n, m]", "pl.create_tile([r, m]")
    analysis = analyze(text)
    full = "import pypto.language as pl\n\n" + __import__("textwrap").dedent(text)
    line, column, end_line, end_column = where(full, "[r, m]")
    assert codes(analysis) == [("E306", line, column, end_line, end_column)]


def test_the_builders_own_functions_are_called_by_name_with_its_symbols():
    text = BUILDER.replace("y = double(x, y)", "y = double(x)")
    analysis = analyze(text)
    assert [d.code for d in analysis.diagnostics] == ["E206"]  # argument count


FACTORY = """
def make_scale(rows: int, cols: int):
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]
    ) -> pl.Tensor[[rows, cols], pl.FP32]:
        t = pl.load(x, [0, 0], [rows, cols])
        y = pl.store(pl.muls(t, 2.0), [0, 0], y)
        return y

    return scale


def build(n: int):
    k = make_scale(n, 64)

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self, x: pl.Tensor[[n, 64], pl.FP32], y: pl.Out[pl.Tensor[[n, 64], pl.FP32]]
        ) -> pl.Tensor[[n, 64], pl.FP32]:
            y = k(x, y)
            return y

    return P
"""


def test_a_function_another_builder_makes_is_typed_with_the_callers_values():
    assert codes(analyze(FACTORY)) == []
    wrong = FACTORY.replace("k = make_scale(n, 64)", "k = make_scale(n, 32)")
    found = analyze(wrong).diagnostics
    assert [d.code for d in found] == ["W009", "W009", "W007"]
    assert "must be Tensor[[n, 32], FP32], got Tensor[[n, 64], FP32]" in found[0].message


DEFAULTS = """
def build(rows: int = 16, cols: int = 2 * 32, scale: float = 64**-0.5):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]
        ) -> pl.Tensor[[rows, cols], pl.FP32]:
            t = pl.load(x, [0, 0], [rows, cols])
            y = pl.store(pl.muls(t, scale), [0, 0], y)
            return y

    return P
"""


def test_a_built_program_compiles_as_the_builder_makes_it_with_its_defaults():
    text = "import pypto.language as pl\n\n" + DEFAULTS
    analysis = analyze(DEFAULTS)
    assert codes(analysis) == []  # checked for every size
    result = driver.compile_source(analysis, "cce", path="k.py")
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert "Tile<TileType::Vec, float, 16, 64" in result.text
    assert "TMULS(" in result.text and "0.125f" in result.text
    pto = driver.compile_source(text, "pto", path="k.py")
    assert "rows=16, cols=64" in pto.text


def test_a_builder_parameter_without_a_default_leaves_the_sizes_free_at_compile_time():
    text = "import pypto.language as pl\n\n" + DEFAULTS.replace("rows: int = 16", "rows: int")
    assert codes(analyze(DEFAULTS.replace("rows: int = 16", "rows: int"))) == []
    result = driver.compile_source(text, "cce", path="k.py")
    assert {d.code for d in result.diagnostics if d.severity is Severity.ERROR} == {"E401"}


SIZED = """
ROWS = pl.dynamic("ROWS")


def shape_of(n):
    return n // 2, 64


def build(n: int, m: int = 16):
    rows, cols = shape_of(n)

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            x: pl.Tensor[[ROWS, m], pl.FP32],
            z: pl.Tensor[[rows, cols], pl.FP32],
            y: pl.Out[pl.Tensor[[n, m], pl.FP32]],
        ) -> pl.Tensor[[n, m], pl.FP32]:
            t = pl.load(x, [0, 0], [n, m])
            y = pl.store(t, [0, 0], y)
            return y

    return P
"""


def shapes(analysis: ModuleAnalysis) -> list[list[object]]:
    (program,) = analysis.all_programs()
    (function,) = program.functions
    return [
        [getattr(d, "value", getattr(d, "name", None)) for d in p.type.shape]
        for p in function.params
    ]


def test_given_sizes_make_a_builders_program_at_those_sizes():
    text = HEADER + textwrap.dedent(SIZED)
    assert shapes(analyze_source(text, "k.py")) == [["ROWS", "m"], ["rows", "cols"], ["n", "m"]]
    sized = analyze_source(text, "k.py", sizes={"n": 8, "ROWS": 32, "rows": 4, "cols": 64})
    assert codes(sized) == []
    # a parameter, locals and pl.dynamic("ROWS") are the values given; m, not given, stays a
    # symbol unless the defaults are taken too
    assert shapes(sized) == [[32, "m"], [4, 64], [8, "m"]]
    # the module function shape_of is read (never run) at the parameter's given value
    both = analyze_source(text, "k.py", builder_defaults=True, sizes={"n": 8})
    assert shapes(both) == [["ROWS", 16], [4, 64], [8, 16]]


@pytest.mark.parametrize(
    ("call", "built"),
    [
        ("P = build(32)", "Tile<TileType::Vec, float, 32, 64"),  # a literal
        ("ROWS = 8\nP = build(rows=ROWS)", "Tile<TileType::Vec, float, 8, 64"),  # a constant
        (  # a constant local of the caller
            "def main():\n    rows = 4 * 8\n    return build(rows)",
            "Tile<TileType::Vec, float, 32, 64",
        ),
        ("for b in (build,):\n    b()", "Tile<TileType::Vec, float, 16, 64"),  # the default
    ],
)
def test_a_built_program_compiles_as_the_builder_s_call_in_the_file_makes_it(
    call: str, built: str
) -> None:
    text = "import pypto.language as pl\n\n" + DEFAULTS + "\n\n" + call + "\n"
    result = driver.compile_source(text, "cce", path="k.py")
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert built in result.text


def test_a_builder_call_passing_a_run_time_value_leaves_the_size_free() -> None:
    # not the default: the call passes a value of its own, known only when it runs
    text = (
        "import pypto.language as pl\nimport sys\n\n" + DEFAULTS + "\n\nP = build(len(sys.argv))\n"
    )
    result = driver.compile_source(text, "cce", path="k.py")
    assert {d.code for d in result.diagnostics if d.severity is Severity.ERROR} == {"E401"}


# DEFAULTS with a local Python computes when the builder runs and ptoc cannot, and a loop
# bounded by a pl.dynamic that no parameter's shape has
UNCOMPUTABLE = 'N = pl.dynamic("N")\n' + DEFAULTS.replace(
    "scale: float = 64**-0.5):\n",
    "scale: float = 64**-0.5):\n    m = len(str(rows)) * 16\n",
).replace(
    "            t = pl.load(x, [0, 0], [rows, cols])\n"
    "            y = pl.store(pl.muls(t, scale), [0, 0], y)\n",
    "            for i in pl.range(N):\n"
    "                t = pl.load(x, [0, m], [rows, cols])\n"
    "                y = pl.store(pl.muls(t, scale), [0, 0], y)\n",
)


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_a_value_nothing_gives_the_kernel_is_an_e400_where_it_is_defined(target: str) -> None:
    # A builder's local ptoc cannot compute and a pl.dynamic dimension only a loop bound uses:
    # both generators failed on them (E900, "used before it is defined").
    text = "import pypto.language as pl\n\n" + UNCOMPUTABLE
    assert codes(analyze(UNCOMPUTABLE)) == []  # checked for every value
    result = driver.compile_source(text, target, path="k.py")
    errors = [(d.code, d.span.line, d.message) for d in result.diagnostics]
    assert errors == [
        (
            "E400",
            line,
            f"'{name}' has no value in 'k': no parameter, statement or parameter's shape gives "
            "it (a pl.dynamic dimension only a loop uses, or a value of the Python around the "
            "kernel that ptoc cannot compute); pass it as a pl.Scalar parameter",
        )
        for name, line in (("N", 3), ("m", 6))
    ]
