"""One table of the DSL surface (ptoc.language): the front end accepts exactly its names, and
completion and hover know every one of them (MemRef and TileView were once accepted by the
front end but unknown to both)."""

from __future__ import annotations

import textwrap

import pytest
from lsprotocol import types

from ptoc.frontend import Occurrence, OccurrenceKind, analyze_source
from ptoc.ir.span import Span
from ptoc.language import HELPER_NAMES, LOOP_HELPERS, TYPE_NAMES, TYPES, entry
from ptols.features.completion import attribute_items
from ptols.features.hover import hover


def test_the_front_end_uses_the_table() -> None:
    assert {"MemRef", "TileView", "Tensor", "Tile"} <= TYPE_NAMES
    assert LOOP_HELPERS == {"range", "parallel", "while_"} and LOOP_HELPERS <= HELPER_NAMES


@pytest.mark.parametrize("name", sorted(TYPE_NAMES))
def test_every_type_name_is_a_type_to_the_front_end(name: str) -> None:
    text = textwrap.dedent(f"""\
        import pypto.language as pl

        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            y = pl.{name}(x)
            return x
        """)
    analysis = analyze_source(text, "t.py")
    assert [(d.code, d.message) for d in analysis.diagnostics] == [
        ("E011", f"pl.{name}(...) is a type, not a value")
    ]


def test_memref_and_tileview_annotations_are_accepted() -> None:
    text = textwrap.dedent("""\
        import pypto.language as pl

        @pl.function
        def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0, 16384, 3), pl.TileView(fractal=512)] = pl.load(x, [0, 0], [64, 64])
            return pl.store(t, [0, 0], [64, 64], x)
        """)
    assert [d.code for d in analysis_errors(text)] == []


def analysis_errors(text: str) -> list[object]:
    return [d for d in analyze_source(text, "t.py").diagnostics if d.severity.value == "error"]


@pytest.mark.parametrize("name", sorted(TYPE_NAMES | HELPER_NAMES))
def test_completion_after_the_prefix_offers_every_name_with_its_doc(name: str) -> None:
    items = {item.label: item for item in attribute_items(["pl"], None, "pl", 1) or []}
    item = entry(name)
    assert item is not None and name in items
    assert (items[name].detail, items[name].documentation) == (item.signature, item.doc)


@pytest.mark.parametrize("name", ["MemRef", "TileView"])
def test_hover_explains_memref_and_tileview(name: str) -> None:
    item = entry(name)
    assert item is not None and item in TYPES
    occurrence = Occurrence(Span("t.py", 1, 0, 1, 5), name, OccurrenceKind.HELPER)
    analysis = analyze_source("import pypto.language as pl\n", "t.py")
    shown = hover(analysis, occurrence, types.Range(types.Position(0, 0), types.Position(0, 5)))
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert shown.contents.value == f"```python\npl.{item.signature}\n```\n\n{item.doc}"
