"""A kernel through the PTO route: ``ptoc --target pto`` -> PTOAS -> C++, made callable by the
simulator harness (``harness.translation_unit``), which calls ``void runX(__gm__ int64_t* args)``.

PTOAS writes ``__global__ AICORE void f(__gm__ float* v1, int64_t v2, __gm__ int64_t* v3)``:
one C parameter per kernel parameter, then one pointer per scalar result (PTOAS entry
functions return nothing; ``docs/codegen-pto.md``). The launcher unpacks the harness's 64-bit
slots into those parameters and points each result pointer at its result slot.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..diagnostics import Diagnostic
from ..ir.function import Program

_SIGNATURE = r"AICORE\s+(?P<result>[\w:<>\s\*]+?)\s+{name}\((?P<params>[^)]*)\)\s*\{{"
_INCLUDE = re.compile(r'^#include "pto/pto-inst.hpp"\n', re.M)


class LauncherError(Exception):
    """PTOAS's C++ has no function of the kernel's name (or an unreadable signature)."""


def pto_kernel(program: Program, function: str, ptoas: Path) -> tuple[str | None, list[Diagnostic]]:
    """The C++ ``ptoc compile --target pto-cpp --function F`` prints (through the driver: the
    program narrowed to F and its callees, the ``ptoas`` pipeline, the PTO generator, PTOAS),
    with a launcher for the harness; None when ptoc or PTOAS reports an error."""
    from .. import driver

    result = driver.CompileResult(
        "pto-cpp", driver.default_pipeline("pto-cpp"), function, "pl", ptoas=ptoas
    )
    narrowed = driver.narrow(program, function)
    output = driver.compile_program(narrowed, result, program.span.file)
    if result.has_errors or output.pipeline is None or not output.text:
        return None, result.diagnostics
    from ..codegen.pto.emitter import symbol_name

    parameters = len(narrowed.function(function).params)  # type: ignore[union-attr]
    cpp = with_launcher(output.text, symbol_name(function), parameters)
    return cpp, result.diagnostics


def with_launcher(cpp: str, function: str, parameters: int) -> str:
    """PTOAS's C++ plus ``void run_F(__gm__ int64_t* args)``: slot ``i`` is parameter ``i``
    (a pointer, or a scalar's bits in its low bytes); slots after the ``parameters`` are the
    result slots the harness reserves, which the result pointers (or a returned value) fill."""
    match = re.search(_SIGNATURE.format(name=re.escape(function)), cpp)
    if match is None:
        raise LauncherError(f"PTOAS's C++ defines no AICORE function '{function}'")
    declared = [p.strip() for p in match["params"].split(",") if p.strip()]
    types = [p.rsplit(" ", 1)[0] for p in declared]
    arguments: list[str] = []
    for index, type_ in enumerate(types):
        if index >= parameters:  # a result pointer: the next result slot
            arguments.append(f"reinterpret_cast<{type_}>(&args[{index}])")
        elif type_.endswith("*"):
            arguments.append(f"reinterpret_cast<{type_}>(args[{index}])")
        else:
            arguments.append(f"ptoc_slot<{type_}>(args[{index}])")
    call = f"{function}({', '.join(arguments)})"
    result = match["result"].replace("__global__", "").strip()
    if result != "void":  # a function PTOAS keeps as a value-returning one
        call = f"const {result} ptoc_result = {call};\n"
        call += f"  __builtin_memcpy(&args[{parameters}], &ptoc_result, sizeof ptoc_result)"
    launcher = (
        "template <typename T>\n"
        "static inline T ptoc_slot(int64_t bits) {\n"
        "  T value;\n"
        "  __builtin_memcpy(&value, &bits, sizeof value);\n"
        "  return value;\n"
        "}\n\n"
        f"void run_{function}(__gm__ int64_t* args) {{\n  {call};\n}}\n"
    )
    return _cores(cpp) + _INCLUDE.sub("", cpp).rstrip() + "\n\n" + launcher


def _cores(cpp: str) -> str:
    """The simulator is both cores: a kernel of one kind (``pto.kernel_kind``) has its body
    under that core's macro (``#if defined(__DAV_VEC__)``), defined here after pto-isa's
    headers, which the harness includes first."""
    return "".join(
        f"#define {macro} 1\n"
        for macro in ("__DAV_CUBE__", "__DAV_VEC__")
        if f"defined({macro})" in cpp
    )
