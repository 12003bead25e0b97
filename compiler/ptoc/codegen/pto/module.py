"""The PTO back end's entry point: a program after the pass pipeline -> PTO-ISA MLIR text."""

from __future__ import annotations

from ...diagnostics import Diagnostic, DiagnosticBag, Severity
from ...ir.function import Function, Program
from ...ir.span import Span
from ..common import CodegenResult, called_functions, host_function, with_callees
from .function import FUNC_INDENT, generate_function
from .mlir_types import TileBufs
from .versions import DEFAULT_VERSION

# The 2026-08 module header: the architecture PTOAS checks the instructions against (A2/A3,
# the target the passes size buffers for; both PTOAS v0.27 and v0.57 read it).
TARGET_ARCH = "a2a3"
MODULE_HEADER = f'module attributes {{pto.target_arch = "{TARGET_ARCH}"}} {{'


def generate_pto(
    program: Program, function: str | None = None, ptoas_version: str = DEFAULT_VERSION
) -> CodegenResult:
    """MLIR (seed 002) for every function of ``program``, or only the one named ``function``,
    in the forms PTOAS ``ptoas_version`` reads (``versions``).

    Never raises: what cannot be lowered is a diagnostic (E400 no lowering, E401 dynamic
    shape, E403 missing MemRef, E309 bad sync attribute, E900 internal) and an
    ``// error: ...`` line at the spot in the text.
    """
    bag = DiagnosticBag()
    functions: list[Function] = list(program.functions)
    if function is not None:
        wanted = with_callees(program, function)
        functions = [fn for fn in program.functions if fn.name in wanted]
        if not functions:
            bag.error(
                "E203", f"program '{program.name}' has no function '{function}'", program.span
            )
    # Helpers: functions other kernels call (an orchestration or host function's calls launch
    # kernels and programs).
    callees = {name for fn in functions if not fn.orchestrates for name in called_functions(fn)}
    # PTOAS v0.57 makes a function a kernel entry (``extern "C" __global__``) only when it
    # carries ``pto.entry`` (v0.27 also took a module's only function): every kernel does,
    # the helpers they call do not.
    tile_bufs = TileBufs()
    host_errors: list[Diagnostic] = []
    lines = [MODULE_HEADER]
    spans: list[Span | None] = [None]
    for i, fn in enumerate(functions):
        if i:
            lines.append("")
        if fn.orchestrates:
            errors_before = len(bag.items)
            lines.extend(_not_a_kernel(program, fn, bag))
            host_errors += [d for d in bag.items[errors_before:] if d.severity is Severity.ERROR]
            continue
        try:
            helper = fn.name in callees
            fn_lines, fn_spans = generate_function(
                fn, bag, program, helper=helper, tile_bufs=tile_bufs, ptoas_version=ptoas_version
            )
        except Exception as exc:  # a generator bug becomes a diagnostic, never an escape
            message = f"PTO code generator failed on function '{fn.name}': {exc!r}"
            bag.error("E900", message, fn.span)
            lines.append(f"{FUNC_INDENT}// error: {message}")
            continue
        spans.extend([None] * (len(lines) - len(spans)))
        lines.extend(fn_lines)
        spans.extend(fn_spans)
    lines.append("}")
    spans.extend([None] * (len(lines) - len(spans)))
    return CodegenResult("\n".join(lines) + "\n", bag.sorted(), spans, host_errors)


def _not_a_kernel(program: Program, fn: Function, bag: DiagnosticBag) -> list[str]:
    """A host function (a comment and its I010 note) or an Orchestration function: host code,
    not a kernel, the same C++ and kernel configuration as for CCE (the original's PTO back end
    shared them), as comments in the module."""
    if not fn.on_host:
        return _host_comment(program, fn, bag)
    comment, note = host_function(program, fn)
    bag.add(note)
    return [f"{FUNC_INDENT}{line}" for line in comment]


def _host_comment(program: Program, fn: Function, bag: DiagnosticBag) -> list[str]:
    from ..cce.module import generate_host
    from ..common import CodegenError

    try:
        text, diagnostics = generate_host(program, fn)
    except CodegenError as error:
        bag.error(error.code, error.message, error.span if error.span.is_known else fn.span)
        return [f"{FUNC_INDENT}// error: {fn.name}: {error.message}"]
    for diagnostic in diagnostics:
        bag.add(diagnostic)
    return [f"{FUNC_INDENT}// {line}".rstrip() for line in text.rstrip("\n").splitlines()]
