"""Live previews: the generated C++ / MLIR, or the IR after any pass, for one document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import ModuleAnalysis
from ptoc.ir.function import Program

LANGUAGE = {"cce": "cpp", "pto": "mlir", "ir": "python"}


@dataclass
class PreviewResult:
    language: str
    content: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    buffers: dict[Any, Any] = field(default_factory=dict)


def select(programs: list[Program], function: str | None) -> list[Program]:
    if function is None:
        return programs
    chosen = []
    for program in programs:
        if program.function(function) is not None:
            chosen.append(program)
    return chosen


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
        after = None
        if target.startswith("pass:"):
            wanted = target.split(":", 1)[1]
            result = run_pipeline(program, pipeline)
            diagnostics.extend(result.diagnostics)
            snapshot = next((p for name, p in result.snapshots if name == wanted), None)
            if snapshot is None:
                diagnostics_text = f"# pass '{wanted}' is not in the '{pipeline}' pipeline"
                texts.append(diagnostics_text)
                continue
            texts.append(print_program(snapshot, prefix=analysis.prefix))
            continue
        result = run_pipeline(program, pipeline)
        diagnostics.extend(result.diagnostics)
        after = result.program
        if any(d.severity is Severity.ERROR for d in result.diagnostics):
            continue
        if target == "ir":
            texts.append(print_program(after, prefix=analysis.prefix))
        elif target == "cce":
            from ptoc.codegen.cce import generate_cce

            generated = generate_cce(after, function=function)
            diagnostics.extend(generated.diagnostics)
            texts.append(generated.text)
        elif target == "pto":
            from ptoc.codegen.pto import generate_pto

            generated = generate_pto(after, function=function)
            diagnostics.extend(generated.diagnostics)
            texts.append(generated.text)
    if any(d.severity is Severity.ERROR for d in diagnostics):
        return PreviewResult(language, "", diagnostics)
    return PreviewResult(language, "\n".join(t.rstrip("\n") + "\n" for t in texts if t), diagnostics)


def buffer_types(analysis: ModuleAnalysis, pipeline: str) -> dict[Any, Any]:
    """Definition span -> type after the pipeline (tiles then carry buffer and address)."""
    from ptoc.ir.stmt import AssignStmt
    from ptoc.ir.visitor import IRVisitor
    from ptoc.passes import run_pipeline

    found: dict[Any, Any] = {}

    class Collect(IRVisitor):
        def visit_AssignStmt(self, node: AssignStmt) -> None:
            found[node.var.span] = node.var.type
            self.generic_visit(node)

    for program in analysis.all_programs():
        result = run_pipeline(program, pipeline)
        Collect().visit(result.program)
    return found
