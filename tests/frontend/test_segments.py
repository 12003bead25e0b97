"""Segmented parsing gives exactly the AST of a whole-file parse, or falls back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ptoc.frontend import AnalysisCache, analyze_source
from ptoc.frontend.segments import SegmentCache, parse_segmented

ROOT = Path(__file__).resolve().parents[2]


def same_as_full_parse(text: str) -> bool:
    tree = parse_segmented(text, SegmentCache())
    if tree is None:
        return False
    return ast.dump(tree, include_attributes=True) == ast.dump(
        ast.parse(text), include_attributes=True
    )


@pytest.mark.parametrize("path", sorted((ROOT / "examples").rglob("*.py")), ids=lambda p: p.name)
def test_examples_parse_identically(path: Path):
    assert same_as_full_parse(path.read_text())


TRICKY = {
    "def_in_docstring": 'import pypto.language as pl\n\nX = """\ndef '
    'not_a_function():\n@decorator\n"""\n\ndef f():\n    return 1\n',
    "decorators_and_comments": "import x\n\n# comment\n@a\n@b(1)\ndef f():\n    "
    "pass\n\n\n@c\nclass K:\n    '''doc'''\n    attr = 1\n\n    @d\n    def m(self):\n        return 2\n\n    # trailing\n",
    "continued_call": "y = f(\n1,\n)\ndef g():\n    pass\n",
    "backslash": "x = 1 + \\\n2\ndef g():\n    pass\n",
    "nested_class": "class A:\n    class B:\n        def m(self):\n            pass\n    def "
    "n(self):\n        pass\n",
    "tabs": "class A:\n\tdef m(self):\n\t\treturn 1\n\tdef n(self):\n\t\treturn 2\n",
    "async": "async def f():\n    pass\nclass A:\n    async def g(self):\n        pass\n",
}


@pytest.mark.parametrize("name", sorted(set(TRICKY) - {"def_in_docstring"}))
def test_tricky_sources(name: str):
    assert same_as_full_parse(TRICKY[name])


def test_definition_lines_inside_a_string_fall_back():
    # the cut inside the string leaves an unterminated string: never a wrong tree
    assert parse_segmented(TRICKY["def_in_docstring"], SegmentCache()) is None


def test_a_cut_inside_a_string_falls_back():
    text = 'S = """\nclass Inner:\n    x = 1\n'
    assert (
        parse_segmented(text, SegmentCache()) is None
    )  # unterminated string: full parse reports it


def test_unchanged_segments_are_reused():
    cache = SegmentCache()
    text = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(50))
    first = parse_segmented(text, cache)
    second = parse_segmented(text.replace("return 7", "return 70"), cache)
    assert first is not None and second is not None
    assert first.body[0] is second.body[0]  # reused
    assert first.body[7] is not second.body[7]  # re-parsed


def test_analysis_with_segments_equals_fresh_analysis():
    text = (ROOT / "examples" / "flash_attention.py").read_text()
    cache = AnalysisCache()
    analyze_source(text, "f.py", cache)
    edited = text.replace("pl.exp(", "pl.exp(", 1) + "\n# edited\n"
    cached = analyze_source(edited, "f.py", cache)
    fresh = analyze_source(edited, "f.py")
    assert cached.diagnostics == fresh.diagnostics
    assert sorted((o.span.line, o.span.column, o.name) for o in cached.index.occurrences) == sorted(
        (o.span.line, o.span.column, o.name) for o in fresh.index.occurrences
    )
