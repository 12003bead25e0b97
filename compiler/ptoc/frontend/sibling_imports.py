"""``from .config import BATCH`` and ``from .kernels.mlp import mlp_block``: names a kernel
file imports from the files of its own folder, resolved statically (the file's text read and
parsed, never imported). A module constant comes with its value. An ``@pl.jit.inline``
function comes as a copy of its definition that the JIT kernels of this file can inline: the
other file's constants in it are replaced by their values; its positions stay its file's
(``SiblingImports.origins``: the spans made of them name that file, and what they say is
that file's to say, checked when it is opened). A function that uses anything else of its
file (a helper, a constant of no literal form) is not brought in: calls of it stay unknown
here, as before."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..editions import ChosenEdition, Edition, EditionSource, rules_for
from ..ir.span import Span
from ..records import field, record
from .consteval import ConstEvaluator, NotConstant
from .edition import edition_of_import
from .jit_kinds import jit_decorator
from .names import DslImports, find_imports
from .source import SourceText

if TYPE_CHECKING:
    from .context import ModuleEnv
    from .module import ModuleAnalyzer

MAX_DEPTH = 4  # files reached through imports of imports
MAX_BYTES = 1 << 20


@record
class FileFacts:
    """What another file defines: its constants' values and functions, and its imports of
    ``pypto.language``; and the edition it was read in (``edition_of_import``: its
    ``pl.dynamic`` dimensions are of that edition's index dtype)."""

    constants: dict[str, Any] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    imports: DslImports = field(default_factory=DslImports)
    edition: ChosenEdition = (Edition.V2026_03, EditionSource.DEFAULT)


@record
class SiblingImports:
    """What one file imports from its folder's files."""

    constants: dict[str, Any] = field(default_factory=dict)  # local name -> value
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)  # local name -> copy
    origins: dict[str, str] = field(default_factory=dict)  # local name -> its file's path


# By (path, mtime, size, depth, the importer's edition): each file read once (at a depth: how
# far its imports go; in an edition: the one it is read in when it has no spelling of its own).
_FACTS: dict[tuple[str, int, int, int, ChosenEdition], FileFacts] = {}


def resolve(path: str, node: ast.ImportFrom) -> Path | None:
    """The file a relative import names, beside ``path`` (None: absolute, or no such file)."""
    if node.level == 0 or not path or path.startswith("<"):
        return None
    base = Path(path).parent
    for _ in range(node.level - 1):
        base = base.parent
    parts = node.module.split(".") if node.module else []
    for candidate in (
        base.joinpath(*parts).with_suffix(".py") if parts else None,
        base.joinpath(*parts, "__init__.py"),
    ):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def file_facts(
    path: Path,
    importer: ChosenEdition,
    depth: int = 0,
    seen: frozenset[Path] = frozenset(),
) -> FileFacts:
    """The constants and functions of another file (its own relative imports followed
    ``MAX_DEPTH`` deep), read in its edition (``edition_of_import``: the importer's edition is
    ``importer``); empty for a file that cannot be read or parsed."""
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, depth, importer)
        if key in _FACTS:
            return _FACTS[key]
        text = path.read_text(encoding="utf-8") if stat.st_size <= MAX_BYTES else ""
        tree = ast.parse(text)
    except (OSError, ValueError, SyntaxError, RecursionError):
        return FileFacts()
    imports = find_imports(tree)
    edition = edition_of_import(SourceText(text, str(path)), imports, importer)
    facts = FileFacts(imports=imports, edition=edition)
    index_dtype = rules_for(*edition).index_dtype
    consts = ConstEvaluator(imports, lambda node: Span(str(path), 1, 0, 1, 0), index_dtype)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and depth < MAX_DEPTH:
            found = resolve(str(path), node)
            if found is not None and found not in seen:
                inner = file_facts(found, edition, depth + 1, seen | {path})
                for alias in node.names:
                    if alias.name in inner.constants:
                        consts.values[alias.asname or alias.name] = inner.constants[alias.name]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name | ast.Tuple | ast.List):
                consts.bind_targets(node.targets[0], node.value, consts.span_of)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            consts.bind(node.target.id, node.value, consts.span_of(node))
        elif isinstance(node, ast.FunctionDef):
            facts.functions[node.name] = node
            if not node.decorator_list:
                consts.helpers[node.name] = node
    facts.constants = dict(consts.values)
    if len(_FACTS) > 64:
        _FACTS.clear()
    _FACTS[key] = facts
    return facts


