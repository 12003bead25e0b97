"""What ``ptoc run`` does, as functions the tests share: the kernel's C++, the simulator's
arguments and results, the reference interpreter's results, and their comparison."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..ir.function import Function, Program
from ..ir.span import Span
from ..ir.types import ScalarType, TensorType
from ..records import field, record
from .compare import Comparison, compare
from .simulator import (
    SimArgument,
    SimRun,
    from_device_bytes,
    scalar_slot,
    slot_value,
    to_device_bytes,
)

if TYPE_CHECKING:
    import numpy as np


@record
class Results:
    """Final tensor contents by parameter name, and the scalar results by return position."""

    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    returns: dict[int, np.ndarray] = field(default_factory=dict)


def cce_kernel(program: Program, function: str) -> tuple[str | None, list[Diagnostic]]:
    """The C++ ``ptoc compile --target cce --function F`` prints (through the driver: the
    program narrowed to F and its callees, the ``default`` pipeline, the CCE generator), or
    None when the pipeline or the generator reports an error."""
    text, _, diagnostics = cce_kernel_lines(program, function)
    return text, diagnostics


def cce_kernel_lines(
    program: Program, function: str
) -> tuple[str | None, list[Span | None], list[Diagnostic]]:
    """``cce_kernel`` with the source span of each line of the C++ (None: not known)."""
    from .. import driver

    result = driver.CompileResult("cce", driver.default_pipeline("cce"), function, "pl")
    output = driver.compile_program(driver.narrow(program, function), result, program.span.file)
    if result.has_errors or output.pipeline is None:
        return None, [], result.diagnostics
    return output.text, list(output.line_spans), result.diagnostics


def debug_translation_unit(text: str, spans: Sequence[Span | None], generated: Path) -> str:
    """The simulator's translation unit for one kernel (``harness.translation_unit``) with
    ``#line`` directives (``ptoc run --debug``): the kernel's lines name its source file, by
    absolute path (the compiler runs in a private folder), the harness's lines their own lines
    of ``generated``, where the caller writes the result."""
    from ..line_directives import cpp_line_directives
    from .harness import translation_unit

    source = translation_unit([text])
    start = source.split("\n").index("namespace ptoc_k0 {") + 1
    kernel = [
        span._replace(file=os.path.abspath(span.file)) if span is not None else None
        for span in spans[: len(text.rstrip().split("\n"))]
    ]
    marked, _ = cpp_line_directives(source, [*[None] * start, *kernel], str(generated))
    return marked


def tensor_level(program: Program, function: str) -> tuple[Program, Function]:
    """The program and function a kernel is run as on the simulator. A tensor-level kernel
    gains Out parameters in ConvertTensorToBlockOps (its results are stored there): then the
    kernel is run, and the reference interpreter computes, on the IR after that pass, with
    those parameters (tests/interp checks that the passes keep the original's results)."""
    from .. import driver

    upto = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes", "ConvertTensorToBlockOps"]
    original = program.function(function)
    assert original is not None
    converted = driver.run_pipeline(driver.narrow(program, function), upto)
    after = converted.program.function(function)
    if converted.has_errors or after is None or len(after.params) == len(original.params):
        return program, original
    return converted.program, after


def sim_arguments(function: Function, inputs: dict[str, np.ndarray]) -> list[SimArgument]:
    arguments: list[SimArgument] = []
    for param in function.params:
        type_ = param.type
        assert isinstance(type_, (ScalarType, TensorType))  # generate_inputs checked it
        if isinstance(type_, ScalarType):
            arguments.append(SimArgument(scalar_bits=scalar_slot(inputs[param.name], type_.dtype)))
        else:
            arguments.append(SimArgument(tensor=to_device_bytes(inputs[param.name], type_.dtype)))
    return arguments


def sim_results(function: Function, inputs: dict[str, np.ndarray], run: SimRun) -> Results:
    results = Results()
    for index, param in enumerate(function.params):
        if isinstance(param.type, TensorType) and index in run.outputs:
            shape = inputs[param.name].shape
            data = from_device_bytes(run.outputs[index], param.type.dtype, shape)
            results.outputs[param.name] = data
    for position, type_ in enumerate(function.return_types):
        if isinstance(type_, ScalarType) and position < len(run.returns):
            results.returns[position] = slot_value(run.returns[position], type_.dtype)
    return results


def reference_results(
    program: Program, function: Function, inputs: dict[str, np.ndarray]
) -> Results:
    """The reference interpreter's results on ``inputs`` (scalars passed as numpy scalars)."""
    import numpy as np

    from ..interp import run_function

    arguments = {
        name: (value[()] if value.ndim == 0 else value.copy()) for name, value in inputs.items()
    }
    result = run_function(program, function.name, arguments)
    results = Results({name: np.asarray(value) for name, value in result.outputs.items()})
    for position, type_ in enumerate(function.return_types):
        if isinstance(type_, ScalarType) and position < len(result.returns):
            results.returns[position] = np.asarray(result.returns[position])
    return results


def compare_results(function: Function, actual: Results, expected: Results) -> list[Comparison]:
    """One comparison per tensor parameter, then per scalar result."""
    comparisons: list[Comparison] = []
    for param in function.params:
        if isinstance(param.type, TensorType) and param.name in expected.outputs:
            missing = param.name not in actual.outputs
            got = (
                expected.outputs[param.name] * float("nan")
                if missing
                else actual.outputs[param.name]
            )
            comparisons.append(
                compare(param.name, param.type.dtype, got, expected.outputs[param.name])
            )
    for position, type_ in enumerate(function.return_types):
        if isinstance(type_, ScalarType) and position in expected.returns:
            got_value = actual.returns.get(position)
            want = expected.returns[position]
            comparisons.append(
                compare(
                    f"return {position}",
                    type_.dtype,
                    want * float("nan") if got_value is None else got_value,
                    want,
                )
            )
    return comparisons


def describe_failure(run: SimRun) -> str:
    """Why a simulator run produced no results (an assertion, a crash, a timeout)."""
    tail = "\n".join(run.stderr.strip().splitlines()[-12:])
    code = run.returncode
    what = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    return f"the simulated kernel failed ({what})" + (f":\n{tail}" if tail else "")


def worst(comparisons: Sequence[Comparison]) -> list[Comparison]:
    return [c for c in comparisons if not c.ok]


def unwritten_elements(
    expected: Mapping[str, np.ndarray], rerun: Callable[[], Mapping[str, np.ndarray]]
) -> dict[str, np.ndarray]:
    """Per result, where it depends on memory nothing wrote (a created tensor or tile read
    before it is written): ``rerun`` is the reference run again, with such memory poisoned."""
    import numpy as np

    from ..interp import InterpError
    from ..interp.unwritten import differs, poisoned

    try:
        with poisoned(), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (NaN converted to an integer, and the like)
            again = rerun()
    except (InterpError, ValueError, OverflowError):  # poison a conversion refused: unknown
        return {}
    masks = {name: differs(want, again[name]) for name, want in expected.items() if name in again}
    return {name: mask for name, mask in masks.items() if mask.any()}


def set_aside_unwritten(
    actual: dict[str, np.ndarray],
    expected: Mapping[str, np.ndarray],
    masks: Mapping[str, np.ndarray],
) -> None:
    """The simulator's values where a result depends on memory nothing wrote are replaced by
    the interpreter's (they are not compared: the device's memory held anything), and stderr
    says how many."""
    import numpy as np

    for name, mask in masks.items():
        got = actual.get(name)
        if got is not None and got.shape == mask.shape:
            actual[name] = np.where(mask, expected[name], got)
        print(
            f"ptoc: warning: {int(mask.sum())} of {mask.size} elements of '{name}' depend on "
            "memory nothing wrote (a created tensor or tile read before it is written holds "
            "whatever the device memory held): they are not compared",
            file=sys.stderr,
        )
