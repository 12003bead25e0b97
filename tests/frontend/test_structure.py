"""The front end's shape (docs/architecture.md, `ptoc.frontend`): one rule per construct,
picked from tables keyed by AST node type; small classes and functions; and diagnostics that
each analysis keeps to itself (no sink assigned into an object shared with other analyses)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from ptoc.frontend.lower import tables
from ptoc.frontend.lower.core import Rules

FRONTEND = Path(__file__).resolve().parents[2] / "compiler" / "ptoc" / "frontend"
SOURCES = sorted(FRONTEND.rglob("*.py"))


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def length(node: ast.stmt) -> int:
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(FRONTEND)))
def test_classes_and_functions_stay_small(path: Path) -> None:
    too_long = [
        f"{node.name}: {length(node)} lines"
        for node in ast.walk(parsed(path))
        if (isinstance(node, ast.ClassDef) and length(node) > 400)
        or (isinstance(node, ast.FunctionDef) and length(node) > 60)
    ]
    assert too_long == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(FRONTEND)))
def test_lines_fit_in_100_columns(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [n for n, line in enumerate(lines, 1) if len(line) > 100] == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(FRONTEND)))
def test_no_diagnostic_sink_is_swapped_into_an_object(path: Path) -> None:
    """A bag is handed over when an object is made, never assigned into one afterwards: the
    server analyses on worker threads, and a swapped sink would mix two analyses' output."""
    swapped: list[int] = []
    for node in ast.walk(parsed(path)):
        if not isinstance(node, ast.FunctionDef) or node.name == "__init__":
            continue
        for inner in ast.walk(node):
            targets = inner.targets if isinstance(inner, ast.Assign) else []
            for target in targets:
                for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(element, ast.Attribute) and element.attr in ("bag", "index"):
                        swapped.append(inner.lineno)
    assert swapped == []


def test_every_statement_and_expression_kind_has_a_table_entry_or_the_fallback() -> None:
    rules = tables.RULES
    assert isinstance(rules, Rules)
    for table, base in ((rules.expressions, ast.expr), (rules.statements, ast.stmt)):
        for node_type, rule in table.items():
            assert issubclass(node_type, base)
            # a rule is a module-level function of one construct's module: (lowerer, node)
            assert inspect.isfunction(rule) and rule.__module__.startswith("ptoc.frontend.lower.")
            assert list(inspect.signature(rule).parameters)[:1] == ["lw"]


def test_the_rule_modules_pick_no_statement_or_expression_kind_by_isinstance_chain() -> None:
    """The tables dispatch: no function tests its node against several statement kinds (or
    several expression kinds) in a row, as the one-class lowerer did."""
    statement_kinds = {t.__name__ for t in tables.STATEMENTS}
    expression_kinds = {t.__name__ for t in tables.EXPRESSIONS}
    chains: list[str] = []
    for path in sorted((FRONTEND / "lower").glob("*.py")):
        for function in ast.walk(parsed(path)):
            if not isinstance(function, ast.FunctionDef):
                continue
            tested: dict[str, set[str]] = {}
            for call in ast.walk(function):
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == "isinstance"
                    and len(call.args) == 2
                    and isinstance(call.args[0], ast.Name)
                    and isinstance(call.args[1], ast.Attribute)
                ):
                    continue
                kinds = tested.setdefault(call.args[0].id, set())
                kinds.add(call.args[1].attr)
            for subject, kinds in tested.items():
                if len(kinds & statement_kinds) > 2 or len(kinds & expression_kinds) > 3:
                    chains.append(f"{path.name}:{function.name}({subject})")
    assert chains == []
