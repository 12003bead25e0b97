"""Document symbols (programs, functions, loops) from the tree-sitter tree, so they are
there while the file is half-typed; workspace symbols across open and workspace files."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from lsprotocol import types
from pygls.uris import from_fs_path
from tree_sitter import Node

from ..convert import Positions
from ..syntax import SyntaxTree, node_span

LOOP_TYPES = {"for_statement", "while_statement"}


def _decorators(node: Node, tree: SyntaxTree) -> list[str]:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [tree.text_of(child) for child in parent.children if child.type == "decorator"]


def _symbol_node(node: Node) -> Node:
    return node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node


def _header(tree: SyntaxTree, node: Node) -> str:
    text = tree.text_of(node).split("\n", 1)[0].rstrip(":").strip()
    return text if len(text) <= 80 else text[:77] + "..."


def document_symbols(tree: SyntaxTree, positions: Positions) -> list[types.DocumentSymbol]:
    recovered: set[int] = set()

    def convert(node: Node, in_function: bool) -> list[types.DocumentSymbol]:
        symbols: list[types.DocumentSymbol] = []
        for child in node.named_children:
            if child.type == "decorated_definition":
                definition = child.child_by_field_name("definition")
                if definition is not None:
                    symbols.extend(convert_definition(definition, in_function))
                continue
            if child.type in ("class_definition", "function_definition"):
                symbols.extend(convert_definition(child, in_function))
            elif in_function and child.type in LOOP_TYPES:
                full = positions.range(node_span(tree, child))
                head = child.child_by_field_name("left") or child
                symbols.append(
                    types.DocumentSymbol(
                        name=_header(tree, child),
                        kind=types.SymbolKind.Event,
                        range=full,
                        selection_range=positions.range(node_span(tree, head)),
                        children=convert(child, True),
                    )
                )
            elif child.type == "ERROR":
                symbols.extend(recover(child, in_function))
            elif child.named_child_count:
                # Any other node may hold definitions or syntax errors further down.
                symbols.extend(convert(child, in_function))
        return symbols

    def recover(node: Node, in_function: bool) -> list[types.DocumentSymbol]:
        """Inside a syntax error, tree-sitter may leave `def name` as loose tokens: each such
        pair still names a definition, which runs to the next one or the end of the error."""
        found: list[types.DocumentSymbol] = []
        children = node.children
        def is_keyword(child: Node) -> bool:
            # in an error region the keyword may be a keyword token or a bare identifier
            return child.type in ("def", "class") or (
                child.type == "identifier" and tree.text_of(child) in ("def", "class")
            )

        starts = [
            i for i, child in enumerate(children[:-1])
            if is_keyword(child) and children[i + 1].type == "identifier"
        ]
        for n, i in enumerate(starts):
            name = children[i + 1]
            last = children[starts[n + 1] - 1] if n + 1 < len(starts) else children[-1]
            full = node_span(tree, children[i]).merge(node_span(tree, last))
            found.append(
                symbol := types.DocumentSymbol(
                    name=tree.text_of(name),
                    kind=types.SymbolKind.Class if tree.text_of(children[i]) == "class" else types.SymbolKind.Method,
                    range=positions.range(full),
                    selection_range=positions.range(node_span(tree, name)),
                )
            )
            recovered.add(id(symbol))
        found.extend(convert(node, in_function))
        return found

    def convert_definition(node: Node, in_function: bool) -> list[types.DocumentSymbol]:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return []
        decorators = _decorators(node, tree)
        outer = _symbol_node(node)
        is_class = node.type == "class_definition"
        is_program = any(re.search(r"\bprogram\b", d) for d in decorators)
        kind = types.SymbolKind.Class if is_class else types.SymbolKind.Function
        if is_class and is_program:
            kind = types.SymbolKind.Module
        elif not is_class and node.parent is not None and node.parent.type in ("block", "decorated_definition"):
            grand = outer.parent.parent if outer.parent is not None else None
            if grand is not None and grand.type == "class_definition":
                kind = types.SymbolKind.Method
        detail = "program" if is_program else ("kernel" if any("InCore" in d for d in decorators) else "")
        own = positions.range(node_span(tree, outer))
        children = convert(node, not is_class)  # all children: error regions may hang off the definition
        # A definition recovered from an error region at this indentation or less is a sibling.
        siblings = [c for c in children if id(c) in recovered and c.range.start.character <= own.start.character]
        children = [c for c in children if c not in siblings]
        return [
            types.DocumentSymbol(
                name=tree.text_of(name_node),
                kind=kind,
                range=own,
                selection_range=positions.range(node_span(tree, name_node)),
                detail=detail or None,
                children=children,
            )
        ] + siblings

    return convert(tree.tree.root_node, False)


DEF = re.compile(r"^\s*(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)


def workspace_symbols(
    query: str, open_documents: dict[str, tuple[SyntaxTree, Positions]], folders: list[str], limit: int = 500
) -> list[types.WorkspaceSymbol]:
    """Functions and programs whose name contains the query (case-insensitive)."""
    needle = query.lower()
    found: list[types.WorkspaceSymbol] = []
    seen: set[str] = set()
    for uri, (tree, positions) in open_documents.items():
        seen.add(uri)
        for symbol in _flatten(document_symbols(tree, positions)):
            if symbol.kind is types.SymbolKind.Event:
                continue
            if needle in symbol.name.lower():
                found.append(types.WorkspaceSymbol(name=symbol.name, kind=symbol.kind, location=types.Location(uri=uri, range=symbol.selection_range)))
    for folder in folders:
        for path, text in _pypto_files(folder):
            uri = from_fs_path(path)
            if uri is None or uri in seen:
                continue
            for match in DEF.finditer(text):
                if needle in match.group(1).lower():
                    line = text.count("\n", 0, match.start(1))
                    column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1)
                    rng = types.Range(types.Position(line, column), types.Position(line, column + len(match.group(1))))
                    kind = types.SymbolKind.Class if text[match.start() : match.start(1)].strip() == "class" else types.SymbolKind.Function
                    found.append(types.WorkspaceSymbol(name=match.group(1), kind=kind, location=types.Location(uri=uri, range=rng)))
            if len(found) >= limit:
                return found[:limit]
    return found[:limit]


def _flatten(symbols: Sequence[types.DocumentSymbol]) -> Iterator[types.DocumentSymbol]:
    for symbol in symbols:
        yield symbol
        yield from _flatten(symbol.children or [])


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
