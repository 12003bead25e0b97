"""Reading a function's signature: its decorator's options, parameters and return annotation.
Its diagnostics and occurrences are returned with it, so it can be cached as a unit."""

from __future__ import annotations

import ast
from enum import Enum

from ..diagnostics import Diagnostic, DiagnosticBag
from ..ir.dsl_enums import Level, Role, dsl_enum_member
from ..ir.function import FunctionType, ParamDirection
from ..ir.span import Span
from ..ir.types import TupleType, Type
from ..records import record
from .analysis import Occurrence, OccurrenceKind, SymbolIndex
from .annotations import TypeResolver
from .context import FunctionSignature, ModuleEnv, ParamInfo
from .names import attribute_chain
from .source import SourceText


@record(frozen=True)
class Definition:
    """A function definition and what its place says about it (a cache key: the segment cache
    keeps an unchanged definition's node, and nodes compare by identity)."""

    fn: ast.FunctionDef
    decorator: ast.expr | None  # its @pl.function, if any
    program: str | None = None  # the program it belongs to
    is_method: bool = False  # takes `self` first
    default_strict: bool = False  # its program's strict_ssa


@record(frozen=True)
class ReadSignature:
    signature: FunctionSignature
    diagnostics: tuple[Diagnostic, ...]
    occurrences: tuple[Occurrence, ...]


def decorator_name(node: ast.expr) -> str | None:
    """`pl.function`, `function`, `pl.function(...)` -> "function" (recognised by name only)."""
    target = node.func if isinstance(node, ast.Call) else node
    chain = attribute_chain(target)
    return chain[-1] if chain else None


def decorator_keyword(node: ast.expr, key: str) -> ast.expr | None:
    if isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg == key:
                return keyword.value
    return None


def strict_flag(decorator: ast.expr | None) -> bool:
    value = decorator_keyword(decorator, "strict_ssa") if decorator is not None else None
    return isinstance(value, ast.Constant) and value.value is True


def placement(decorator: ast.expr | None) -> tuple[Enum | None, Enum | None]:
    """2026-08's ``level=pl.Level.X`` and ``role=pl.Role.Y`` of a function decorator."""
    found: list[Enum | None] = []
    for key in ("level", "role"):
        node = decorator_keyword(decorator, key) if decorator is not None else None
        chain = attribute_chain(node) if node is not None else None
        found.append(dsl_enum_member(chain[-2], chain[-1]) if chain and len(chain) >= 2 else None)
    return found[0], found[1]


def is_callback(level: Enum | None, role: Enum | None) -> bool:
    return isinstance(level, Level) and level.value >= Level.HOST.value and role is Role.SubWorker


def opaque_body(
    fn: ast.FunctionDef, decorator: ast.expr | None, level: Enum | None, role: Enum | None
) -> str | None:
    """Why the function's body is not DSL to analyse (None: it is)."""
    if is_callback(level, role):
        return "a host callback (level HOST or above, role SubWorker): ordinary Python"
    if decorator is not None and decorator_keyword(decorator, "external_source") is not None:
        return "implemented in the file named by external_source="
    body = [
        s
        for s in fn.body
        if not (
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Constant)
            and isinstance(s.value.value, str)
        )
    ]
    if len(body) == 1 and isinstance(body[0], ast.Expr):
        value = body[0].value
        if isinstance(value, ast.Constant) and value.value is Ellipsis:
            return "its body is `...`: bound at run time"
    return None


def name_span(source: SourceText, node: ast.FunctionDef | ast.ClassDef, keyword: str) -> Span:
    """The name in `def name` / `class name`."""
    line = node.lineno
    text = source.line(line)
    index = text.find(node.name, text.find(keyword) + len(keyword) if keyword in text else 0)
    if index < 0:
        return source.span(node)
    return Span(source.path, line, index, line, index + len(node.name))


