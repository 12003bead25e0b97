"""Document symbols (programs, functions, loops, scopes) from the tree-sitter tree, so they are
there while the file is half-typed; workspace symbols across open and workspace files."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path

from ..convert import Positions

if TYPE_CHECKING:  # workspace symbols of files on disk need no tree-sitter
    from tree_sitter import Node

    from ..syntax import SyntaxTree

LOOP_TYPES = {"for_statement", "while_statement"}
# `with pl.manual_scope():`, `with pl.at(...)`, `with pl.spmd(n) as tid:`: scopes are symbols too.
SCOPE_TYPES = {"with_statement"}


MAX_SYMBOL_DEPTH = 64  # loops nested deeper get no symbol (clients walk symbols recursively)


def _header(tree: SyntaxTree, node: Node) -> str:
    text = tree.text_of(node).split("\n", 1)[0].strip().rstrip(":")
    return text if len(text) <= 80 else text[:77] + "..."


# Statements that cannot hold a definition: without a syntax error inside, the walk skips them.
SIMPLE_STATEMENTS = {
    "expression_statement",
    "return_statement",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "assert_statement",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "global_statement",
    "nonlocal_statement",
    "delete_statement",
    "raise_statement",
    "type_alias_statement",
    "comment",
    "decorator",
}


def document_symbols(tree: SyntaxTree, positions: Positions) -> list[types.DocumentSymbol]:
    """Programs, functions and loops; an explicit work stack instead of recursion (any nesting
    depth), every node visited once, never `Node.parent` (tree-sitter finds a parent by walking
    down from the root), every position by binary search: linear in the file."""

    def span(node: Node, last: Node | None = None) -> types.Range:
        start, end = tree.offsets(node)
        if last is not None:
            end = tree.offsets(last)[1]
        return positions.offset_range(start, end)

    walk = _Walk(tree, span)
    walk.stack.append(("visit", tree.tree.root_node, _Scope(False, False, 0), walk.top))
    while walk.stack:
        action, node, scope, out = walk.stack.pop()
        if action == "lift":
            walk.lift(node, out)
        elif action == "child":
            walk.child(node, scope, out)
        else:
            walk.stack.extend(
                ("child", child, scope, out) for child in reversed(node.named_children)
            )
    return walk.top


class _Scope:
    """Where a node sits: inside a function, directly in a class body, how deep in symbols."""

    __slots__ = ("in_function", "in_class", "depth")

    def __init__(self, in_function: bool, in_class: bool, depth: int) -> None:
        self.in_function = in_function
        self.in_class = in_class
        self.depth = depth


class _Walk:
    def __init__(self, tree: SyntaxTree, span: Any) -> None:
        self.tree = tree
        self.span = span
        self.top: list[types.DocumentSymbol] = []
        self.recovered: set[int] = set()
        # ("visit", node, scope, out): the named children of node, appended to out in order;
        # ("child", node, scope, out): one node; ("lift", symbol, scope, out): recovered
        # definitions at the symbol's indentation become its siblings.
        self.stack: list[tuple[str, Any, _Scope, list[types.DocumentSymbol]]] = []

    def lift(self, symbol: types.DocumentSymbol, out: list[types.DocumentSymbol]) -> None:
        children = symbol.children or []
        column = symbol.range.start.character
        lifted = [
            c for c in children if id(c) in self.recovered and c.range.start.character <= column
        ]
        if lifted:
            symbol.children = [c for c in children if c not in lifted]
            out.extend(lifted)

    def child(self, child: Node, scope: _Scope, out: list[types.DocumentSymbol]) -> None:
        tree = self.tree
        if child.type == "decorated_definition":
            definition = child.child_by_field_name("definition")
            if definition is not None:
                decorators = [tree.text_of(c) for c in child.children if c.type == "decorator"]
                self.definition(definition, child, decorators, scope, out)
            return
        if child.type in ("class_definition", "function_definition"):
            self.definition(child, child, [], scope, out)
            return
        if scope.in_function and (child.type in LOOP_TYPES or child.type in SCOPE_TYPES):
            inner: list[types.DocumentSymbol] = []
            if scope.depth < MAX_SYMBOL_DEPTH:
                head = child.child_by_field_name("left") or child
                is_loop = child.type in LOOP_TYPES
                out.append(
                    types.DocumentSymbol(
                        name=_header(tree, child),
                        kind=types.SymbolKind.Event if is_loop else types.SymbolKind.Namespace,
                        range=self.span(child),
                        selection_range=self.span(head),
                        children=inner,
                    )
                )
            target = inner if scope.depth < MAX_SYMBOL_DEPTH else out
            self.stack.append(("visit", child, _Scope(True, False, scope.depth + 1), target))
            return
        if child.type == "ERROR":
            out.extend(self.recover(child))
            self.stack.append(("visit", child, _Scope(scope.in_function, False, scope.depth), out))
            return
        if child.named_child_count and (child.has_error or child.type not in SIMPLE_STATEMENTS):
            # Any other node may hold definitions or syntax errors further down; a class body
            # is a block right under the class.
            inner_scope = (
                scope if child.type == "block" else _Scope(scope.in_function, False, scope.depth)
            )
            self.stack.append(("visit", child, inner_scope, out))

    def recover(self, node: Node) -> list[types.DocumentSymbol]:
        """Inside a syntax error, tree-sitter may leave `def name` as loose tokens: each such
        pair still names a definition, which runs to the next one or the end of the error."""
        tree = self.tree
        found: list[types.DocumentSymbol] = []
        children = node.children

        def is_keyword(child: Node) -> bool:
            # in an error region the keyword may be a keyword token or a bare identifier
            return child.type in ("def", "class") or (
                child.type == "identifier" and tree.text_of(child) in ("def", "class")
            )

        starts = [
            i
            for i, child in enumerate(children[:-1])
            if is_keyword(child) and children[i + 1].type == "identifier"
        ]
        for n, i in enumerate(starts):
            name = children[i + 1]
            last = children[starts[n + 1] - 1] if n + 1 < len(starts) else children[-1]
            symbol = types.DocumentSymbol(
                name=tree.text_of(name),
                kind=types.SymbolKind.Class
                if tree.text_of(children[i]) == "class"
                else types.SymbolKind.Method,
                range=self.span(children[i], last),
                selection_range=self.span(name),
            )
            self.recovered.add(id(symbol))
            found.append(symbol)
        return found

    def definition(
        self,
        node: Node,
        outer: Node,
        decorators: list[str],
        scope: _Scope,
        out: list[types.DocumentSymbol],
    ) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        is_class = node.type == "class_definition"
        is_program = any(re.search(r"\bprogram\b", d) for d in decorators)
        kind = types.SymbolKind.Class if is_class else types.SymbolKind.Function
        if is_class and is_program:
            kind = types.SymbolKind.Module
        elif not is_class and scope.in_class:
            kind = types.SymbolKind.Method
        detail = (
            "program"
            if is_program
            else ("kernel" if any("InCore" in d for d in decorators) else "")
        )
        inner: list[types.DocumentSymbol] = []
        symbol = types.DocumentSymbol(
            name=self.tree.text_of(name_node),
            kind=kind,
            range=self.span(outer),
            selection_range=self.span(name_node),
            detail=detail or None,
            children=inner,
        )
        out.append(symbol)
        # all children: error regions may hang off the definition; then lift recovered siblings
        self.stack.append(("lift", symbol, scope, out))
        self.stack.append(("visit", node, _Scope(not is_class, is_class, scope.depth + 1), inner))


DEF = re.compile(r"^\s*(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)


def workspace_symbols(
    query: str,
    open_documents: dict[str, list[types.DocumentSymbol]],
    folders: list[str],
    limit: int = 500,
) -> list[types.WorkspaceSymbol]:
    """Functions and programs whose name contains the query (case-insensitive); the open
    documents' symbols come computed."""
    needle = query.lower()
    found: list[types.WorkspaceSymbol] = []
    seen: set[str] = set()
    for uri, symbols in open_documents.items():
        seen.add(uri)
        for symbol in _flatten(symbols):
            if symbol.kind is types.SymbolKind.Event:
                continue
            if needle in symbol.name.lower():
                found.append(
                    types.WorkspaceSymbol(
                        name=symbol.name,
                        kind=symbol.kind,
                        location=types.Location(uri=uri, range=symbol.selection_range),
                    )
                )
    for folder in folders:
        for path, text in _pypto_files(folder):
            uri = from_fs_path(path)
            if uri is None or uri in seen:
                continue
            for match in DEF.finditer(text):
                if needle in match.group(1).lower():
                    line = text.count("\n", 0, match.start(1))
                    column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1)
                    rng = types.Range(
                        types.Position(line, column),
                        types.Position(line, column + len(match.group(1))),
                    )
                    kind = (
                        types.SymbolKind.Class
                        if text[match.start() : match.start(1)].strip() == "class"
                        else types.SymbolKind.Function
                    )
                    found.append(
                        types.WorkspaceSymbol(
                            name=match.group(1),
                            kind=kind,
                            location=types.Location(uri=uri, range=rng),
                        )
                    )
            if len(found) >= limit:
                return found[:limit]
    return found[:limit]


def _flatten(symbols: Sequence[types.DocumentSymbol]) -> Iterator[types.DocumentSymbol]:
    stack = list(reversed(symbols))
    while stack:
        symbol = stack.pop()
        yield symbol
        stack.extend(reversed(symbol.children or []))


def _pypto_files(root: str, cap: int = 5000) -> Iterator[tuple[str, str]]:
    """(path, text) of the PyPTO files below ``root``: the compiler's walk and file-kind sniff,
    looking at no more than ``cap`` Python files."""
    from ptoc.driver import SourceError, is_pypto_source, read_source, walk_python_files

    for count, path in enumerate(walk_python_files(root)):
        if count >= cap:
            return
        try:
            text = read_source(path)
        except SourceError:
            continue
        if is_pypto_source(text):
            yield path, text
