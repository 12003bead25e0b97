"""The pass interface: a pass maps a Program to a Program and reports through a PassContext."""

from __future__ import annotations

from typing import ClassVar

from ..diagnostics import Diagnostic, DiagnosticBag
from ..ir.function import Function, Program
from ..ir.span import Span
from ..records import field, record
from .target import DEFAULT_TARGET, Target


@record
class PassContext:
    """What a pass reads besides the IR (the target) and where it reports (the bag).

    ``focus`` is the span of the node a pass is working on; when a pass fails internally the
    manager reports the failure there, the closest place to the cause it knows of.
    """

    diagnostics: DiagnosticBag = field(default_factory=DiagnosticBag)
    target: Target = DEFAULT_TARGET
    focus: Span | None = None
    #: Results of function passes by (pass, function), shared by pipelines run together over
    #: one program so that a function both reach unchanged is handled once (see FunctionPass).
    done: dict[tuple[type, int], FunctionOutcome] | None = None
    #: Other work passes share between those pipelines, each pass under keys of its own.
    shared: dict[object, object] | None = None

    def at(self, span: Span) -> None:
        """Record the node being worked on (unknown spans do not move the focus)."""
        if span.line > 0:  # ``span.is_known`` without a property call: passes call this per node
            self.focus = span

    def error(self, code: str, message: str, span: Span) -> None:
        self.diagnostics.error(code, message, span)


class Pass:
    """A program-to-program transformation. Subclasses set ``name`` and ``description``.

    ``run`` never raises on bad input: problems in the program become diagnostics in
    ``ctx.diagnostics``. (The manager still guards against internal failures.)
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def run(self, program: Program, ctx: PassContext) -> Program:
        raise NotImplementedError


@record(frozen=True, slots=True)
class FunctionOutcome:
    """What a function pass made of one function: the function (kept so that its id, the
    key, is not reused), the result and what it reported."""

    function: Function
    result: Function
    diagnostics: tuple[Diagnostic, ...]


class FunctionPass(Pass):
    """A pass that handles each function on its own: its result and diagnostics depend only on
    the function and the target, so pipelines run together share them (``PassContext.done``)."""

    def run(self, program: Program, ctx: PassContext) -> Program:
        functions = []
        for fn in program.functions:
            ctx.at(fn.span)
            functions.append(self._run_once(fn, ctx))
        if all(new is old for new, old in zip(functions, program.functions, strict=True)):
            return program
        return Program(program.name, tuple(functions), span=program.span)

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        raise NotImplementedError

    def _run_once(self, fn: Function, ctx: PassContext) -> Function:
        if ctx.done is None:
            return self.run_function(fn, ctx)
        key = (type(self), id(fn))
        outcome = ctx.done.get(key)
        if outcome is None:
            # Reported into a bag of its own, so that another pipeline gets exactly what this
            # function reports whatever its own bag holds already.
            own = PassContext(DiagnosticBag(), ctx.target, ctx.focus, shared=ctx.shared)
            try:
                result = self.run_function(fn, own)
            finally:
                ctx.focus = own.focus
            outcome = FunctionOutcome(fn, result, tuple(own.diagnostics.items))
            ctx.done[key] = outcome
        for diagnostic in outcome.diagnostics:
            ctx.diagnostics.add(diagnostic)
        return outcome.result
