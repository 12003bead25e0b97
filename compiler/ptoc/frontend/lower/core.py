"""The state of lowering one function, and the two entry points every construct's rule calls
back into: ``lower_expr`` and ``lower_block``. Which rule lowers a node is looked up in the
tables of ``tables.py`` by the node's type; the rules live in one module per construct."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from ...diagnostics import DiagnosticBag, Fix, Related, replacement_fixes
from ...ir.expr import Expr, Var
from ...ir.span import Span
from ...ir.stmt import SeqStmts, Stmt
from ...ir.types import UNKNOWN, Type, UnknownType
from ...records import record
from ..analysis import Occurrence, OccurrenceKind, SymbolIndex
from ..context import Binding, FunctionSignature, LoweringState, ModuleEnv
from ..names import dsl_path

MAX_INLINE_DEPTH = 16

ExpressionRule = Callable[["Lowerer", Any], Expr]
StatementRule = Callable[["Lowerer", Any], list[Stmt]]

# Expressions whose type hover shows although they are neither names nor calls.
_RECORDED = frozenset(
    (ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Subscript, ast.List, ast.Tuple)
)


@record(frozen=True)
class Rules:
    """The dispatch tables: the rule for each AST node type, and the one for any other type."""

    expressions: Mapping[type[ast.expr], ExpressionRule]
    other_expression: ExpressionRule
    statements: Mapping[type[ast.stmt], StatementRule]
    other_statement: StatementRule


def error_value(span: Span) -> Var:
    """The value of an expression that failed: its UnknownType silences follow-on errors."""
    return Var(UNKNOWN, name="?", span=span)


class Lowerer:
    """One function being lowered. Its diagnostics and occurrences are its own (``bag``,
    ``index``): they are returned with its IR, so nothing is written into shared objects."""

    def __init__(
        self,
        env: ModuleEnv,
        signature: FunctionSignature,
        signatures: dict[str, FunctionSignature],
        rules: Rules,
        *,
        bare_function_calls: bool = False,
    ) -> None:
        self.env = env
        # The span of a node: the source's own method, bound once (rules ask for every node).
        self.span: Callable[[ast.AST], Span] = env.source.span
        self.signature = signature
        self.signatures = signatures
        self.rules = rules
        # printed-IR module form: `f(x)` calls a sibling function
        self.bare_function_calls = bare_function_calls
        self.bag = DiagnosticBag()
        self.index = SymbolIndex()
        self.types = env.type_resolver(self.bag)
        self.state = LoweringState()
        self.pending: list[Stmt] = []  # statements emitted while lowering an expression (inline)
        self.cache: dict[int, Expr] = {}  # id(node) -> its value (dispatch peeks at arguments)
        self.prefix = env.imports.prefix
        self.return_types: list[Type] | None = (
            None  # what is returned, when the annotation disagrees
        )

    # --- plumbing -----------------------------------------------------------------------------
    def error(self, code: str, message: str, node: ast.AST | Span, **kw: Any) -> None:
        span = node if isinstance(node, Span) else self.span(node)
        self.bag.error(code, message, span, **kw)

    def occurrence(self, occ: Occurrence) -> None:
        self.index.add(occ)

    def path(self, node: ast.expr) -> tuple[str, ...] | None:
        return dsl_path(node, self.env.imports)

    def lookup_scalar(self, name: str) -> Var | None:
        binding = self.state.scope.get(name)
        return binding.var if binding is not None else None

    def fresh_name(self, base: str) -> str:
        self.state.tmp_counter += 1
        return base if self.state.tmp_counter == 1 else f"{base}_{self.state.tmp_counter - 1}"

    def unknown_name(
        self, code: str, message: str, span: Span, name: str, candidates: list[str]
    ) -> None:
        """An undefined name, with the closest candidates as "did you mean" and quick fixes."""
        import difflib  # only for a misspelt name: not at start-up

        matches = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
        fixes: tuple[Fix, ...] = ()
        if matches:
            message += f"; did you mean '{matches[0]}'?"
            fixes = replacement_fixes(span, matches)
        self.error(code, message, span, fixes=fixes)

    def statement_head(self, node: ast.stmt) -> Span:
        span = self.span(node)
        if span.end_line != span.line:
            text = self.env.source.line(span.line)
            return Span(span.file, span.line, span.column, span.line, len(text.rstrip()))
        return span

    # --- expressions --------------------------------------------------------------------------
    def lower_expr(self, node: ast.expr) -> Expr:
        cached = self.cache.get(id(node))
        if cached is not None:
            return cached
        rule = self.rules.expressions.get(type(node), self.rules.other_expression)
        result = rule(self, node)
        self.cache[id(node)] = result
        if type(node) in _RECORDED and not isinstance(result.type, UnknownType):
            # so hover can show the type of any expression, not only of names and calls
            text = self.env.source.segment(node)
            self.occurrence(
                Occurrence(
                    self.span(node),
                    text if len(text) <= 60 else text[:57] + "...",
                    OccurrenceKind.EXPRESSION,
                    result.type,
                )
            )
        return result

    # --- statements ---------------------------------------------------------------------------
    def lower_stmt(self, node: ast.stmt) -> list[Stmt]:
        rule = self.rules.statements.get(type(node), self.rules.other_statement)
        return rule(self, node)

    def lower_block(self, nodes: list[ast.stmt]) -> Stmt:
        stmts: list[Stmt] = []
        returned = False
        for node in nodes:
            if returned:
                self.error("E014", "Unreachable statement after return", node)
                break
            stmts.extend(self.lower_guarded(node))
            returned = isinstance(node, ast.Return)
        span = (
            self.span(nodes[0]).merge(self.span(nodes[-1]))
            if nodes
            else Span.unknown(self.env.source.path)
        )
        if len(stmts) == 1:
            return stmts[0]
        return SeqStmts(stmts=tuple(stmts), span=span)

    def lower_guarded(self, node: ast.stmt) -> list[Stmt]:
        """One statement, after the statements its expressions emitted; an internal error in it
        is one diagnostic here and never escapes."""
        try:
            lowered = self.lower_stmt(node)
        except RecursionError:
            self.error("E901", "This statement nests too deeply to analyse", node)
            lowered = self.define_unknown_targets(node)
        except Exception as exc:
            self.error(
                "E900",
                f"internal error while analysing this statement: {type(exc).__name__}: {exc}",
                node,
            )
            lowered = self.define_unknown_targets(node)
        stmts = [*self.pending, *lowered]
        self.pending.clear()
        return stmts

    def define_unknown_targets(self, node: ast.stmt) -> list[Stmt]:
        """After a failed statement, its names exist (untyped) so later uses are not errors too."""
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names: list[ast.Name] = []
        for target in targets:
            if isinstance(target, ast.Name):
                names.append(target)
            elif isinstance(target, ast.Tuple | ast.List):
                names.extend(e for e in target.elts if isinstance(e, ast.Name))
        for name in names:
            self.state.scope[name.id] = Binding(
                Var(UNKNOWN, name=name.id, span=self.span(name)),
                self.span(name),
                OccurrenceKind.VARIABLE,
            )
        return []

    # --- scopes -------------------------------------------------------------------------------
    def define(
        self, name: str, var: Var, span: Span, kind: OccurrenceKind, *, check_ssa: bool = True
    ) -> None:
        previous = self.state.scope.get(name)
        if (
            check_ssa
            and self.signature.strict_ssa
            and previous is not None
            and kind is OccurrenceKind.VARIABLE
        ):
            self.error(
                "E201",
                f"Variable '{name}' is already defined (strict_ssa)",
                span,
                related=(Related(previous.span, "previous definition was here"),),
            )
        self.state.scope[name] = Binding(var, span, kind)
        self.state.out_of_scope.pop(name, None)
        detail = self.state.task_origins.get(span, "")
        self.occurrence(
            Occurrence(
                span, name, kind, var.type, definition=span, is_definition=True, detail=detail
            )
        )
