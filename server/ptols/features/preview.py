"""Live previews: the compile driver's result for one document, shaped for `ptols/preview`.

The compiling is ``ptoc.driver``'s (the same call ``ptoc compile`` makes, so a preview is
byte for byte what the command line prints); this module only chooses what the client sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptoc import driver
from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import ModuleAnalysis


@dataclass
class PreviewResult:
    language: str
    content: str
    diagnostics: list[Diagnostic] = field(default_factory=list)


def compile_preview(
    analysis: ModuleAnalysis, target: str, function: str | None, pipeline: str | None,
    strict: bool = False,
) -> PreviewResult:
    """The driver's text for ``target`` (``pipeline`` None: the target's default; ``strict``:
    annotation warnings are errors, as ``ptoc compile`` makes them). Front-end warnings are
    already published with the document, so only its errors are repeated here."""
    # PTO MLIR comes with PTOAS's verdict when PTOAS is found (as ``ptoc compile --verify``)
    ptoas = driver.available_ptoas() if target in ("pto", "pto-cpp") else None
    result = driver.compile_source(analysis, target, function, pipeline, strict=strict,
                                   ptoas=ptoas)
    errors = [d for d in result.front_end if d.severity is Severity.ERROR]
    return PreviewResult(result.language, result.text, errors + result.back_end)
