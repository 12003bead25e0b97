"""The PTO back end's entry point: a program after the pass pipeline -> PTO-ISA MLIR text."""

from __future__ import annotations

from ...diagnostics import DiagnosticBag
from ...ir.function import Function, FunctionType, Program
from ..common import CodegenResult
from .function import FUNC_INDENT, generate_function


def generate_pto(program: Program, function: str | None = None) -> CodegenResult:
    """MLIR (seed 002) for every function of ``program``, or only the one named ``function``.

    Never raises: what cannot be lowered is a diagnostic (E400 no lowering, E401 dynamic
    shape, E403 missing MemRef, E309 bad sync attribute, E900 internal) and an
    ``// error: ...`` line at the spot in the text.
    """
    bag = DiagnosticBag()
    functions: list[Function] = list(program.functions)
    if function is not None:
        functions = [fn for fn in program.functions if fn.name == function]
        if not functions:
            bag.error("E203", f"program '{program.name}' has no function '{function}'", program.span)
    lines = ["module {"]
    for i, fn in enumerate(functions):
        if i:
            lines.append("")
        if fn.func_type is FunctionType.Orchestration:
            # host-side code: no kernel, as in the CCE generator
            lines.append(f"{FUNC_INDENT}// {fn.name}: orchestration function, runs on the host (no kernel)")
            continue
        try:
            lines.extend(generate_function(fn, bag))
        except Exception as exc:  # a generator bug becomes a diagnostic, never an escape
            message = f"PTO code generator failed on function '{fn.name}': {exc!r}"
            bag.error("E900", message, fn.span)
            lines.append(f"{FUNC_INDENT}// error: {message}")
    lines.append("}")
    return CodegenResult("\n".join(lines) + "\n", bag.sorted())
