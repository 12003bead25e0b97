"""The recipe of docs/contributing.md "Add an op" is true: one registration (the call the op
tables make) is enough for the op to appear in hover, completion, the generated operator
reference and both back ends. A toy op is registered for each test and removed after it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_helpers import analysed
from lsprotocol import types

from ptoc.docs_gen import render_operators
from ptoc.driver import compile_source
from ptoc.ops.registry import REGISTRY, Category, OpDef, PipeType, Role, register
from ptoc.ops.rules import Elementwise, elementwise, elementwise_doc, isa, p_tile
from ptols.features import completion, hover
from ptols.features.common import occurrence_at

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "contributing.md"
TOY = "block.toy_negate"

KERNEL = """\
import pypto.language as pl


@pl.program
class Toy:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        n = pl.block.toy_negate(t)
        r = pl.store(n, [0, 0], [16, 64], out)
        return r
"""


@pytest.fixture
def toy_op() -> Iterator[OpDef]:
    """Step 1 of the recipe: the registration an op table row makes (ops/block.py `_family`)."""
    spec = Elementwise("t")
    op = register(
        TOY,
        Category.BLOCK,
        [p_tile("tile", "Tile operand")],
        elementwise("tile", spec),
        "Toy op: element-wise negation (test only).",
        pipe=PipeType.V,
        role=Role.ELEMENTWISE,
        type_rule_doc=elementwise_doc("tile", spec, ["tile"]),
        **isa("TNEG"),
    )
    try:
        yield op
    finally:
        del REGISTRY.ops[TOY]


def test_the_guide_names_the_steps_this_test_takes() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    section = guide.split("## Add an op", 1)[1].split("\n## ", 1)[0]
    for needed in ("ops/block.py", "ops/semantics.py", "docs_gen", "Lowering", "isa("):
        assert needed in section, needed
    assert "tests/server/test_contributing_recipe.py" in section


def test_a_registered_op_shows_in_hover(toy_op: OpDef) -> None:
    a = analysed(KERNEL)
    occ = occurrence_at(a.analysis, *a.at("toy_negate", 1))
    assert occ is not None and occ.op_name == TOY
    found = hover.hover(a.analysis, occ, a.positions.range(occ.span))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value.startswith("```python\npl.block.toy_negate(tile)")
    assert "Toy op: element-wise negation (test only)." in found.contents.value
    assert "TNEG" in found.contents.value  # the lowering, read from the registration


def test_a_registered_op_shows_in_completion(toy_op: OpDef) -> None:
    text = KERNEL.replace("pl.block.toy_negate(t)", "pl.block.toy")
    a = analysed(text)
    offset = a.offset("pl.block.toy", len("pl.block.toy"))
    line, column = a.at("pl.block.toy", len("pl.block.toy"))
    found = completion.complete(a.text, offset, line, column, a.analysis)
    assert found is not None
    assert "toy_negate" in [item.label for item in found.items]


def test_a_registered_op_shows_in_the_operator_reference(toy_op: OpDef) -> None:
    reference = render_operators()
    assert "block.toy_negate" in reference
    assert "Toy op: element-wise negation (test only)." in reference


def test_a_registered_op_reaches_both_back_ends(toy_op: OpDef) -> None:
    cce = compile_source(KERNEL, "cce", path="toy.py")
    assert not cce.has_errors, cce.diagnostics
    assert re.search(r"\bTNEG\(", cce.text)
    pto = compile_source(KERNEL, "pto", path="toy.py")
    assert not pto.has_errors, pto.diagnostics
    assert "pto.tneg" in pto.text
