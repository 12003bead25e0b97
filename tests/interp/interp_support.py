"""Running small kernels written in the DSL through the reference interpreter."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from ptoc.frontend import analyze_source
from ptoc.interp import InterpResult, run_function
from ptoc.interp.numeric import np_dtype
from ptoc.ir.function import Function, Program
from ptoc.ir.types import ScalarType, ShapedType

HEADER = "import pypto.language as pl\n\n\n"


def program_of(source: str, path: str = "kernel.py") -> Program:
    """The one program (or standalone function) of a DSL source; it must check clean."""
    text = HEADER + textwrap.dedent(source)
    analysis = analyze_source(text, path)
    errors = [d.format() for d in analysis.diagnostics if d.severity.value == "error"]
    assert errors == []
    programs = analysis.all_programs()
    assert len(programs) == 1
    return programs[0]


def run(source: str, inputs: dict[str, Any], name: str | None = None) -> InterpResult:
    program = program_of(source)
    return run_function(program, name or program.functions[0].name, inputs)


def only_return(source: str, inputs: dict[str, Any]) -> Any:
    (value,) = run(source, inputs).returns
    return value


def tile_kernel(body: str, params: str, result: str) -> str:
    """A standalone function with the given parameters, body and returned tile type."""
    return f"@pl.function\ndef f({params}) -> {result}:\n" + textwrap.indent(
        textwrap.dedent(body), "    ")


def arange(shape: tuple[int, ...], dtype: Any, start: float = 0) -> np.ndarray:
    return (np.arange(int(np.prod(shape))) + start).reshape(shape).astype(dtype)


def random_inputs(function: Function, seed: int = 0) -> dict[str, Any]:
    """Inputs for every parameter: seeded values of the parameter's dtype (small integers for
    integer tensors, 3 for an integer scalar such as a trip count, 0.75 for a float one)."""
    rng = np.random.default_rng(seed)
    inputs: dict[str, Any] = {}
    for param in function.params:
        type_ = param.type
        if isinstance(type_, ShapedType):
            shape = [int(getattr(d, "value", 4)) for d in type_.shape]
            dtype = np_dtype(type_.dtype)
            if dtype.kind in "iu":
                inputs[param.name] = rng.integers(0, 9, shape).astype(dtype)
            else:
                inputs[param.name] = rng.standard_normal(shape).astype(dtype)
        elif isinstance(type_, ScalarType):
            inputs[param.name] = 0.75 if type_.dtype.is_float else 3
    return inputs
