"""State shared while lowering a module: its environment, function signatures, scopes."""

from __future__ import annotations

import ast
from enum import Enum

from ..diagnostics import DiagnosticBag
from ..editions import NEWEST, RULES, Edition, EditionRules
from ..ir.expr import Expr, Var
from ..ir.function import FunctionType, ParamDirection
from ..ir.span import Span
from ..ir.types import TupleType, Type
from ..records import field, record
from .analysis import OccurrenceKind
from .annotations import TypeResolver
from .consteval import ConstEvaluator
from .names import DslImports
from .source import SourceText


@record
class ParamInfo:
    name: str
    type: Type | None
    direction: ParamDirection
    span: Span  # the whole `x: T`
    name_span: Span
    annotation_span: Span | None


@record
class FunctionSignature:
    name: str
    node: ast.FunctionDef
    params: list[ParamInfo]
    return_types: list[Type] | None  # None: the annotation could not be resolved
    return_annotation_span: Span | None
    name_span: Span
    span: Span
    func_type: FunctionType = FunctionType.Opaque
    strict_ssa: bool = False
    program: str | None = None
    is_method: bool = False  # drops `self`
    level: Enum | None = None  # 2026-08's ``level=`` (a ``pl.Level`` member)
    role: Enum | None = None  # 2026-08's ``role=`` (a ``pl.Role`` member)
    # The body is not DSL: a host callback (level >= HOST, role SubWorker) is ordinary Python,
    # an ``external_source=`` kernel or a ``...`` body is bound elsewhere. Not analysed.
    opaque_body: str | None = None
    jit: bool = False  # a @pl.jit function: its body sugar (spec §3.3) is accepted

    @property
    def result_type(self) -> Type | None:
        if self.return_types is None:
            return None
        if len(self.return_types) == 1:
            return self.return_types[0]
        return TupleType(tuple(self.return_types))

    def describe(self, prefix: str = "pl") -> str:
        params = ", ".join(f"{p.name}: {p.type.short() if p.type else '?'}" for p in self.params)
        returns = ""
        if self.return_types:
            returns = " -> " + ", ".join(t.short() for t in self.return_types)
        return f"def {self.name}({params}){returns}"


@record
class ModuleEnv:
    source: SourceText
    imports: DslImports
    consts: ConstEvaluator
    inline_defs: dict[str, ast.FunctionDef] = field(default_factory=dict)
    external_functions: dict[str, FunctionSignature] = field(default_factory=dict)
    function_aliases: dict[str, str] = field(default_factory=dict)  # `aliased = original_fn`
    edition: Edition = NEWEST  # the edition in force (frontend/edition.py decides it)
    rules: EditionRules = RULES[NEWEST]  # what its spellings mean (editions.rules_for)
    # A builder function's parameters and locals while its programs are lowered: sizes known
    # when the builder runs, so a tile may be shaped by them (ops' DeduceContext.symbols).
    build_symbols: frozenset[Var] = frozenset()

    def type_resolver(self, bag: DiagnosticBag) -> TypeResolver:
        """A reader of annotations that reports into ``bag`` (each analysis passes its own)."""
        return TypeResolver(self.source, self.imports, self.consts, bag, self.rules.index_dtype)


@record
class Binding:
    var: Var
    span: Span  # where it is defined
    kind: OccurrenceKind


@record
class YieldTarget:
    name: str
    span: Span
    annotation: Type | None


@record
class YieldFrame:
    """What the body of an if / loop yielded at its top level."""

    kind: str  # "if" | "for" | "while"
    expected: list[Type] | None = None  # loop: iter-arg types
    found: bool = False
    values: list[Expr] = field(default_factory=list)
    targets: list[YieldTarget] | None = None  # None: a bare `pl.yield_(...)`
    span: Span | None = None
    value_spans: list[Span] = field(default_factory=list)
    # The yield was reported as wrong: its names are still defined (with unknown types), and
    # nothing that follows from it is reported again.
    broken: bool = False


@record
class LoweringState:
    """Per-function mutable state: what is in scope, the enclosing yields and loops."""

    scope: dict[str, Binding] = field(default_factory=dict)
    out_of_scope: dict[str, tuple[Span, str]] = field(default_factory=dict)  # name -> (def, hint)
    frames: list[YieldFrame] = field(default_factory=list)
    external_calls: list[str] = field(default_factory=list)
    incore_scopes: int = 0  # depth of `with pl.incore():` blocks around the current statement
    # Loop variables of the constant-bound loops that certainly run the current statement
    # (no if in between): every value they take, (first, last).
    loop_ranges: dict[Var, tuple[int, int]] = field(default_factory=dict)
    inline_depth: int = 0
    tmp_counter: int = 0
    # The loop helpers around the current statement, innermost last (``range``, ``while``...).
    loops: list[str] = field(default_factory=list)
    # Names bound to a list of integers (``offs = [i * 16, 0]``): an op argument that wants a
    # list reads it through the name.
    lists: dict[Var, Expr] = field(default_factory=dict)
    # Where each TaskId is defined -> what produced it (hover on the TaskId says it).
    task_origins: dict[Span, str] = field(default_factory=dict)
    # A tensor's name -> the TaskId name of the submit that last produced it (predicate rule).
    producers: dict[str, str] = field(default_factory=dict)
