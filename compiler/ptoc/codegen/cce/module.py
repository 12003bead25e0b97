"""``generate_cce``: the CCE back end's entry point. Nothing raises out of it."""

from __future__ import annotations

from ...diagnostics import Diagnostic, DiagnosticBag, Severity
from ...ir.expr import Call, ConstInt, MakeTuple
from ...ir.function import Function, FunctionType, Program
from ...ir.shape import static_shape
from ...ir.span import NO_SPAN, Span
from ...ir.types import TensorType
from ...ops import Role
from ...passes.op_info import op_def, stored_into
from ..common import CodegenError, CodegenResult, calls_in, host_function, with_callees
from .function import CCECodegen, kernel_name
from .ops import has_own_window
from .orchestration import generate_orchestration, kernel_config


def generate_function(func: Function) -> tuple[str, list[Diagnostic]]:
    """One kernel's C++ and diagnostics (see ``generate_kernel``)."""
    generated = generate_kernel(func)
    return generated.text, generated.diagnostics


def generate_kernel(func: Function) -> CodegenResult:
    """One kernel. A TASSIGN that would only restate a GlobalTensor's base is left out unless
    some load/store of the kernel moves that pointer (see ``ops._seat``). The first run
    assumes no pointer moves and records which ones did; only when one of those had a
    TASSIGN left out (and the kernel has such an access) is the kernel generated again,
    knowing them: which pointers move does not depend on which TASSIGNs are left out."""
    first = CCECodegen(reseated=frozenset())
    text = first.generate(func)
    moved = frozenset(first.reseated)
    if not (moved & first.ctx.skipped_seats) or not _moves_a_pointer(func):
        return CodegenResult(text, first.diagnostics, first.line_spans)
    final = CCECodegen(reseated=moved)
    text = final.generate(func)
    return CodegenResult(text, final.diagnostics, final.line_spans)


def _moves_a_pointer(func: Function) -> bool:
    """Whether a load or store moves its tensor's own GlobalTensor: offsets not all the
    constant 0, and no GlobalTensor of its own for the window (``has_own_window``)."""
    return any(_moves(call) for call in calls_in(func.body))


def _moves(call: Call) -> bool:
    op = op_def(call)
    if op is None or op.role not in (Role.LOAD, Role.STORE) or len(call.args) <= 1:
        return False
    offsets = call.args[1]
    elements = offsets.elements if isinstance(offsets, MakeTuple) else (offsets,)
    moved = not all(isinstance(e, ConstInt) and e.value == 0 for e in elements)
    return moved and not _own_window(call, op.role, len(elements))


def _own_window(call: Call, role: Role, offset_count: int) -> bool:
    """Whether code generation gives this access's window a GlobalTensor of its own."""
    tensor = stored_into(call) if role is Role.STORE else call.args[0]
    shapes = call.args[2] if len(call.args) > 2 else None
    if (
        tensor is None
        or not isinstance(tensor.type, TensorType)
        or not isinstance(shapes, MakeTuple)
    ):
        return False
    dims, window = static_shape(tensor.type.shape), static_shape(shapes.elements)
    return dims is not None and window is not None and has_own_window(dims, window, offset_count)


def _functions(
    program_or_function: Program | Function, function: str | None, bag: DiagnosticBag
) -> list[Function]:
    if isinstance(program_or_function, Function):
        candidates = [program_or_function]
    else:
        candidates = list(program_or_function.functions)
    if function is None:
        return candidates
    wanted = (
        {function}
        if isinstance(program_or_function, Function)
        else with_callees(program_or_function, function)
    )
    chosen = [f for f in candidates if f.name in wanted]
    if not chosen:
        bag.error("E203", f"no function named '{function}' to generate", program_or_function.span)
    return chosen


def kernel_name_clashes(functions: list[Function]) -> list[Diagnostic]:
    """E400 on each kernel whose C++ name another kernel of the module has already taken
    (``k`` and ``K`` both make ``runK``): one translation unit cannot hold both."""
    seen: dict[str, Function] = {}
    found: list[Diagnostic] = []
    for func in functions:
        if func.orchestrates:
            continue  # host code: no kernel name
        name = kernel_name(func.name)
        first = seen.setdefault(name, func)
        if first is not func:
            message = (
                f"functions '{first.name}' and '{func.name}' would both be the C++ kernel "
                f"'{name}'; rename one"
            )
            found.append(Diagnostic("E400", Severity.ERROR, message, func.span))
    return found


def generate_host(program: Program | None, func: Function) -> tuple[str, list[Diagnostic]]:
    """An orchestration function: its host C++ and, as a comment after it, the kernel
    configuration file (``kernel_config.py``) that goes with it."""
    result = generate_orchestration(program, func)
    config = kernel_config(func, result.kernels)
    commented = [f"// {line}" if line else "//" for line in config.rstrip().splitlines()]
    text = result.code + "\n// ---- kernel_config.py ----\n" + "\n".join(commented) + "\n"
    return text, result.diagnostics


def generate_cce(
    program_or_function: Program | Function, function: str | None = None
) -> CodegenResult:
    """C++ for each function (one kernel each, separated by a blank line), or only for
    ``function``. Orchestration functions run on the host: they get host C++ on the PTO2
    runtime and the kernel configuration (see ``orchestration/``)."""
    bag = DiagnosticBag()
    kernels: list[str] = []
    spans: list[Span | None] = []
    host_errors: list[Diagnostic] = []
    functions = _functions(program_or_function, function, bag)
    for clash in kernel_name_clashes(functions):
        bag.add(clash)
    if bag.has_errors:
        return CodegenResult("", bag.items, [])
    for func in functions:
        program = program_or_function if isinstance(program_or_function, Program) else None
        kernel_spans: list[Span | None] = []
        errors_before = len(bag.items)
        try:
            if func.on_host:
                comment, note = host_function(program, func)
                text, diagnostics = "\n".join(comment) + "\n", [note]
            elif func.func_type is FunctionType.Orchestration:
                text, diagnostics = generate_host(program, func)
            else:
                generated = generate_kernel(func)
                text, diagnostics = generated.text, generated.diagnostics
                kernel_spans = generated.line_spans
        except CodegenError as error:
            span = error.span if error.span.is_known else func.span
            bag.error(error.code, error.message, span)
            text, diagnostics = f"// error: {func.name}: {error.message}\n", []
        except Exception as error:  # noqa: BLE001 - the compiler never raises to its caller
            span = func.span if func.span.is_known else NO_SPAN
            bag.error("E900", f"internal error generating CCE for '{func.name}': {error!r}", span)
            text, diagnostics = f"// error: internal error in {func.name}\n", []
        for diagnostic in diagnostics:
            bag.add(diagnostic)
        if func.func_type is FunctionType.Orchestration:
            host_errors += [d for d in bag.items[errors_before:] if d.severity is Severity.ERROR]
        if kernels:
            spans.append(None)  # the blank line "\n".join leaves between kernels
        lines = text.count("\n")
        spans.extend(kernel_spans[:lines])
        if len(kernel_spans) < lines:
            spans.extend([None] * (lines - len(kernel_spans)))
        kernels.append(text)
    return CodegenResult("\n".join(kernels), bag.items, spans, host_errors)