def bind_import(analyzer: ModuleAnalyzer, node: ast.ImportFrom, env: ModuleEnv) -> None:
    """Bind what one relative import of the analysed file brings: its constants (with an
    occurrence each, for hover), its inline kernels (``env.inline_defs``, the JIT kernels'
    to inline), whose nodes' spans then name their own file."""
    in_force = analyzer.result.edition  # (decided before the module's statements are read)
    importer: ChosenEdition = (
        (in_force.edition, in_force.source)
        if in_force is not None
        else (env.edition, EditionSource.DEFAULT)
    )
    found = read_import(node, analyzer.source.path, env.consts.imports, importer)
    for alias in node.names:
        local = alias.asname or alias.name
        span = analyzer.source.span(alias)
        if local in found.constants:
            env.consts.bind_value(local, found.constants[local], span)
            analyzer.constant_occurrence(local, span)
        if local in found.functions:
            env.inline_defs[local] = found.functions[local]
            analyzer.imported_functions[local] = found.functions[local]
            analyzer.imported_origins[local] = found.origins[local]
    if found.functions:  # (an instance attribute: every later span is asked through it)
        functions, origins = analyzer.imported_functions, analyzer.imported_origins
        spans = file_spans(analyzer.plain_span, functions, origins)
        analyzer.source.span = spans  # type: ignore[method-assign]


def read_import(
    node: ast.ImportFrom, path: str, imports: DslImports, importer: ChosenEdition
) -> SiblingImports:
    """One ``from .x import a, b as c`` of the analysed file at ``path``, whose edition in
    force is ``importer``."""
    found = SiblingImports()
    target = resolve(path, node)
    if target is None:
        return found
    facts = file_facts(target, importer, 0, frozenset({Path(path)}))
    for alias in node.names:
        local = alias.asname or alias.name
        if alias.name in facts.constants:
            found.constants[local] = facts.constants[alias.name]
        fn = facts.functions.get(alias.name)
        kind = jit_decorator(fn) if fn is not None else None
        if fn is None or kind is None or kind[1] != "inline":
            continue
        if facts.imports.aliases != imports.aliases:
            continue  # (its ``pl.`` names would not be this file's)
        brought = inlined_copy(fn, local, facts)
        if brought is not None:
            found.functions[local] = brought
            found.origins[local] = str(target)
    return found


def inlined_copy(fn: ast.FunctionDef, local: str, facts: FileFacts) -> ast.FunctionDef | None:
    """A copy of ``fn`` named ``local`` whose names of its file's constants are their values
    (None: it uses something else of its file)."""
    bound = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    bound |= {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    copied = copy.deepcopy(fn)
    copied.name = local
    for node in ast.walk(copied):
        for child_field, value in ast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [_value_of(v, bound, facts) for v in value]
            elif isinstance(value, ast.Name):
                setattr(node, child_field, _value_of(value, bound, facts))
    for node in ast.walk(copied):
        if isinstance(node, ast.Name) and node.id not in bound and node.id in facts.functions:
            return None  # another function of its file: not brought in
        if isinstance(node, _Unresolved):
            return None
    return copied


def file_spans(
    source_span: Any, functions: dict[str, ast.FunctionDef], origins: dict[str, str]
) -> Any:
    """``SourceText.span`` for a file that imported ``functions``: a node of theirs has a
    span in its own file."""
    owner = {id(node): origins[name] for name, fn in functions.items() for node in ast.walk(fn)}

    def span(node: ast.AST) -> Span:
        path = owner.get(id(node))
        if path is None:
            result: Span = source_span(node)
            return result
        line = getattr(node, "lineno", 1)
        column = getattr(node, "col_offset", 0)
        end = (getattr(node, "end_lineno", line) or line, getattr(node, "end_col_offset", column))
        return Span(path, line, column, end[0], end[1] if end[1] is not None else column)

    return span


class _Unresolved(ast.expr):
    """A constant of the other file whose value has no literal form."""


def _value_of(value: Any, bound: set[str], facts: FileFacts) -> Any:
    if not (
        isinstance(value, ast.Name)
        and isinstance(value.ctx, ast.Load)
        and value.id not in bound
        and value.id in facts.constants
    ):
        return value
    constant = facts.constants[value.id]
    try:
        return ast.copy_location(_literal(constant), value)
    except NotConstant:
        return _Unresolved()


def _literal(constant: Any) -> ast.expr:
    if isinstance(constant, bool | int | float | str):
        return ast.Constant(constant)
    if isinstance(constant, list):
        return ast.Tuple([_literal(c) for c in constant], ast.Load())
    raise NotConstant("no literal form")
