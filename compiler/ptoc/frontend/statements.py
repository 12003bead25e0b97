"""Lowering the statements of one DSL function to IR."""

from __future__ import annotations

import ast
from typing import Any

from ..diagnostics import DiagnosticBag, Fix, Related, Severity, TextEdit
from ..ir.dtype import INDEX
from ..ir.expr import ConstInt, Expr, IterArg, Var
from ..ir.function import Function, ParamDirection
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ..ir.types import UNKNOWN, ScalarType, ShapedType, TileType, TupleType, Type, UnknownType
from ..language import LOOP_HELPERS
from .analysis import Occurrence, OccurrenceKind, SymbolIndex
from .context import (
    Binding,
    FunctionSignature,
    LoweringState,
    ModuleEnv,
    YieldFrame,
    YieldTarget,
)
from .expressions import MAX_INLINE_DEPTH, ExpressionLowerer, error_value, types_match
from .preprocess import SEED_YIELD_PLACEHOLDER


def print_type_text(t: Type, prefix: str) -> str | None:
    """The annotation text of a type, via the printer when available."""
    try:
        from ..printer import print_type

        return print_type(t, prefix=prefix)
    except Exception:  # the printer must never break analysis
        return None


class FunctionLowerer(ExpressionLowerer):
    def __init__(
        self,
        env: ModuleEnv,
        signature: FunctionSignature,
        signatures: dict[str, FunctionSignature],
        state: LoweringState,
        *,
        bare_function_calls: bool = False,
    ) -> None:
        super().__init__()
        self.env = env
        self.index = SymbolIndex()  # this function's occurrences (cached with it)
        self.signature = signature
        self.signatures = signatures
        self.state = state
        self.pending: list[Stmt] = []
        self.bare_function_calls = bare_function_calls
        self.prefix = env.imports.prefix
        self.return_types: list[Type] | None = (
            None  # what is returned, when the annotation disagrees
        )

    # --- function -----------------------------------------------------------------------------
    def lower_function(self) -> Function:
        sig = self.signature
        params: list[Var] = []
        directions: list[ParamDirection] = []
        for info in sig.params:
            var = Var(info.type or UNKNOWN, name=info.name, span=info.name_span)
            params.append(var)
            directions.append(info.direction)
            self.define(info.name, var, info.name_span, OccurrenceKind.PARAMETER)
        body_nodes = list(sig.node.body)
        if (
            body_nodes
            and isinstance(body_nodes[0], ast.Expr)
            and isinstance(body_nodes[0].value, ast.Constant)
            and isinstance(body_nodes[0].value.value, str)
        ):
            body_nodes = body_nodes[1:]  # docstring
        body = self.lower_block(body_nodes)
        return_types = self.return_types if self.return_types is not None else sig.return_types
        return Function(
            sig.name,
            tuple(params),
            tuple(return_types or ()),
            body,
            sig.func_type,
            tuple(directions),
            span=sig.span,
        )

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
        self.occurrence(Occurrence(span, name, kind, var.type, definition=span, is_definition=True))

    # --- blocks -------------------------------------------------------------------------------
    def lower_block(self, nodes: list[ast.stmt]) -> Stmt:
        stmts: list[Stmt] = []
        returned: Span | None = None
        for node in nodes:
            if returned is not None:
                self.error("E014", "Unreachable statement after return", node)
                break
            try:
                lowered = self.lower_stmt(node)
            except RecursionError:
                self.error("E901", "This statement nests too deeply to analyse", node)
                lowered = self.define_unknown_targets(node)
            except Exception as exc:  # an internal error never escapes: one diagnostic here
                self.error(
                    "E900",
                    f"internal error while analysing this statement: {type(exc).__name__}: {exc}",
                    node,
                )
                lowered = self.define_unknown_targets(node)
            stmts.extend(self.pending)
            self.pending.clear()
            stmts.extend(lowered)
            if isinstance(node, ast.Return):
                returned = self.span(node)
        span = (
            self.span(nodes[0]).merge(self.span(nodes[-1]))
            if nodes
            else Span.unknown(self.env.source.path)
        )
        if len(stmts) == 1:
            return stmts[0]
        return SeqStmts(stmts=tuple(stmts), span=span)

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

    def lower_stmt(self, node: ast.stmt) -> list[Stmt]:
        if isinstance(node, ast.Assign):
            return self.lower_assign(node, node.targets, node.value, None)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                self.error(
                    "E001",
                    "A declaration without a value is not supported (x: T needs `= value`)",
                    node,
                )
                return []
            return self.lower_assign(node, [node.target], node.value, node.annotation)
        if isinstance(node, ast.Expr):
            return self.lower_expr_stmt(node)
        if isinstance(node, ast.Return):
            return self.lower_return(node)
        if isinstance(node, ast.If):
            return self.lower_if(node)
        if isinstance(node, ast.For):
            return self.lower_for(node)
        if isinstance(node, ast.While):
            return self.lower_while(node)
        if isinstance(node, ast.With):
            return self.lower_with(node)
        if isinstance(node, ast.Pass):
            return []  # accepted (the original rejects it); prints back where a body is empty
        if isinstance(node, ast.AugAssign):
            return self.unsupported_augassign(node)
        kind = type(node).__name__
        self.error("E001", f"Unsupported statement type: {kind}", self.statement_head(node))
        return []

    def statement_head(self, node: ast.stmt) -> Span:
        span = self.span(node)
        if span.end_line != span.line:
            text = self.env.source.line(span.line)
            return Span(span.file, span.line, span.column, span.line, len(text.rstrip()))
        return span

    def unsupported_augassign(self, node: ast.AugAssign) -> list[Stmt]:
        seg = self.env.source.segment
        ops = {
            ast.Add: "+",
            ast.Sub: "-",
            ast.Mult: "*",
            ast.Div: "/",
            ast.FloorDiv: "//",
            ast.Mod: "%",
        }
        symbol = ops.get(type(node.op))
        fixes: tuple[Fix, ...] = ()
        if symbol and isinstance(node.target, ast.Name):
            value = seg(node.value)
            if isinstance(node.value, ast.BinOp | ast.BoolOp | ast.Compare):
                value = f"({value})"
            new = f"{node.target.id} = {node.target.id} {symbol} {value}"
            fixes = (Fix(f"Rewrite as `{new}`", (TextEdit(self.span(node), new),), preferred=True),)
        self.error(
            "E001",
            "Unsupported statement type: AugAssign (x op= y); write x = x op y",
            node,
            fixes=fixes,
        )
        return []

    # --- assignments ----------------------------------------------------------------------------
    def yield_call(self, value: ast.expr) -> ast.Call | None:
        if isinstance(value, ast.Call):
            path = self.path(value.func)
            if (
                path is not None
                and path[-1] in ("yield_", SEED_YIELD_PLACEHOLDER)
                and len(path) == 1
            ):
                return value
        return None

    def lower_assign(
        self, node: ast.stmt, targets: list[ast.expr], value: ast.expr, annotation: ast.expr | None
    ) -> list[Stmt]:
        if len(targets) != 1:
            self.error("E002", "Chained assignment (a = b = ...) is not supported", node)
            return []
        target = targets[0]
        call = self.yield_call(value)
        if call is not None:
            return self.lower_yield(node, call, target, annotation)
        if isinstance(target, ast.Tuple | ast.List):
            if annotation is not None:
                self.error("E002", "A tuple assignment cannot be annotated", annotation)
            return self.lower_unpack(node, target, value)
        if not isinstance(target, ast.Name):
            self.error(
                "E002",
                "Only simple variable assignments are supported (x = ... or a, b = ...)",
                target,
            )
            self.lower_expr(value)
            return []
        expr = self.lower_expr(value)
        declared: Type | None = None
        if annotation is not None:
            declared = self.local_annotation(annotation, expr.type)
            if declared is not None:
                self.occurrence(
                    Occurrence(self.span(annotation), target.id, OccurrenceKind.TYPE, declared)
                )
                self.check_annotation(annotation, declared, expr)
        var_type = self.refine(expr.type, declared)
        var = Var(var_type, name=target.id, span=self.span(target))
        self.define(target.id, var, self.span(target), OccurrenceKind.VARIABLE)
        return [AssignStmt(var, expr, span=self.span(node))]

    def refine(self, deduced: Type, declared: Type | None) -> Type:
        """The variable's type: the deduced one, taking buffer/view details from the annotation
        (printed IR after the memory passes carries them), or the annotation when nothing was
        deduced."""
        if declared is None:
            return deduced
        if isinstance(deduced, UnknownType):
            return declared
        if (
            isinstance(deduced, TileType)
            and isinstance(declared, TileType)
            and types_match(declared, deduced)
        ):
            from dataclasses import replace

            return replace(
                deduced,
                memref=declared.memref or deduced.memref,
                tile_view=declared.tile_view
                if declared.tile_view is not None
                else deduced.tile_view,
            )
        if (
            isinstance(deduced, ShapedType)
            and isinstance(declared, ShapedType)
            and types_match(declared, deduced)
        ):
            from dataclasses import replace

            return replace(deduced, memref=declared.memref or deduced.memref)
        return deduced

    def local_annotation(self, annotation: ast.expr, deduced: Type) -> Type | None:
        """A local annotation's type. The original never reads local annotations, so one that is
        not a well-formed type is a warning (W008) and the deduced type stands."""
        types = self.env.types
        outer, scratch = types.bag, DiagnosticBag()
        types.bag = scratch
        try:
            declared = types.resolve(annotation, self.lookup_scalar, allow_tuple=True)
        finally:
            types.bag = outer
        problems = [d for d in scratch.items if d.severity is Severity.ERROR]
        for diagnostic in scratch.items:
            if diagnostic.severity is not Severity.ERROR:
                self.state.bag.add(diagnostic)  # e.g. the W003 note on a legacy call form
        if not problems:
            return declared
        form = types.right_form(annotation)
        message = f"malformed annotation: {problems[0].message}"
        if form is not None:
            message += f"; the form is `{form}`"
        if not isinstance(deduced, UnknownType):
            message += f"; the deduced type {deduced.short()} is used"
        self.error("W008", message, annotation, fixes=self.annotation_fixes(annotation, deduced))
        return None

    def annotation_fixes(self, annotation: ast.expr, deduced: Type) -> tuple[Fix, ...]:
        text = (
            print_type_text(deduced, self.prefix) if not isinstance(deduced, UnknownType) else None
        )
        if text is None:
            return ()
        return (
            Fix(
                f"Change the annotation to `{text}`",
                (TextEdit(self.span(annotation), text),),
                preferred=True,
            ),
        )

    def check_annotation(self, annotation: ast.expr, declared: Type, expr: Expr) -> None:
        """The original ignores local annotations and uses the deduced type; one that disagrees
        is a mistake in the text, not in the program (W006)."""
        if types_match(declared, expr.type):
            return
        self.error(
            "W006",
            f"annotation says {declared.short()} but the value is {expr.type.short()}; "
            "the deduced type is used",
            annotation,
            fixes=self.annotation_fixes(annotation, expr.type),
        )

    def lower_unpack(
        self, node: ast.stmt, target: ast.Tuple | ast.List, value: ast.expr
    ) -> list[Stmt]:
        names: list[ast.Name] = []
        for element in target.elts:
            if not isinstance(element, ast.Name):
                self.error("E006", "Tuple unpacking targets must be plain names", element)
                return []
            names.append(element)
        expr = self.lower_expr(value)
        span = self.span(node)
        if isinstance(expr.type, UnknownType):
            for name in names:
                self.define(
                    name.id,
                    Var(UNKNOWN, name=name.id, span=self.span(name)),
                    self.span(name),
                    OccurrenceKind.VARIABLE,
                )
            return []
        if not isinstance(expr.type, TupleType):
            self.error(
                "E006", f"Cannot unpack a value of type {expr.type.short()} (not a tuple)", value
            )
            return []
        if len(expr.type.types) != len(names):
            self.error(
                "E006",
                f"Cannot unpack {len(expr.type.types)} values into {len(names)} names",
                target,
            )
            return []
        from ..ir.expr import TupleGetItem

        tmp = Var(expr.type, name=self.fresh_name("_tuple_tmp"), span=span)
        stmts: list[Stmt] = [AssignStmt(tmp, expr, span=span)]
        for index, (name, element_type) in enumerate(zip(names, expr.type.types, strict=True)):
            item = TupleGetItem(element_type, tuple_value=tmp, index=index, span=self.span(name))
            var = Var(element_type, name=name.id, span=self.span(name))
            self.define(name.id, var, self.span(name), OccurrenceKind.VARIABLE)
            stmts.append(AssignStmt(var, item, span=span))
        return stmts

    # --- yields -------------------------------------------------------------------------------
    def lower_yield(
        self, node: ast.stmt, call: ast.Call, target: ast.expr | None, annotation: ast.expr | None
    ) -> list[Stmt]:
        span = self.span(node)
        self.occurrence(Occurrence(self.span(call.func), "yield_", OccurrenceKind.HELPER, None))
        if call.keywords:
            self.error("E302", "pl.yield_ takes positional arguments only", call.keywords[0])
        values = [self.lower_expr(a) for a in call.args]
        frame = self.state.frames[-1] if self.state.frames else None
        targets: list[YieldTarget] | None = None
        broken = False
        if target is not None:
            if isinstance(target, ast.Name):
                declared = None
                if annotation is not None:
                    first = values[0].type if values else UNKNOWN
                    declared = self.local_annotation(annotation, first)
                    if (
                        declared is not None
                        and len(values) == 1
                        and not types_match(declared, first)
                    ):
                        self.check_annotation(annotation, declared, values[0])
                        declared = None  # the deduced type stands
                targets = [YieldTarget(target.id, self.span(target), declared)]
                if len(values) > 1:
                    broken = True
                    if frame is not None and frame.expected is not None:
                        self.yield_count_error(frame, values, call)
                    else:
                        self.error(
                            "E006",
                            "Multiple yielded values must be unpacked: a, b = pl.yield_(x, y)",
                            target,
                        )
            elif isinstance(target, ast.Tuple | ast.List) and all(
                isinstance(e, ast.Name) for e in target.elts
            ):
                targets = [YieldTarget(e.id, self.span(e), None) for e in target.elts]  # type: ignore[attr-defined]
                if len(targets) != len(values):
                    broken = True
                    self.error(
                        "E006",
                        f"pl.yield_ gives {len(values)} value(s) but {len(targets)} name(s) are assigned",
                        target,
                    )
            else:
                self.error("E002", "pl.yield_ results must be assigned to names", target)
                broken = True
        if frame is None:
            if not broken:
                self.error("W005", "pl.yield_ outside a loop or if has no effect", call)
            return [YieldStmt(values=tuple(values), span=span)] if not broken else []
        if frame.found:
            self.error("E014", "A body can yield only once", call)
            return []
        frame.found = True
        frame.values = values
        frame.targets = targets
        frame.span = span
        frame.value_spans = [self.span(a) for a in call.args]
        frame.broken = broken
        if broken:
            return []
        if frame.expected is not None:
            self.check_yield_values(frame, call)
        return [YieldStmt(values=tuple(values), span=span)]

    def yield_count_error(self, frame: YieldFrame, values: list[Expr], call: ast.Call) -> None:
        assert frame.expected is not None
        self.error(
            "E009",
            f"the loop carries {len(frame.expected)} value(s) but pl.yield_ gives {len(values)}",
            call,
        )

    def check_yield_values(self, frame: YieldFrame, call: ast.Call) -> None:
        assert frame.expected is not None
        if len(frame.values) != len(frame.expected):
            self.yield_count_error(frame, frame.values, call)
            frame.broken = True
            return
        for value, expected, arg in zip(frame.values, frame.expected, call.args, strict=True):
            if not types_match(expected, value.type):
                self.error(
                    "E108",
                    f"yielded value is {value.type.short()} but the loop-carried value is {expected.short()}",
                    arg,
                )

    def lower_expr_stmt(self, node: ast.Expr) -> list[Stmt]:
        call = self.yield_call(node.value)
        if call is not None:
            return self.lower_yield(node, call, None, None)
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return []  # a string statement (comment-like) has no effect
        if isinstance(node.value, ast.Call):
            path = self.path(node.value.func)
            if path == ("cond",):
                self.error(
                    "E014",
                    "pl.cond(...) is only allowed as the first statement of a pl.while_ loop",
                    node,
                )
                return []
        expr = self.lower_expr(node.value)
        return [EvalStmt(expr, span=self.span(node))]

    # --- return -------------------------------------------------------------------------------
    def lower_return(self, node: ast.Return) -> list[Stmt]:
        span = self.span(node)
        if node.value is None:
            values: list[Expr] = []
            value_nodes: list[ast.expr] = []
        elif isinstance(node.value, ast.Tuple):
            value_nodes = list(node.value.elts)
            values = [self.lower_expr(v) for v in value_nodes]
        else:
            value_nodes = [node.value]
            values = [self.lower_expr(node.value)]
        expected = self.signature.return_types
        if expected is not None and self.signature.return_annotation_span is not None:
            self.check_return(
                node, values, value_nodes, expected, self.signature.return_annotation_span
            )
        return [ReturnStmt(values=tuple(values), span=span)]

    def check_return(
        self,
        node: ast.Return,
        values: list[Expr],
        value_nodes: list[ast.expr],
        expected: list[Type],
        annotation: Span,
    ) -> None:
        """The original does not check returns against the annotation: a disagreement is W007, and
        the function's IR returns the deduced types (callers still see the annotation, as there)."""
        related = (Related(annotation, "the return annotation is here"),)
        name = self.signature.name
        if len(values) != len(expected):
            if expected or values:
                self.error(
                    "W007",
                    f"'{name}' is annotated to return {len(expected)} value(s) but this returns {len(values)}",
                    node,
                    related=related,
                )
                self.deduced_returns(values)
            return
        for value, want, value_node in zip(values, expected, value_nodes, strict=True):
            if types_match(want, value.type):
                continue
            fixes: tuple[Fix, ...] = ()
            text = print_type_text(value.type, self.prefix)
            if text and len(expected) == 1:
                fixes = (
                    Fix(
                        f"Change the return annotation to `{text}`",
                        (TextEdit(annotation, text),),
                        preferred=True,
                    ),
                )
            self.error(
                "W007",
                f"returns {value.type.short()} but '{name}' is annotated to return {want.short()}; "
                "the deduced type is used",
                value_node,
                related=related,
                fixes=fixes,
            )
            self.deduced_returns(values)

    def deduced_returns(self, values: list[Expr]) -> None:
        if self.return_types is None and not any(isinstance(v.type, UnknownType) for v in values):
            self.return_types = [v.type for v in values]

    # --- if -----------------------------------------------------------------------------------
    def condition(self, node: ast.expr) -> Expr:
        cond = self.lower_expr(node)
        if not isinstance(cond.type, ScalarType | UnknownType):
            self.error("E110", f"a condition must be a scalar, got {cond.type.short()}", node)
            return error_value(self.span(node))
        return cond

    def lower_branch(self, nodes: list[ast.stmt], kind: str) -> tuple[Stmt | None, YieldFrame]:
        frame = YieldFrame(kind)
        self.state.frames.append(frame)
        # A branch may run in some iterations only: no loop's every value is certain in it.
        ranges, self.state.loop_ranges = self.state.loop_ranges, {}
        try:
            body = self.lower_block(nodes) if nodes else None
        finally:
            self.state.frames.pop()
            self.state.loop_ranges = ranges
        return body, frame

    def lower_if(self, node: ast.If) -> list[Stmt]:
        span = self.span(node)
        cond = self.condition(node.test)
        then_body, then_frame = self.lower_branch(node.body, "if")
        else_body, else_frame = (
            self.lower_branch(node.orelse, "if") if node.orelse else (None, YieldFrame("if"))
        )
        # `elif` whose inner if yields the same names: the outer else yields the inner results.
        if (
            then_frame.found
            and not else_frame.found
            and len(node.orelse) == 1
            and isinstance(node.orelse[0], ast.If)
            and isinstance(else_body, IfStmt)
            and then_frame.targets is not None
            and [v.name for v in else_body.return_vars] == [t.name for t in then_frame.targets]
        ):
            else_frame.found = True
            else_frame.values = list(else_body.return_vars)
            else_frame.targets = then_frame.targets
            else_frame.value_spans = [v.span for v in else_body.return_vars]
            else_body = SeqStmts(
                stmts=(
                    else_body,
                    YieldStmt(values=tuple(else_body.return_vars), span=else_body.span),
                ),
                span=else_body.span,
            )
        return_vars: list[Var] = []
        if then_frame.found or else_frame.found:
            return_vars = self.if_results(node, then_frame, else_frame, bool(node.orelse))
        if then_body is None:
            then_body = SeqStmts(stmts=(), span=span)
        stmt = IfStmt(cond, then_body, else_body, tuple(return_vars), span=span)
        for var in return_vars:
            self.define(var.name, var, var.span, OccurrenceKind.VARIABLE)
        return [stmt]

    def if_results(
        self, node: ast.If, then_frame: YieldFrame, else_frame: YieldFrame, has_else: bool
    ) -> list[Var]:
        first = then_frame if then_frame.found else else_frame
        other = else_frame if then_frame.found else then_frame
        if first.broken or other.broken:  # reported already: define the names, say no more
            named = first if first.targets is not None else other
            return [Var(UNKNOWN, name=t.name, span=t.span) for t in named.targets or ()]
        unknown = [Var(UNKNOWN, name=t.name, span=t.span) for t in first.targets or ()]
        if has_else and not other.found:
            which = "else" if then_frame.found else "then"
            self.error(
                "E010",
                f"the {which} branch must also end with pl.yield_ (the other branch yields)",
                self.else_head(node) if which == "else" else self.statement_head(node),
            )
            return unknown
        names = [t.name for t in first.targets] if first.targets is not None else None
        if names is None:
            self.error(
                "E010",
                "pl.yield_ in an if branch must be assigned to result names (r = pl.yield_(v))",
                first.span or self.span(node),
            )
            return []
        if not has_else:
            self.error(
                "W023",
                f"this if yields {', '.join(names)} but has no else: when the condition "
                "is false the result is never set (add an else branch that yields)",
                self.statement_head(node),
            )
        if other.found:
            if len(other.values) != len(first.values):
                self.error(
                    "E009",
                    f"the branches yield {len(first.values)} and {len(other.values)} values",
                    other.span or self.span(node),
                    related=(Related(first.span, "the other branch yields here"),)
                    if first.span
                    else (),
                )
                return []
            other_names = [t.name for t in other.targets] if other.targets is not None else names
            if other_names != names:
                self.error(
                    "E009",
                    f"the branches yield to different names: {', '.join(names)} vs {', '.join(other_names)}",
                    other.span or self.span(node),
                )
        result: list[Var] = []
        assert first.targets is not None
        for index, target in enumerate(first.targets):
            value_type = first.values[index].type if index < len(first.values) else UNKNOWN
            result_type = target.annotation or value_type
            if other.found and index < len(other.values):
                other_type = other.values[index].type
                if not types_match(result_type, other_type):
                    self.error(
                        "E108",
                        f"the branches yield different types for '{target.name}': {result_type.short()} and {other_type.short()}",
                        other.value_spans[index]
                        if index < len(other.value_spans)
                        else self.span(node),
                        related=(Related(first.value_spans[index], "the other branch yields this"),)
                        if index < len(first.value_spans)
                        else (),
                    )
            result.append(Var(result_type, name=target.name, span=target.span))
        return result

    def else_head(self, node: ast.If) -> Span:
        """The `else:` of an if (the line before its first statement that says so)."""
        source = self.env.source
        first = node.orelse[0]
        for line in range(first.lineno - 1, node.lineno, -1):
            text = source.line(line)
            stripped = text.lstrip()
            if stripped.startswith("else"):
                column = len(text) - len(stripped)
                return Span(self.span(node).file, line, column, line, column + len("else"))
        return self.statement_head(first)

    # --- loops --------------------------------------------------------------------------------
    def lower_for(self, node: ast.For) -> list[Stmt]:
        span = self.span(node)
        head = self.statement_head(node)
        if node.orelse:
            self.error("E001", "for ... else is not supported", node.orelse[0])
        iterator = node.iter
        kind: str | None = None
        if isinstance(iterator, ast.Call):
            func = iterator.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else None
            )
            if name in LOOP_HELPERS:
                kind = name
                self.occurrence(Occurrence(self.span(func), name, OccurrenceKind.HELPER, None))
        if kind is None:
            self.error(
                "E005", "For loop must use pl.range(), pl.parallel(), or pl.while_()", iterator
            )
            return []
        assert isinstance(iterator, ast.Call)
        if kind == "while_":
            return self.lower_while_loop(node, iterator)
        positional = list(iterator.args)
        if not positional:
            self.error("E004", f"pl.{kind}() needs at least a stop value", iterator)
            return []
        if len(positional) > 3:
            self.error(
                "W004",
                f"pl.{kind} takes (start, stop, step); extra arguments are ignored",
                positional[3],
            )
            positional = positional[:3]
        init_node: ast.expr | None = None
        for keyword in iterator.keywords:
            if keyword.arg == "init_values":
                init_node = keyword.value
            else:
                self.error("W004", f"pl.{kind} ignores the keyword '{keyword.arg}'", keyword.value)
        bounds = [self.lower_expr(a) for a in positional]
        for value, value_node in zip(bounds, positional, strict=True):
            if not isinstance(value.type, UnknownType) and not (
                isinstance(value.type, ScalarType) and value.type.dtype.is_int
            ):
                self.error(
                    "E004",
                    f"loop bounds must be integer scalars, got {value.type.short()}",
                    value_node,
                )
        from ..ir.expr import const_int

        start: Expr
        stop: Expr
        step: Expr
        if len(bounds) == 1:
            start, stop, step = const_int(0, span=head), bounds[0], const_int(1, span=head)
        elif len(bounds) == 2:
            start, stop, step = bounds[0], bounds[1], const_int(1, span=head)
        else:
            start, stop, step = bounds
        # targets
        target = node.target
        loop_name: ast.Name | None = None
        carried: list[ast.Name] = []
        if init_node is not None:
            if not (
                isinstance(target, ast.Tuple)
                and len(target.elts) == 2
                and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], ast.Tuple | ast.List)
            ):
                if isinstance(target, ast.Name):
                    self.error(
                        "E003",
                        "For loop target must be a tuple when init_values is provided: for i, (a,) in ...",
                        target,
                    )
                else:
                    self.error(
                        "E003",
                        "For loop target must be a simple name or: (loop_var, (iter_args...))",
                        target,
                    )
                return []
            loop_name = target.elts[0]  # type: ignore[assignment]
            inner = target.elts[1]
            assert isinstance(inner, ast.Tuple | ast.List)
            for element in inner.elts:
                if not isinstance(element, ast.Name):
                    self.error("E003", "Loop-carried names must be plain names", element)
                    return []
                carried.append(element)
            if not isinstance(init_node, ast.Tuple | ast.List):
                self.error("E004", "init_values must be a list or tuple", init_node)
                return []
            if len(init_node.elts) != len(carried):
                self.error(
                    "E007",
                    f"Mismatch: {len(carried)} iter_args but {len(init_node.elts)} init_values",
                    inner,
                )
                return []
        else:
            if not isinstance(target, ast.Name):
                self.error(
                    "E003",
                    "For loop target must be a simple name or: (loop_var, (iter_args...))",
                    target,
                )
                return []
            loop_name = target
        inits = (
            [self.lower_expr(e) for e in init_node.elts]
            if isinstance(init_node, ast.Tuple | ast.List)
            else []
        )
        assert loop_name is not None
        saved = self.save_names([loop_name.id] + [c.id for c in carried])
        loop_var = Var(ScalarType(INDEX), name=loop_name.id, span=self.span(loop_name))
        self.define(
            loop_name.id, loop_var, self.span(loop_name), OccurrenceKind.LOOP_VAR, check_ssa=False
        )
        iter_args = self.bind_iter_args(carried, inits)
        # A loop that may not run (bounds not constant) makes no value of an outer loop certain.
        values = loop_values(start, stop, step)
        ranges = self.state.loop_ranges
        self.state.loop_ranges = {**ranges, loop_var: values} if values is not None else {}
        try:
            body, return_vars = self.lower_loop_body("for", node.body, iter_args, head, saved)
        finally:
            self.state.loop_ranges = ranges
        for_kind = ForKind.Parallel if kind == "parallel" else ForKind.Sequential
        return [
            ForStmt(
                loop_var,
                start,
                stop,
                step,
                body,
                tuple(iter_args),
                tuple(return_vars),
                for_kind,
                span=span,
            )
        ]

    def bind_iter_args(self, names: list[ast.Name], inits: list[Expr]) -> list[IterArg]:
        """The loop-carried values, in scope for the loop body."""
        iter_args: list[IterArg] = []
        for name_node, init in zip(names, inits, strict=True):
            arg = IterArg(init.type, name=name_node.id, span=self.span(name_node), init_value=init)
            iter_args.append(arg)
            self.define(
                name_node.id, arg, self.span(name_node), OccurrenceKind.ITER_ARG, check_ssa=False
            )
        return iter_args

    def lower_loop_body(
        self,
        kind: str,
        nodes: list[ast.stmt],
        iter_args: list[IterArg],
        head: Span,
        saved: dict[str, Binding | None],
    ) -> tuple[Stmt, list[Var]]:
        """Lower a loop body against its carried values; then the loop's own names leave scope
        and the names its pl.yield_ assigns become the loop's results."""
        frame = YieldFrame(kind, expected=[a.type for a in iter_args] if iter_args else None)
        self.state.frames.append(frame)
        ranges = self.state.loop_ranges
        if kind != "for":  # a while body may not run at all
            self.state.loop_ranges = {}
        try:
            body = self.lower_block(nodes)
        finally:
            self.state.frames.pop()
            self.state.loop_ranges = ranges
        return_vars = self.loop_results(frame, iter_args, head)
        self.restore_names(saved, "it is only defined inside the loop", return_vars)
        for var in return_vars:
            self.define(var.name, var, var.span, OccurrenceKind.VARIABLE)
        return body, return_vars

    def loop_results(self, frame: YieldFrame, iter_args: list[IterArg], head: Span) -> list[Var]:
        if not iter_args:
            if frame.found and frame.targets:
                self.error(
                    "E009",
                    "this loop carries no values (no init_values), so its pl.yield_ has no results",
                    frame.span or head,
                )
            return []
        if not frame.found:
            self.error(
                "E010",
                "a loop with init_values must end with pl.yield_(...) giving the next values",
                head,
            )
            return []
        if frame.targets is None:
            # a bare pl.yield_(...): results keep the iter-arg names (seed 003 style)
            return [Var(a.type, name=a.name, span=frame.span or a.span) for a in iter_args]
        if len(frame.targets) != len(iter_args):
            # already reported: the names still exist, of unknown type
            return [Var(UNKNOWN, name=t.name, span=t.span) for t in frame.targets]
        return [
            Var(a.type, name=t.name, span=t.span)
            for a, t in zip(iter_args, frame.targets, strict=True)
        ]

    def save_names(self, names: list[str]) -> dict[str, Binding | None]:
        return {name: self.state.scope.get(name) for name in names}

    def restore_names(
        self, saved: dict[str, Binding | None], hint: str, results: list[Var]
    ) -> None:
        result_names = {v.name for v in results}
        for name, binding in saved.items():
            current = self.state.scope.get(name)
            if binding is not None:
                self.state.scope[name] = binding
            else:
                self.state.scope.pop(name, None)
                if current is not None and name not in result_names:
                    alt = ""
                    if results:
                        alt = f"; after the loop use {', '.join(repr(v.name) for v in results)}"
                    self.state.out_of_scope[name] = (current.span, hint + alt)

    def lower_while_loop(self, node: ast.For, iterator: ast.Call) -> list[Stmt]:
        span = self.span(node)
        head = self.statement_head(node)
        if iterator.args:
            self.error(
                "E004",
                "pl.while_ takes no positional arguments: pl.while_(init_values=(...))",
                iterator.args[0],
            )
        init_node = next((k.value for k in iterator.keywords if k.arg == "init_values"), None)
        if not isinstance(init_node, ast.Tuple | ast.List) or not init_node.elts:
            self.error("E004", "pl.while_ requires non-empty init_values=(...)", iterator)
            return []
        target = node.target
        if not isinstance(target, ast.Tuple | ast.List) or not all(
            isinstance(e, ast.Name) for e in target.elts
        ):
            self.error(
                "E003",
                "pl.while_ loop target must be a tuple of names: for (a, b) in pl.while_(...)",
                target,
            )
            return []
        names: list[ast.Name] = list(target.elts)  # type: ignore[arg-type]
        if len(names) != len(init_node.elts):
            self.error(
                "E007",
                f"Mismatch: {len(names)} iter_args but {len(init_node.elts)} init_values",
                target,
            )
            return []
        inits = [self.lower_expr(e) for e in init_node.elts]
        body_nodes = list(node.body)
        first = body_nodes[0] if body_nodes else None
        cond_call = (
            first.value
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
            else None
        )
        if cond_call is None or self.path(cond_call.func) != ("cond",):
            self.error(
                "E004",
                "the first statement of a pl.while_ loop must be pl.cond(condition)",
                first or node,
            )
            return []
        if len(cond_call.args) != 1 or cond_call.keywords:
            self.error("E004", "pl.cond takes exactly one argument", cond_call)
            return []
        saved = self.save_names([n.id for n in names])
        iter_args = self.bind_iter_args(names, inits)
        cond = self.condition(cond_call.args[0])
        body, return_vars = self.lower_loop_body("while", body_nodes[1:], iter_args, head, saved)
        return [WhileStmt(cond, body, tuple(iter_args), tuple(return_vars), span=span)]

    def lower_while(self, node: ast.While) -> list[Stmt]:
        if node.orelse:
            self.error("E001", "while ... else is not supported", node.orelse[0])
        cond = self.condition(node.test)
        body, frame = self.lower_branch(node.body, "while")
        if frame.found:
            self.error(
                "E009",
                "a natural while loop carries no values; use pl.while_(init_values=...) to yield",
                frame.span or self.span(node),
            )
        return [WhileStmt(cond, body or SeqStmts(stmts=()), span=self.span(node))]

    def lower_with(self, node: ast.With) -> list[Stmt]:
        if len(node.items) != 1:
            self.error(
                "E013",
                "Only one context manager is supported: with pl.incore():",
                node.items[1].context_expr,
            )
            return []
        item = node.items[0]
        expr = item.context_expr
        ok = (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "incore"
            and not expr.args
        )
        if not ok:
            self.error(
                "E013", "Unsupported context manager; only `with pl.incore():` is allowed", expr
            )
            return []
        if item.optional_vars is not None:
            self.error("E013", "`with pl.incore()` does not bind a name", item.optional_vars)
        self.occurrence(Occurrence(self.span(expr), "incore", OccurrenceKind.HELPER, None))
        self.state.incore_scopes += 1
        try:
            body = self.lower_block(node.body)
        finally:
            self.state.incore_scopes -= 1
        return [ScopeStmt(body, ScopeKind.InCore, span=self.span(node))]

    # --- inline functions -----------------------------------------------------------------------
    def expand_inline(self, node: ast.Call, name: str) -> Expr:
        span = self.span(node)
        definition = self.env.inline_defs[name]
        params = [a.arg for a in definition.args.args]
        if node.keywords:
            self.error(
                "E302",
                f"inline function '{name}' takes positional arguments only",
                node.keywords[0],
            )
        if len(node.args) != len(params):
            self.error(
                "E206",
                f"inline function '{name}' expects {len(params)} argument(s), got {len(node.args)}",
                node,
                related=(Related(self.span(definition), f"'{name}' is defined here"),),
            )
            return error_value(span)
        if self.state.inline_depth >= MAX_INLINE_DEPTH:
            self.error(
                "E901",
                f"inline expansion of '{name}' nests deeper than {MAX_INLINE_DEPTH} levels",
                node,
            )
            return error_value(span)
        args = [self.lower_expr(a) for a in node.args]
        self.occurrence(
            Occurrence(
                self.span(node.func),
                name,
                OccurrenceKind.FUNCTION,
                None,
                definition=self.span(definition),
            )
        )
        saved_scope = dict(self.state.scope)
        saved_frames = self.state.frames
        saved_cache = self._cache
        self._cache = {}  # the inline body's nodes are lowered afresh at every call site
        self.state.frames = []
        self.state.inline_depth += 1
        result: Expr = error_value(span)
        try:
            self.state.scope = dict(self.state.scope)
            for param, value in zip(params, args, strict=True):
                var = (
                    value
                    if isinstance(value, Var)
                    else Var(value.type, name=self.fresh_name(f"_{param}"), span=span)
                )
                if var is not value:
                    self.pending.append(AssignStmt(var, value, span=span))
                self.state.scope[param] = Binding(var, var.span, OccurrenceKind.PARAMETER)
            body = list(definition.body)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            returned: ast.Return | None = None
            if body and isinstance(body[-1], ast.Return):
                returned = body[-1]
                body = body[:-1]
            outer_pending = self.pending
            self.pending = []
            block = self.lower_block(body) if body else None
            self.pending = outer_pending
            if block is not None:
                self.pending.extend(block.stmts if isinstance(block, SeqStmts) else [block])
            if returned is not None and returned.value is not None:
                result = self.lower_expr(returned.value)
            else:
                self.error(
                    "E014",
                    f"inline function '{name}' used as a value must end with `return <value>`",
                    node,
                )
        finally:
            self.state.scope = saved_scope
            self.state.frames = saved_frames
            self._cache = saved_cache
            self.state.inline_depth -= 1
        return result


def loop_values(start: Expr, stop: Expr, step: Expr) -> tuple[int, int] | None:
    """(first, last) value of a loop variable with constant bounds that runs at least once."""
    if not all(isinstance(e, ConstInt) for e in (start, stop, step)):
        return None
    first, end, by = start.value, stop.value, step.value  # type: ignore[attr-defined]
    if by == 0 or (by > 0 and first >= end) or (by < 0 and first <= end):
        return None
    last = first + (abs(end - first) - 1) // abs(by) * by
    return (first, last) if by > 0 else (last, first)


def lower_function(
    env: ModuleEnv,
    signature: FunctionSignature,
    signatures: dict[str, FunctionSignature],
    state: LoweringState,
    **options: Any,
) -> tuple[Function, list[str], SymbolIndex]:
    """Lower one function. Its diagnostics go to ``state.bag`` (annotation errors included)
    and its occurrences to the returned index, so the result can be cached as a unit."""
    lowerer = FunctionLowerer(env, signature, signatures, state, **options)
    module_bag = env.types.bag
    env.types.bag = state.bag
    try:
        function = lowerer.lower_function()
    finally:
        env.types.bag = module_bag
    return function, state.external_calls, lowerer.index
