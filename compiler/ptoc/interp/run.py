"""The interpreter's entry point: inputs in, outputs and returned values out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..ir.function import Function, Program
from ..ir.types import ShapedType, TensorType
from ..records import field, record
from .errors import InterpError
from .evaluator import Evaluator
from .numeric import convert, np_dtype


@record
class InterpResult:
    outputs: dict[str, np.ndarray] = field(default_factory=dict)  # every tensor parameter
    returns: list[Any] = field(default_factory=list)


def run_function(
    program: Program,
    name: str,
    inputs: Mapping[str, Any],
    *,
    block_idx: int = 0,
    max_iterations: int = 10_000_000,
) -> InterpResult:
    """Evaluate ``program.name`` on ``inputs`` (keyed by parameter name; arrays for tensors
    and tiles, numbers for scalars). Inputs are copied, never changed; arrays of another
    dtype are converted to the parameter's. Raises InterpError for what cannot run."""
    function = program.function(name)
    if function is None:
        names = ", ".join(fn.name for fn in program.functions)
        raise InterpError(
            f"no function '{name}' in program '{program.name}' (it has: {names})", program.span
        )
    args = _arguments(function, inputs)
    evaluator = Evaluator(program, block_idx, max_iterations)
    with np.errstate(all="ignore"):  # integers wrap and floats overflow, as on the hardware
        try:
            returned = evaluator.call_function(function, args, function.span)
        except InterpError:
            raise
        except Exception as error:  # a defect here still points at the statement running
            raise InterpError(
                f"internal error: {type(error).__name__}: {error}", evaluator.site
            ) from error
    outputs = {
        param.name: np.array(arg, copy=True)
        for param, arg in zip(function.params, args, strict=True)
        if isinstance(param.type, TensorType)
    }
    return InterpResult(outputs, [_snapshot(value) for value in returned])


def _arguments(function: Function, inputs: Mapping[str, Any]) -> list[Any]:
    names = {param.name for param in function.params}
    unknown = sorted(set(inputs) - names)
    if unknown:
        raise InterpError(
            f"'{function.name}' has no parameter {', '.join(map(repr, unknown))}", function.span
        )
    args: list[Any] = []
    for param in function.params:
        if param.name not in inputs:
            raise InterpError(f"no input for parameter '{param.name}'", param.span)
        value = inputs[param.name]
        type_ = param.type
        if isinstance(type_, ShapedType):
            target = np_dtype(type_.dtype, param.span)
            try:
                array = np.asarray(value)
                args.append(convert(array, target) if array.dtype != target else array.copy())
            except (TypeError, ValueError) as error:
                raise InterpError(
                    f"'{param.name}' must be an array of numbers: {error}", param.span
                ) from error
        else:
            args.append(value)
    return args


def _snapshot(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_snapshot(v) for v in value)
    return value
