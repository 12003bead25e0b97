"""Live previews: the compile driver's result for one document, shaped for `ptols/preview`.

The compiling is ``ptoc.driver``'s (the same call ``ptoc compile`` makes, so a preview is
byte for byte what the command line prints); this module only chooses what the client sees.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from ptoc import driver
from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import ModuleAnalysis
from ptoc.ir.span import Span


@dataclass
class PreviewResult:
    language: str
    content: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Per line of ``content``, the source span it came from (``ptols/sourceMap``).
    line_spans: list[Span | None] = field(default_factory=list)
    #: Of ``diagnostics``, the sync checker's findings on PTOAS's C++ (``pto-cpp``).
    sync: list[Diagnostic] = field(default_factory=list)


def request_problem(analysis: ModuleAnalysis, target: str, function: str | None) -> str | None:
    """Why a preview of ``target`` / ``function`` cannot be made (None: it can): an unknown
    target, or a function the document does not define, is the request's mistake, answered as
    an error rather than as empty content."""
    try:
        driver.check_target(target)
    except ValueError as error:
        return str(error)
    if function is None:
        return None
    names = [fn.name for program in analysis.all_programs() for fn in program.functions]
    if function in names:
        return None
    if function in analysis.jit_functions:
        return (
            f"the @pl.jit function '{function}' has no specialisation to show: no call in the "
            "file specialises it without an error (see the document's diagnostics)"
        )
    close = difflib.get_close_matches(function, names, n=1)
    hint = (
        f"; did you mean '{close[0]}'?"
        if close
        else (f" (it defines {', '.join(sorted(set(names)))})" if names else " (it defines none)")
    )
    return f"no function '{function}' in this document{hint}"


def compile_preview(
    analysis: ModuleAnalysis,
    target: str,
    function: str | None,
    pipeline: str | None,
    strict: bool = False,
    specialisation: int | None = None,
) -> PreviewResult:
    """The driver's text for ``target`` (``pipeline`` None: the target's default; ``strict``:
    annotation warnings are errors, as ``ptoc compile`` makes them; ``specialisation``: each
    @pl.jit kernel's N-th, as ``--specialise N``). Front-end warnings are already published
    with the document, so only its errors are repeated here."""
    if specialisation is not None:
        analysis = analysis.specialised(specialisation)
    # PTO MLIR comes with PTOAS's verdict when PTOAS is found (as ``ptoc compile --verify``)
    ptoas = driver.available_ptoas() if target in ("pto", "pto-cpp") else None
    result = driver.compile_source(analysis, target, function, pipeline, strict=strict, ptoas=ptoas)
    errors = [d for d in result.front_end if d.severity is Severity.ERROR]
    sync = sync_findings(result)
    found = errors + result.back_end + sync
    return PreviewResult(result.language, result.text, found, result.line_spans, sync)


def sync_findings(result: driver.CompileResult) -> list[Diagnostic]:
    """On a ``pto-cpp`` preview, what the synchronisation checker finds in the sync PTOAS
    inserted into the C++ shown (and in the sync a kernel writes itself), on the kernel's
    lines: ``ptoc compile --target pto-cpp --verify-sync``'s findings. The C++ is read from
    the preview's own PTOAS run (remembered per MLIR text): PTOAS does not run again."""
    if result.target != "pto-cpp" or result.ptoas is None or result.has_errors:
        return []
    return driver.verify_sync(result)
