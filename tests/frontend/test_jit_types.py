"""What a JIT kernel's text fixes before any call (issue #27): ``pl.RUNTIME`` scalars (E211
when misused) and a bare tensor's one dtype (E212 when two loads of it disagree)."""

from __future__ import annotations

import textwrap

from frontend_helpers import where

from ptoc.editions import Edition, EditionSource
from ptoc.frontend import ModuleAnalysis, OccurrenceKind, analyze_source
from ptoc.printer import print_type

CHOSEN = (Edition.V2026_08, EditionSource.FLAG)


def analyse(body: str) -> tuple[str, ModuleAnalysis]:
    text = "import pypto.language as pl\nimport torch\n\n" + textwrap.dedent(body)
    return text, analyze_source(text, "k.py", edition=CHOSEN)


def found(analysis: ModuleAnalysis) -> list[tuple[str, int, int, int, int]]:
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
    ]


SCALED = """
@pl.jit
def scaled(a: pl.Tensor, c: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT32] = pl.RUNTIME):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], c)
    return c
"""


def test_a_runtime_scalar_stays_a_parameter_and_its_hover_says_so() -> None:
    _, analysis = analyse(
        SCALED + '\nif __name__ == "__main__":\n    a = torch.zeros((64, 64))\n'
        "    scaled(a, a, n=pl.RUNTIME)\n"
    )
    assert found(analysis) == []
    (program,) = analysis.jit_specialisations["scaled"]
    assert [p.name for p in program.functions[0].params] == ["a", "c", "n"]
    (definition,) = [
        o
        for o in analysis.index.occurrences
        if o.is_definition and o.kind is OccurrenceKind.FUNCTION and o.name == "scaled"
    ]
    assert "# n is a run-time value (pl.RUNTIME)" in definition.detail.splitlines()


def test_runtime_as_a_tensors_default_is_e211_on_the_default() -> None:
    text, analysis = analyse(
        SCALED.replace("c: pl.Out[pl.Tensor],", "c: pl.Out[pl.Tensor] = pl.RUNTIME,")
    )
    assert found(analysis) == [("E211", *where(text, "pl.RUNTIME"))]
    assert "'c' is a tensor" in analysis.diagnostics[0].message


def test_runtime_passed_for_a_tensor_is_e211_on_the_argument() -> None:
    text, analysis = analyse(
        SCALED + '\nif __name__ == "__main__":\n    c = torch.zeros((64, 64))\n'
        "    scaled(pl.RUNTIME, c, 3)\n"
    )
    assert found(analysis) == [("E211", *where(text, "pl.RUNTIME", 2))]
    assert analysis.jit_specialisations["scaled"] == []


CLASH = """
@pl.jit
def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
        y: pl.Tile[[64, 64], pl.FP16] = pl.load(a, [0, 64], [64, 64])
        pl.store(x, [0, 0], c)
    return c
"""


def test_two_loads_of_one_tensor_with_two_dtypes_clash_for_every_call() -> None:
    text, analysis = analyse(CLASH)
    assert found(analysis) == [("E212", *where(text, "pl.FP16"))]
    (diagnostic,) = analysis.diagnostics
    assert diagnostic.message == (
        "tiles loaded from 'a' are annotated FP32 and FP16: both hold dtype(a), "
        "which no call can make both"
    )
    assert diagnostic.related[0].span.line == where(text, "pl.FP32")[0]


def test_loads_of_one_tensor_with_one_dtype_or_of_two_tensors_are_fine() -> None:
    _, same = analyse(CLASH.replace("pl.FP16", "pl.FP32"))
    assert found(same) == []
    _, two = analyse(
        CLASH.replace("a: pl.Tensor,", "a: pl.Tensor, b: pl.Tensor,").replace(
            "pl.load(a, [0, 64]", "pl.load(b, [0, 64]"
        )
    )
    assert found(two) == []


def test_a_kernel_no_call_shapes_records_each_bare_tensors_dtype_as_its_own() -> None:
    """Hover shows ``dtype(a)`` for values of a's element type: each ranked bare tensor gets
    a dtype variable of its own (``c``'s rank comes from the store)."""
    _, uncalled = analyse(SCALED)
    assert found(uncalled) == []
    assert uncalled.jit_dtype_variables == {"scaled": {"a": "dtype(a)", "c": "dtype(c)"}}
    _, called = analyse(
        SCALED + '\nif __name__ == "__main__":\n    a = torch.zeros((64, 64))\n    scaled(a, a)\n'
    )
    assert called.jit_dtype_variables == {}  # the call's concrete types are shown


def symbolic_types(analysis: ModuleAnalysis) -> dict[str, str]:
    return {
        o.name: print_type(o.type)
        for o in analysis.index.occurrences
        if o.is_definition and o.kind is OccurrenceKind.VARIABLE and o.type is not None
    }


JOINED = """
@pl.jit
def k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 64])
        tb = pl.load(b, [0, 0], [64, 64])
        s = pl.add(ta, tb)
        r = pl.mul(tb, s)
        n = pl.add(ta, 1.0)
        h = pl.cast(s, target_type=pl.FP16)
        pl.store(r, [0, 0], c)
    return c
"""


def test_a_binary_op_of_two_parameters_dtypes_has_their_promotion() -> None:
    """``pl.add`` promotes (spec §4): of ``dtype(a)`` and ``dtype(b)`` it is their join,
    the same whichever way round; a scalar keeps the tile's, a cast names its own."""
    _, analysis = analyse(JOINED)
    assert found(analysis) == []
    assert symbolic_types(analysis) == {
        "ta": "pl.Tile[[64, 64], dtype(a)]",
        "tb": "pl.Tile[[64, 64], dtype(b)]",
        "s": "pl.Tile[[64, 64], promote(dtype(a), dtype(b))]",
        "r": "pl.Tile[[64, 64], promote(dtype(a), dtype(b))]",
        "n": "pl.Tile[[64, 64], dtype(a)]",
        "h": "pl.Tile[[64, 64], pl.FP16]",
    }


def test_every_bare_tensor_has_its_own_dtype_however_many_there_are() -> None:
    names = [f"t{k}" for k in range(9)]
    loads = "".join(
        f"        x{k} = pl.load({name}, [0, 0], [16, 16])\n" for k, name in enumerate(names)
    )
    body = (
        "@pl.jit\n"
        f"def k({', '.join(f'{n}: pl.Tensor' for n in names)}, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        f"{loads}"
        "        pl.store(x8, [0, 0], c)\n"
        "    return c\n"
    )
    _, analysis = analyse(body)
    assert found(analysis) == []
    types = symbolic_types(analysis)
    assert [types[f"x{k}"] for k in range(9)] == [
        f"pl.Tile[[16, 16], dtype(t{k})]" for k in range(9)
    ]
    assert len(analysis.jit_dtype_variables["k"]) == 10
