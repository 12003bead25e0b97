"""Running small kernels written in the DSL through the reference interpreter."""

from __future__ import annotations

import textwrap
from typing import Any

import ml_dtypes
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
        textwrap.dedent(body), "    "
    )


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


F32, F16, I32, I16, I8, U8 = np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8
BF16 = ml_dtypes.bfloat16
PL = {
    F32: "pl.FP32",
    F16: "pl.FP16",
    I32: "pl.INT32",
    I16: "pl.INT16",
    I8: "pl.INT8",
    U8: "pl.UINT8",
    BF16: "pl.BF16",
    np.int64: "pl.INT64",
}


def _tensor(shape: tuple[int, ...], dtype: Any) -> str:
    return f"pl.Tensor[{list(shape)}, {PL[dtype]}]"


def tile_op(
    expr: str,
    x: np.ndarray,
    y: np.ndarray | None = None,
    *,
    result: str,
    z: np.ndarray | None = None,
) -> Any:
    """Load x (and y, z) as tiles a (b, c) of their full shape, return ``expr``."""
    arrays = {"x": x, "y": y, "z": z}
    names = {"x": "a", "y": "b", "z": "c"}
    params, loads = [], []
    for key, array in arrays.items():
        if array is None:
            continue
        params.append(f"{key}: {_tensor(array.shape, array.dtype.type)}")
        zeros = [0] * array.ndim
        loads.append(f"{names[key]} = pl.load({key}, {zeros}, {list(array.shape)})")
    body = "\n".join([*loads, f"r = {expr}", "return r"])
    source = tile_kernel(body, ", ".join(params), result)
    return only_return(source, {k: v for k, v in arrays.items() if v is not None})


def t(shape: tuple[int, ...], dtype: Any) -> str:
    return f"pl.Tile[{list(shape)}, {PL[dtype]}]"


def check(actual: Any, expected: Any, dtype: Any) -> None:
    assert np.asarray(actual).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected, dtype=dtype))
