"""The 2026-03 -> 2026-08 rewrite table (spec §15): where a file writes a 2026-03 spelling,
the text edits that spell it the 2026-08 way, and the 2026-03 spellings that have no such
rewrite because their meaning differs in 2026-08 (left as written, with the reason).

One table serves ``ptoc upgrade`` and the editor's "Upgrade to PyPTO 2026-08" (which prove the
result lowers to the same IR before writing it) and the W031 quick fixes of a file whose chosen
edition is 2026-08. The edits are exact: only the spelling's own characters change, so the
file's layout and comments stay.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from ..diagnostics import TextEdit
from ..ir.dtype import DataType
from ..ir.expr import Call, ConstInt, Expr, MakeTuple
from ..ir.fields import layout
from ..ir.span import Span
from ..ir.types import ScalarType, TileType
from ..ir.walk import conditions, direct_exprs, walk_stmts
from ..ops import sugar
from ..records import record
from .analysis import ModuleAnalysis
from .names import DslImports, dsl_path, find_imports
from .source import SourceText

#: ``pl.block.X`` ops 2026-08 spells with another name in ``pl.tile``.
TILE_NAMES = {
    "view": "slice",
    "create_tile": "create",
    "maxs": "maximums",
    "mins": "minimums",
    "l0c_store": "store",
}
#: Unified ``pl.X`` ops 2026-08 spells with another name (the scalar variants are gone: ``pl.add``
#: takes a scalar).
UNIFIED_NAMES = {
    "view": "slice",
    "maxs": "maximums",
    "mins": "minimums",
    "l0c_store": "store",
    "adds": "add",
    "subs": "sub",
    "muls": "mul",
    "divs": "div",
}
TENSOR_NAMES = {f"{op}_scalar": f"{op}s" for op in ("add", "sub", "mul", "div")}
STORES = ("store", "l0c_store")
MAX_SHOWN = 60  # characters of a call shown whole in a message

#: Spellings of both editions whose meaning differs (§15's "different" rows): never rewritten.
MEANING_CHANGES = {
    sugar.TENSOR_WINDOW: "`pl.tensor.view`'s third argument is a valid shape in 2026-08 (an "
    "offset in 2026-03); the 2026-08 spelling of this slice is `pl.tensor.slice(t, shape, offset)`",
    "full": "a top-level `pl.full` builds a tensor in 2026-08 (a tile in 2026-03); the 2026-08 "
    "spelling of this tile is `pl.tile.full(...)`",
    "get_block_idx": "`get_block_idx()` is UINT64 in 2026-03 and INDEX in 2026-08: the values "
    "computed from it may change type",
    "reduction": "an axis reduction of a tile (`pl.sum/max/min(tile, axis, keepdim)`) has no "
    "2026-08 spelling of the same arguments: `pl.row_sum/row_max/row_min(tile, tmp)` or "
    "`pl.col_*` need a temporary tile",
    "literal": "an integer literal is INT64 in 2026-03, which makes this value INT64; in "
    "2026-08 the literal takes the other operand's integer dtype, and so does the value",
    "not": "`not x` of an integer is bitwise in 2026-03 and logical in 2026-08; the 2026-08 "
    "spelling of this bitwise not is `~x`",
}


@record(frozen=True)
class Rewrite:
    """One 2026-03 spelling and the edits that write it the 2026-08 way."""

    row: str  # the §15 row, as the docs name it
    old: str  # the spelling as written (``pl.block.add``)
    new: str  # what it becomes (``pl.tile.add``)
    span: Span  # the spelling (the W031 range)
    edits: tuple[TextEdit, ...]

    @property
    def title(self) -> str:
        return f"Change to `{self.new}`"


@record(frozen=True)
class Kept:
    """A 2026-03 spelling left as written, and why."""

    span: Span
    spelling: str
    why: str


@record(frozen=True)
class UpgradePlan:
    rewrites: list[Rewrite]
    kept: list[Kept]


class Planner:
    """Walks a module's syntax tree once, with its 2026-03 analysis for the types a row needs."""

    def __init__(self, source: SourceText, imports: DslImports, analysis: ModuleAnalysis) -> None:
        self.source = source
        self.imports = imports
        self.exprs = exprs_by_span(analysis)
        self.rewrites: list[Rewrite] = []
        self.kept: list[Kept] = []

    def plan(self, tree: ast.Module) -> UpgradePlan:
        incore = {id(item.context_expr) for item in with_items(tree)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.call(node, id(node) in incore)
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.logical_not(node)
            elif isinstance(node, ast.FunctionDef):
                self.function_attrs(node)
            if isinstance(node, ast.BinOp | ast.Call):
                self.literal_operand(node)
        # A spelling whose meaning changes is left alone as a whole (``pl.adds(t, 1)`` of an
        # INT32 tile stays as written).
        rewrites = [r for r in self.rewrites if not any(k.span.covers(r.span) for k in self.kept)]
        order: Callable[[Rewrite | Kept], tuple[int, int]] = lambda r: r.span[1:3]  # noqa: E731
        return UpgradePlan(sorted(rewrites, key=order), sorted(self.kept, key=order))

    # --- calls ----------------------------------------------------------------------------
    def call(self, node: ast.Call, in_with: bool) -> None:
        path = dsl_path(node.func, self.imports)
        head = prefix_node(node.func, path)
        if path is None or head is None:
            return
        if path[:2] == ("op", "block"):
            path = path[1:]
        if len(path) == 2 and path[0] == "block":
            self.block_op(node, head, path[1])
        elif len(path) == 1:
            self.unified_op(node, head, path[0], in_with)
        elif len(path) == 2 and path[0] == "tensor":
            self.tensor_op(node, head, path[1])

    def block_op(self, node: ast.Call, head: ast.expr, name: str) -> None:
        if name == "get_block_idx" or self.is_reduction(node, name):
            self.keep(node, "get_block_idx" if name == "get_block_idx" else "reduction")
            return
        self.rename(node, head, f"tile.{TILE_NAMES.get(name, name)}", "pl.block.X -> pl.tile.X")

    def unified_op(self, node: ast.Call, head: ast.expr, name: str, in_with: bool) -> None:
        if name == "incore" and in_with and not node.args and not node.keywords:
            prefix = self.source.segment(head)
            new = f"{prefix}.at(level={prefix}.Level.CORE_GROUP)"
            self.add("with pl.incore():", node, (self.edit(node, node, new),))
        elif name == "full" or name == "get_block_idx":
            self.keep(node, name)
        elif self.is_reduction(node, name):
            self.keep(node, "reduction")
        elif name in UNIFIED_NAMES or name in ("store", "load"):
            self.rename(node, head, UNIFIED_NAMES.get(name, name), f"pl.{name}")

    def tensor_op(self, node: ast.Call, head: ast.expr, name: str) -> None:
        if name == "view" and len(node.args) + len(node.keywords) >= 3:
            self.keep(node, sugar.TENSOR_WINDOW)
        elif name in TENSOR_NAMES:
            self.rename(node, head, f"tensor.{TENSOR_NAMES[name]}", "pl.tensor.X_scalar")

    def rename(self, node: ast.Call, head: ast.expr, new_path: str, row: str) -> None:
        """``prefix.<old path>(`` -> ``prefix.<new path>(``, and the argument changes of the
        store and load rows."""
        old_path = self.source.segment(node.func)[len(self.source.segment(head)) :]
        edits: list[TextEdit] = []
        if old_path != f".{new_path}":
            edits.append(self.between(head, node.func, f".{new_path}", after_first=True))
        short = new_path.rsplit(".", 1)[-1]
        if short == "store" and node.func.attr in STORES:  # type: ignore[attr-defined]
            edits += self.store_arguments(node)
            row = "pl.store(tile, offsets, shapes, out)"
        elif short == "load":
            edits += self.load_memory(node)
            row = "pl.load(t, offsets, shape, SPACE)"
        if edits:
            self.add(row, node, tuple(edits))

    def store_arguments(self, node: ast.Call) -> list[TextEdit]:
        """2026-03's ``store(tile, offsets, shapes, out)``: 2026-08 takes the output tensor
        third and stores the whole tile unless a fourth argument says otherwise."""
        args = node.args  # (a window last, as a list, is 2026-08's own four-argument form)
        if len(args) != 4 or node.keywords or isinstance(args[3], ast.List | ast.Tuple):
            return []
        lowered = self.exprs.get(self.source.span(node))
        if not isinstance(lowered, Call) or len(lowered.args) < 3:
            return []
        dropped = self.between(args[2], args[3], "")
        if whole_tile(lowered.args[0], lowered.args[2]):
            return [dropped]
        return [dropped, self.insert_after(args[3], f", {self.source.segment(args[2])}")]

    def load_memory(self, node: ast.Call) -> list[TextEdit]:
        """2026-03's ``load(t, offsets, shape, SPACE)``: the fourth positional is 2026-08's
        valid shape, so the memory space is written by keyword."""
        args = node.args
        if len(args) != 4 or isinstance(args[3], ast.List | ast.Tuple) or node.keywords:
            return []
        return [self.insert_before(args[3], "target_memory=")]

    def is_reduction(self, node: ast.Call, name: str) -> bool:
        """``pl.sum/max/min(tile, axis, keepdim)``: the call lowered to a tile reduction."""
        lowered = self.exprs.get(self.source.span(node))
        reductions = sugar.AXIS_REDUCTIONS
        return (
            name in ("sum", "max", "min")
            and isinstance(lowered, Call)
            and (lowered.op_name in reductions)
        )

    def function_attrs(self, node: ast.FunctionDef) -> None:
        """``@pl.function(attrs={...})`` -> ``pl.func_attr({...})`` as the first statement."""
        decorator = next((d for d in node.decorator_list if self.is_function(d)), None)
        if not isinstance(decorator, ast.Call):
            return
        keyword = next((k for k in decorator.keywords if k.arg == "attrs"), None)
        first = node.body[1] if len(node.body) > 1 and is_docstring(node.body[0]) else node.body[0]
        if keyword is None or first.lineno == node.lineno:
            return  # (a body on the line of its `def` has no line to add a statement to)
        arguments: list[ast.AST] = [*decorator.args, *decorator.keywords]
        index = arguments.index(keyword)
        if index > 0:  # from the end of the argument before it
            dropped = self.between(arguments[index - 1], keyword, "", after_first=True)
        elif len(arguments) > 1:  # up to the argument after it
            dropped = self.between(keyword, arguments[1], "")
        else:
            dropped = self.edit(keyword, keyword, "")
        prefix = self.source.segment(decorator.func).rsplit(".", 1)[0]
        new = f"{prefix}.func_attr({self.source.segment(keyword.value)})"
        indent = " " * self.source.span(first).column
        edits = (dropped, self.insert_before(first, f"{new}\n{indent}"))
        old = self.source.segment(keyword)
        self.rewrites.append(
            Rewrite("@pl.function(attrs={...})", old, new, self.source.span(keyword), edits)
        )

    def is_function(self, decorator: ast.expr) -> bool:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        return dsl_path(func, self.imports) == ("function",)

    # --- operators ------------------------------------------------------------------------
    def logical_not(self, node: ast.UnaryOp) -> None:
        """``not x`` that 2026-03 lowered as a bitwise not (its value is an integer)."""
        lowered = self.exprs.get(self.source.span(node))
        kind = lowered.type if lowered is not None else None
        if isinstance(kind, ScalarType) and kind.dtype.is_int:
            self.keep(node, "not")

    def literal_operand(self, node: ast.BinOp | ast.Call) -> None:
        """An integer operand promoted to INT64 by a literal (2026-08 keeps its dtype)."""
        lowered = self.exprs.get(self.source.span(node))
        if lowered is not None and widened_by_literal(lowered):
            self.keep(node, "literal")

    # --- edits ----------------------------------------------------------------------------
    def add(self, row: str, node: ast.Call, edits: tuple[TextEdit, ...]) -> None:
        """A rewrite of the call ``node``: the W031 range is its callee's name."""
        span = self.source.span(node)
        old = self.source.segment(node)
        new = apply_within(old, span, edits)
        if len(old) > MAX_SHOWN or len(new) > MAX_SHOWN:
            old, new = self.source.segment(node.func), new.split("(", 1)[0]
        self.rewrites.append(Rewrite(row, old, new, self.source.span(node.func), edits))

    def keep(self, node: ast.AST, why: str) -> None:
        spelling = self.source.segment(node)
        if isinstance(node, ast.Call) and (len(spelling) > MAX_SHOWN or why != "literal"):
            spelling = self.source.segment(node.func)
        self.kept.append(Kept(self.source.span(node), spelling, MEANING_CHANGES[why]))

    def edit(self, first: ast.AST, last: ast.AST, text: str) -> TextEdit:
        a, b = self.source.span(first), self.source.span(last)
        return TextEdit(Span(a.file, a.line, a.column, b.end_line, b.end_column), text)

    def between(
        self, first: ast.AST, last: ast.AST, text: str, after_first: bool = False
    ) -> TextEdit:
        """Replace from the start (or, ``after_first``, the end) of ``first`` to the start of
        ``last`` (or, ``after_first``, its end)."""
        a, b = self.source.span(first), self.source.span(last)
        if after_first:
            return TextEdit(Span(a.file, a.end_line, a.end_column, b.end_line, b.end_column), text)
        return TextEdit(Span(a.file, a.line, a.column, b.line, b.column), text)

    def insert_before(self, node: ast.AST, text: str) -> TextEdit:
        a = self.source.span(node)
        return TextEdit(Span(a.file, a.line, a.column, a.line, a.column), text)

    def insert_after(self, node: ast.AST, text: str) -> TextEdit:
        a = self.source.span(node)
        return TextEdit(Span(a.file, a.end_line, a.end_column, a.end_line, a.end_column), text)


def apply_within(text: str, span: Span, edits: tuple[TextEdit, ...]) -> str:
    """``text`` (the source of ``span``) with the edits inside it applied."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return starts[line - span.line] + column - (span.column if line == span.line else 0)

    for edit in sorted(edits, key=lambda e: e.span[1:3], reverse=True):
        start = offset(edit.span.line, edit.span.column)
        end = offset(edit.span.end_line, edit.span.end_column)
        text = text[:start] + edit.new_text + text[end:]
    return text


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and (isinstance(statement.value.value, str))
    )


def prefix_node(func: ast.expr, path: tuple[str, ...] | None) -> ast.expr | None:
    """The ``pl`` (or ``pypto.language``) part of ``pl.block.add``."""
    if path is None:
        return None
    node = func
    for _ in path:
        if not isinstance(node, ast.Attribute):
            return None
        node = node.value
    return node


def with_items(tree: ast.Module) -> Iterator[ast.withitem]:
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            yield from node.items


def whole_tile(tile: Expr, shapes: Expr) -> bool:
    """Whether a store's window is the tile's shape (the 2026-08 store's default)."""
    kind = tile.type
    if not isinstance(kind, TileType) or not isinstance(shapes, MakeTuple):
        return False
    if len(kind.shape) != len(shapes.elements):
        return False
    return all(
        isinstance(a, ConstInt) and isinstance(b, ConstInt) and a.value == b.value
        for a, b in zip(kind.shape, shapes.elements, strict=True)
    )


def widened_by_literal(expr: Expr) -> bool:
    """An INT64 result of an integer literal and a narrower integer operand."""
    operands = [
        item
        for name in layout(type(expr)).operands
        for item in (lambda v: v if type(v) is tuple else (v,))(getattr(expr, name))
        if isinstance(item, Expr)
    ]
    literal = any(isinstance(o, ConstInt) for o in operands)
    narrower = [d for d in map(int_dtype, operands) if d is not None and d is not DataType.INT64]
    return literal and bool(narrower) and int_dtype(expr) is DataType.INT64


def int_dtype(expr: Expr) -> DataType | None:
    kind = expr.type
    if isinstance(kind, ScalarType | TileType) and kind.dtype.is_int:
        return kind.dtype
    return None


def exprs_by_span(analysis: ModuleAnalysis) -> dict[Span, Expr]:
    """Every lowered expression by its source range (the outermost where several share one)."""
    found: dict[Span, Expr] = {}
    functions = [*analysis.functions, *(f for p in analysis.programs for f in p.functions)]
    for function in functions:
        for stmt in walk_stmts(function.body):
            for expr in (*direct_exprs(stmt), *conditions(stmt)):
                collect(expr, found)
    return found


def collect(expr: Expr, found: dict[Span, Expr]) -> None:
    span = expr.span
    if span is not None and span.is_known:
        found.setdefault(span, expr)
    for name in layout(type(expr)).operands:
        value = getattr(expr, name)
        for item in value if type(value) is tuple else (value,):
            if isinstance(item, Expr):
                collect(item, found)


def plan_upgrade(
    tree: ast.Module, analysis: ModuleAnalysis, imports: DslImports | None = None
) -> UpgradePlan:
    """The rewrites and the kept spellings of a module analysed as 2026-03."""
    source = SourceText(analysis.text, analysis.path)
    return Planner(source, imports or find_imports(tree), analysis).plan(tree)
