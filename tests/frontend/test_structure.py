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
            if not isinstance(inner, ast.Assign):
                continue
            for target in inner.targets:
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


AST_KINDS = {
    name
    for name, value in vars(ast).items()
    if isinstance(value, type) and issubclass(value, ast.stmt | ast.expr)
}


def kind_test_subject(test: ast.expr) -> str | None:
    """``x`` in ``isinstance(x, ast.Name)`` (or ``ast.List | ast.Tuple``), also as the first
    operand of an ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
    ):
        return None
    kinds = {
        node.attr
        for node in ast.walk(test.args[1])
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    return ast.unparse(test.args[0]) if kinds and kinds <= AST_KINDS else None


def kind_chains(function: ast.FunctionDef) -> list[str]:
    """Subjects tested against statement or expression kinds in five or more branches of one
    block (a run of ifs, or an if/elif chain)."""
    found: list[str] = []
    for node in ast.walk(function):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            branches: dict[str, int] = {}
            for stmt in block:
                branch: ast.stmt | None = stmt
                while isinstance(branch, ast.If):
                    subject = kind_test_subject(branch.test)
                    if subject is not None:
                        branches[subject] = branches.get(subject, 0) + 1
                    branch = branch.orelse[0] if len(branch.orelse) == 1 else None
            found += [subject for subject, count in branches.items() if count >= 5]
    return found


def test_the_one_class_lowerer_would_fail_the_chain_check() -> None:
    chain = ast.parse(
        "def lower(node):\n"
        + "".join(
            f"    if isinstance(node, ast.{kind}):\n        return {n}\n"
            for n, kind in enumerate(["Name", "Constant", "Call", "BinOp", "Compare"])
        )
    )
    function = chain.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert kind_chains(function) == ["node"]


def test_no_statement_or_expression_kind_is_picked_by_an_isinstance_chain() -> None:
    """The tables dispatch: no function tests its node against kind after kind, as the
    one-class lowerer did (and the constant evaluator and the module scan did)."""
    chains = [
        f"{path.relative_to(FRONTEND)}:{function.name}({subject})"
        for path in SOURCES
        for function in ast.walk(parsed(path))
        if isinstance(function, ast.FunctionDef)
        for subject in kind_chains(function)
    ]
    assert chains == []