class SignatureReader:
    """One signature being read; it reports into its own bag and index."""

    def __init__(self, env: ModuleEnv) -> None:
        self.env = env
        self.source = env.source
        self.bag = DiagnosticBag()
        self.index = SymbolIndex()
        self.types: TypeResolver = env.type_resolver(self.bag)

    def read(self, definition: Definition) -> ReadSignature:
        fn, decorator, program = definition.fn, definition.decorator, definition.program
        func_type = FunctionType.Opaque
        type_node = decorator_keyword(decorator, "type") if decorator is not None else None
        if type_node is not None:
            chain = attribute_chain(type_node)
            last = chain[-1] if chain else None
            if last is not None and last in FunctionType.__members__:
                func_type = FunctionType[last]
        strict = strict_flag(decorator) or definition.default_strict
        level, role = placement(decorator)
        opaque = opaque_body(fn, decorator, level, role)
        # A host callback is ordinary Python and takes no ``self`` (spec §1.2).
        callback = is_callback(level, role)
        params = self.params(fn, definition.is_method and not callback, typed=not callback)
        return_types, return_span = self.returns(fn)
        fn_name_span = name_span(self.source, fn, "def")
        sig = FunctionSignature(
            fn.name,
            fn,
            params,
            return_types,
            return_span,
            fn_name_span,
            self.source.span(fn),
            func_type,
            strict,
            program,
            definition.is_method,
            level,
            role,
            opaque,
        )
        self.index.add(
            Occurrence(
                fn_name_span,
                fn.name,
                OccurrenceKind.FUNCTION,
                sig.result_type,
                definition=fn_name_span,
                is_definition=True,
                detail=sig.describe(),
            )
        )
        return ReadSignature(sig, tuple(self.bag.items), tuple(self.index.occurrences))

    def params(self, fn: ast.FunctionDef, is_method: bool, typed: bool = True) -> list[ParamInfo]:
        """The DSL parameters (not ``self``); ``typed``: each must be annotated."""
        args = list(fn.args.args)
        if is_method:
            if args and args[0].arg == "self":
                args = args[1:]
            else:
                self.bag.error(
                    "E012",
                    f"method '{fn.name}' of a program must take `self` first",
                    name_span(self.source, fn, "def"),
                )
        for extra in (fn.args.vararg, fn.args.kwarg):
            if extra is not None:
                self.bag.error(
                    "E102", "*args / **kwargs parameters are not supported", self.source.span(extra)
                )
        return [self.param(arg, typed) for arg in args + list(fn.args.kwonlyargs)]

    def param(self, arg: ast.arg, typed: bool = True) -> ParamInfo:
        span = self.source.span(arg)
        arg_span = Span(span.file, span.line, span.column, span.line, span.column + len(arg.arg))
        if arg.annotation is None and not typed:
            return ParamInfo(arg.arg, None, ParamDirection.In, span, arg_span, None)
        if arg.annotation is None:
            self.bag.error("E100", f"Parameter '{arg.arg}' is missing a type annotation", arg_span)
            return ParamInfo(arg.arg, None, ParamDirection.In, span, arg_span, None)
        annotation = self.types.param(arg.annotation)
        annotation_span = self.source.span(arg.annotation)
        if annotation.type is not None:
            self.index.add(
                Occurrence(annotation_span, arg.arg, OccurrenceKind.TYPE, annotation.type)
            )
        return ParamInfo(
            arg.arg, annotation.type, annotation.direction, span, arg_span, annotation_span
        )

    def returns(self, fn: ast.FunctionDef) -> tuple[list[Type] | None, Span | None]:
        """The return types (None: the annotation could not be read) and the annotation's span."""
        if fn.returns is None:
            return [], None
        return_span = self.source.span(fn.returns)
        if isinstance(fn.returns, ast.Constant) and fn.returns.value is None:
            return [], return_span
        resolved = self.types.resolve(fn.returns, allow_tuple=True)
        if resolved is None:
            return None, return_span
        self.index.add(Occurrence(return_span, fn.name, OccurrenceKind.TYPE, resolved))
        types = list(resolved.types) if isinstance(resolved, TupleType) else [resolved]
        return types, return_span
