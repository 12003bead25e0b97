"""Whole modules: a program (``@pl.program`` class) or a standalone ``@pl.function``.

Layout of a printed program::

    # pypto.program: NAME
    import pypto.language as pl

    N = pl.dynamic("N")          # one line per symbolic dimension the program mentions

    @pl.program
    class NAME:
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, a: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
            ...
"""

from __future__ import annotations

from ..editions import Edition
from ..ir.dsl_enums import Level, Role
from ..ir.expr import Var
from ..ir.function import Function, FunctionType, ParamDirection, Program
from ..ir.span import Span
from .black_format import DEFAULT_LINE_LENGTH, format_printed_mapped
from .context import FreeNames, bound_names
from .order import callee_first
from .spans import indented, tag
from .statements import INDENT, StmtPrinter


def is_host_callback(fn: Function) -> bool:
    """A host callback's body is ordinary Python the IR does not hold (spec §1.2)."""
    level, role = fn.level, fn.role
    return isinstance(level, Level) and level.value >= Level.HOST.value and role is Role.SubWorker


class ModulePrinter:
    def __init__(
        self,
        prefix: str = "pl",
        line_length: int = DEFAULT_LINE_LENGTH,
        edition: Edition = Edition.V2026_03,
    ) -> None:
        self.prefix = prefix
        self.edition = edition
        self.line_length = line_length
        self.free = FreeNames()
        self.spans: list[Span | None] = []  # per line of the last module printed

    def program(self, program: Program) -> str:
        name = program.name or "Program"
        methods: list[str] = []
        for fn in callee_first(program.functions):
            if methods:
                methods.append("")
            methods += self.function(fn, method=True)
        lines = [
            f"@{self.prefix}.program",
            f"class {name}:",
            *(indented(INDENT, line) for line in methods or ["pass"]),
        ]
        return self.module([f"# pypto.program: {name}"], lines)

    def program_mapped(self, program: Program) -> tuple[str, list[Span | None]]:
        """``program``'s text and, per line, the span of the statement or function printed
        there (the source map of IR targets)."""
        text = self.program(program)
        return text, self.spans

    def standalone_function(self, fn: Function) -> str:
        return self.module([], self.function(fn, method=False))

    def module(self, header: list[str], body: list[str]) -> str:
        """Header comment, import, symbolic dimensions (known only once the body is
        printed), then the body, with black's blank lines."""
        text, self.spans = format_printed_mapped(self.module_lines(header, body), self.line_length)
        return text

    def module_lines(self, header: list[str], body: list[str]) -> list[str]:
        lines = [*header, f"import pypto.language as {self.prefix}"]
        if any("pld." in line for line in body):  # distributed PyPTO's ops and types
            lines.append("import pypto.language.distributed as pld")
        dims = [f'{name} = {self.prefix}.dynamic("{name}")' for name in self.free.names]
        if dims:
            lines += ["", *dims]
        return [*lines, "", "", *body]

    def function(self, fn: Function, *, method: bool) -> list[str]:
        self.free.bound = bound_names(fn)
        printer = StmtPrinter(self.prefix, self_calls=method, free=self.free, edition=self.edition)
        callback = is_host_callback(fn)
        params = ["self"] if method and not callback else []
        params += [self.parameter(printer, p, fn.direction(i)) for i, p in enumerate(fn.params)]
        header = f"def {fn.name}({', '.join(params)}){self.returns(printer, fn)}:"
        body = [INDENT + "..."] if callback else printer.block(fn.body)
        return [tag(self.decorator(fn), fn.span), tag(header, fn.span), *body]

    def decorator(self, fn: Function) -> str:
        options = []
        if fn.func_type is not FunctionType.Opaque:
            options.append(f"type={self.prefix}.FunctionType.{fn.func_type.name}")
        for key, value in (("level", fn.level), ("role", fn.role)):
            if value is not None:
                options.append(f"{key}={self.prefix}.{type(value).__name__}.{value.name}")
        if not options:
            return f"@{self.prefix}.function"
        return f"@{self.prefix}.function({', '.join(options)})"

    def parameter(self, printer: StmtPrinter, param: Var, direction: ParamDirection) -> str:
        if direction is ParamDirection.In:
            return printer.annotated(param)
        inner = printer.types.type(param.type)
        return f"{param.name}: {self.prefix}.{direction.value}[{inner}]"

    def returns(self, printer: StmtPrinter, fn: Function) -> str:
        types = [printer.types.type(t) for t in fn.return_types]
        if not types:
            return ""
        if len(types) == 1:
            return f" -> {types[0]}"
        return f" -> tuple[{', '.join(types)}]"
