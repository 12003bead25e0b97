"""Recognising the DSL in a module: how ``pypto.language`` is imported, and reading
``pl.a.b.c`` attribute chains as DSL paths."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..records import field, record

LANGUAGE_MODULE = "pypto.language"
DISTRIBUTED_MODULE = "pypto.language.distributed"


@record
class DslImports:
    """Every way the module can refer to ``pypto.language``."""

    aliases: set[str] = field(default_factory=set)  # `import pypto.language as pl` -> {"pl"}
    dotted: bool = False  # `import pypto.language` -> chains start `pypto.language.`
    from_names: dict[str, str] = field(
        default_factory=dict
    )  # `from pypto.language import Tensor as T`
    star: bool = False  # `from pypto.language import *`
    # `import pypto.language.distributed as pld`: chains start ("pld", ...) (spec §12).
    distributed: set[str] = field(default_factory=set)

    @property
    def found(self) -> bool:
        return bool(self.aliases or self.dotted or self.from_names or self.star)

    @property
    def prefix(self) -> str:
        if self.aliases:
            return "pl" if "pl" in self.aliases else sorted(self.aliases)[0]
        return LANGUAGE_MODULE if self.dotted else "pl"


def _import_statements(tree: ast.Module):
    """Imports at module level, also inside top-level if/try blocks (not inside functions:
    walking every node of a large file costs more than the rest of the analysis)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in reversed(getattr(node, field, [])):
                    if isinstance(child, ast.ExceptHandler):
                        stack.extend(reversed(child.body))
                    else:
                        stack.append(child)


def find_imports(tree: ast.Module) -> DslImports:
    imports = DslImports()
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == DISTRIBUTED_MODULE and alias.asname:
                    imports.distributed.add(alias.asname)
                elif alias.name == LANGUAGE_MODULE:
                    if alias.asname:
                        imports.aliases.add(alias.asname)
                    else:
                        imports.dotted = True
                elif alias.name == "pypto.ir" and alias.asname:
                    imports.aliases.add(alias.asname)  # seed 003's legacy `import pypto.ir as pi`
        elif isinstance(node, ast.ImportFrom):
            if node.module == LANGUAGE_MODULE:
                for alias in node.names:
                    if alias.name == "distributed":
                        imports.distributed.add(alias.asname or alias.name)
            if node.module == "pypto":
                for alias in node.names:
                    if alias.name in ("language", "ir"):
                        imports.aliases.add(alias.asname or alias.name)
            elif node.module == LANGUAGE_MODULE:
                for alias in node.names:
                    if alias.name == "*":
                        imports.star = True
                    else:
                        imports.from_names[alias.asname or alias.name] = alias.name
    return imports


def attribute_chain(node: ast.expr) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None when the chain does not start at a plain name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def dsl_path(node: ast.expr, imports: DslImports) -> tuple[str, ...] | None:
    """The path after the DSL prefix: ``pl.block.load`` -> ("block", "load"); a name imported
    from pypto.language -> (its original name,); None when not a DSL reference."""
    # Called for most expressions the front end lowers: no intermediate chain list.
    if type(node) is ast.Name:
        original = imports.from_names.get(node.id)
        return None if original is None else (original,)
    rest: list[str] = []  # the chain after its head, reversed
    while type(node) is ast.Attribute:
        rest.append(node.attr)
        node = node.value
    if type(node) is not ast.Name or not rest:
        return None
    head = node.id
    rest.reverse()
    if head in imports.aliases:
        if rest[0] == "distributed":  # pl.distributed.X is pld.X
            return ("pld", *rest[1:])
        return tuple(rest)
    if head in imports.distributed:
        return ("pld", *rest)
    if imports.dotted and head == "pypto" and len(rest) >= 2 and rest[0] == "language":
        return tuple(rest[1:])
    original = imports.from_names.get(head)
    return None if original is None else (original, *rest)


def assigned_name(stmt: ast.stmt, call: ast.Call) -> ast.Name | None:
    """The one name ``stmt`` binds ``call``'s value to (``x = call`` / ``x: T = call``)."""
    if isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1:
        target = stmt.targets[0]
        return target if isinstance(target, ast.Name) else None
    if isinstance(stmt, ast.AnnAssign) and stmt.value is call and isinstance(stmt.target, ast.Name):
        return stmt.target
    return None


def own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement outside its nested statement bodies."""
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers"):
            continue
        for node in value if isinstance(value, list) else [value]:
            if isinstance(node, ast.AST):
                yield from ast.walk(node)
