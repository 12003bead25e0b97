"""Live previews: the generated C++ / MLIR, or the IR after any pass, for one document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import ModuleAnalysis
from ptoc.ir.expr import Call, GlobalVar
from ptoc.ir.function import Program
from ptoc.ir.stmt import AssignStmt
from ptoc.ir.visitor import IRVisitor

LANGUAGE = {"cce": "cpp", "pto": "mlir", "ir": "python"}


@dataclass
class PreviewResult:
    language: str
    content: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    buffers: dict[Any, Any] = field(default_factory=dict)


class _Callees(IRVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Call(self, node: Call) -> None:
        if isinstance(node.callee, GlobalVar):
            self.names.append(node.callee.name)
        self.generic_visit(node)


class _Definitions(IRVisitor):
    """Definition span -> type of every assigned variable."""

    def __init__(self) -> None:
        self.types: dict[Any, Any] = {}

    def visit_AssignStmt(self, node: AssignStmt) -> None:
        self.types[node.var.span] = node.var.type
        self.generic_visit(node)


def narrow(program: Program, function: str) -> Program:
    """The program reduced to one function and what it calls: the passes then work on just
    what the preview shows (a 2,000-line program compiles one kernel, not all of them)."""
    wanted: list[str] = []
    pending = [function]
    while pending:
        name = pending.pop()
        fn = program.function(name)
        if fn is None or name in wanted:
            continue
        wanted.append(name)
        callees = _Callees()
        callees.visit(fn)
        pending.extend(callees.names)
    kept = tuple(fn for fn in program.functions if fn.name in wanted)
    return Program(program.name, kept, span=program.span)


def select(programs: list[Program], function: str | None) -> list[Program]:
    if function is None:
        return programs
    return [narrow(p, function) for p in programs if p.function(function) is not None]


def _generator(target: str) -> Any:
    """The code generator of a target (None: not a code target)."""
    if target == "pto":
        from ptoc.codegen.pto import generate_pto

        return generate_pto
    if target == "cce":
        from ptoc.codegen.cce import generate_cce

        return generate_cce
    return None


def compile_preview(analysis: ModuleAnalysis, target: str, function: str | None, pipeline: str) -> PreviewResult:
    """Run the pipeline and the requested generator. Never raises: failures are diagnostics."""
    language = LANGUAGE.get(target, "python")
    errors = [d for d in analysis.diagnostics if d.severity is Severity.ERROR]
    if errors:
        return PreviewResult(language, "", errors)
    programs = select(analysis.all_programs(), function)
    if not programs:
        return PreviewResult(language, "", [])
    from ptoc.passes import run_pipeline
    from ptoc.printer import print_program

    texts: list[str] = []
    diagnostics: list[Diagnostic] = []
    for program in programs:
        result = run_pipeline(program, pipeline)
        diagnostics.extend(result.diagnostics)
        if target.startswith("pass:"):
            wanted = target.split(":", 1)[1]
            snapshot = next((p for name, p in result.snapshots if name == wanted), None)
            if snapshot is None:
                texts.append(f"# pass '{wanted}' is not in the '{pipeline}' pipeline")
            else:
                texts.append(print_program(snapshot, prefix=analysis.prefix))
        elif not any(d.severity is Severity.ERROR for d in result.diagnostics):
            generator = _generator(target)
            if target == "ir":
                texts.append(print_program(result.program, prefix=analysis.prefix))
            elif generator is not None:
                generated = generator(result.program, function=function)
                diagnostics.extend(generated.diagnostics)
                texts.append(generated.text)
    if any(d.severity is Severity.ERROR for d in diagnostics):
        return PreviewResult(language, "", diagnostics)
    return PreviewResult(language, "\n".join(t.rstrip("\n") + "\n" for t in texts if t), diagnostics)


def buffer_types(analysis: ModuleAnalysis, pipeline: str, memo: dict[Any, Any] | None = None) -> dict[Any, Any]:
    """Definition span -> type after the pipeline (tiles then carry buffer and address).

    Each function runs through the pipeline alone (with its callees); ``memo`` keeps the result
    per function so that after an edit only the changed function is compiled again.
    """
    from ptoc.ir.equality import structural_hash
    from ptoc.passes import run_pipeline

    found: dict[Any, Any] = {}
    memo = memo if memo is not None else {}
    for program in analysis.all_programs():
        for fn in program.functions:
            key = (program.name, fn.name, fn.span, structural_hash(fn), pipeline)
            spans = memo.get(key)
            if spans is None:
                collect = _Definitions()
                compiled = run_pipeline(narrow(program, fn.name), pipeline).program.function(fn.name)
                if compiled is not None:
                    collect.visit(compiled)
                spans = memo[key] = collect.types
            found.update(spans)
    return found
