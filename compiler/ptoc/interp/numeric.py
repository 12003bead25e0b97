"""Element types on numpy, and the conversions pto-isa's CPU simulator performs.

Every value keeps the exact element type of its IR type: FP16 is ``numpy.float16``, BF16 is
``ml_dtypes.bfloat16``, so arithmetic rounds to the type after each operation, and integer
arithmetic wraps. Conversions follow the simulator's TCVT: float to integer rounds in double
with the cast mode, then truncates (C's conversion, as x86 performs it when out of range);
integer to float and float to float round to nearest even whatever the mode.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from ..ir.dtype import DataType
from ..ir.span import NO_SPAN, Span
from .errors import InterpError

_NUMPY_DTYPES: dict[DataType, Any] = {
    DataType.INT8: np.int8,
    DataType.INT16: np.int16,
    DataType.INT32: np.int32,
    DataType.INT64: np.int64,
    DataType.INDEX: np.int64,
    DataType.TASK_ID: np.int64,  # a task's number (the interpreter runs tasks in order)
    DataType.UINT8: np.uint8,
    DataType.UINT16: np.uint16,
    DataType.UINT32: np.uint32,
    DataType.UINT64: np.uint64,
    DataType.FP16: np.float16,
    DataType.FP32: np.float32,
    DataType.BF16: ml_dtypes.bfloat16,
    DataType.FP8E4M3FN: ml_dtypes.float8_e4m3fn,
    DataType.FP8E5M2: ml_dtypes.float8_e5m2,
    DataType.BOOL: np.bool_,
}

CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def np_dtype(dtype: DataType, span: Span = NO_SPAN) -> np.dtype[Any]:
    """The numpy dtype of an IR element type (InterpError for the packed 4-bit and the
    hifloat / unspecified 8-bit float types, which numpy cannot hold)."""
    found = _NUMPY_DTYPES.get(dtype)
    if found is None:
        raise InterpError(f"the interpreter has no numpy representation of {dtype.name}", span)
    return np.dtype(found)


def is_float(dtype: np.dtype[Any]) -> bool:
    return dtype.kind == "f" or dtype in (
        np.dtype(ml_dtypes.bfloat16),
        np.dtype(ml_dtypes.float8_e4m3fn),
        np.dtype(ml_dtypes.float8_e5m2),
    )


def is_integer(dtype: np.dtype[Any]) -> bool:
    return dtype.kind in "iu"


def scalar(value: Any, dtype: DataType, span: Span = NO_SPAN) -> Any:
    """``value`` as a numpy scalar of ``dtype``: integers wrap, floats round to nearest."""
    target = np_dtype(dtype, span)
    if target.kind == "b":
        return np.bool_(bool(value))
    if target.kind in "iu":
        if isinstance(value, float | np.floating):
            if not math.isfinite(float(value)):
                raise InterpError(f"cannot convert {value} to {dtype.name}", span)
            value = int(value)
        return target.type(wrap_int(int(value), target))
    return target.type(float(value))


def wrap_int(value: int, dtype: np.dtype[Any]) -> int:
    """Two's-complement wrap of a Python integer to an integer dtype's width."""
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def round_to_integral(values: np.ndarray, mode: str) -> np.ndarray:
    """TCVT's rounding of float64 values to integral values for one cast mode."""
    if mode == "rint":
        return np.rint(values)
    if mode == "round":  # std::round: halves away from zero
        whole = np.trunc(values)
        return whole + np.where(np.abs(values - whole) >= 0.5, np.sign(values), 0.0)
    if mode == "floor":
        return np.floor(values)
    if mode == "ceil":
        return np.ceil(values)
    if mode == "trunc":
        return np.trunc(values)
    if mode == "odd":  # to nearest, ties to the odd neighbour
        low = np.floor(values)
        frac = values - low
        tie_up = np.mod(low, 2) == 0
        return np.where(
            frac > 0.5, low + 1, np.where(frac < 0.5, low, np.where(tie_up, low + 1, low))
        )
    return values  # none: the conversion below truncates


def cast_mode_name(mode: object, span: Span = NO_SPAN) -> str:
    if isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode < len(CAST_MODES):
        return CAST_MODES[mode]
    if isinstance(mode, str) and mode.lower() in CAST_MODES:
        return mode.lower()
    raise InterpError(f"unknown cast mode {mode!r}", span)


def convert(values: np.ndarray, target: np.dtype[Any], mode: str = "round") -> np.ndarray:
    """TCVT: every element converted to ``target`` the way the CPU simulator converts it."""
    source = values.dtype
    if source == target:
        return values.copy()
    if target.kind == "b":
        return values != 0
    if is_float(source) and is_integer(target):
        rounded = round_to_integral(values.astype(np.float64), mode)
        if target == np.dtype(np.uint8):  # the simulator goes through int64 for uint8
            return rounded.astype(np.int64).astype(np.uint8)
        return rounded.astype(target)
    if is_integer(source) and is_float(target):
        return values.astype(np.float64).astype(target)
    return values.astype(target)


def cast_to(values: Any, target: np.dtype[Any]) -> np.ndarray:
    """An operand brought to an op's computation type: the IR's implicit promotion, or C's
    implicit conversion of a scalar argument (a float to an integer truncates)."""
    array = np.asarray(values)
    if array.dtype == target:
        return array
    return convert(array, target, "none")


def via_double(values: np.ndarray, fn: Any, half_through_float: bool = False) -> np.ndarray:
    """``fn`` computed in double and rounded once to the element type, as the simulator's
    TSQRT / TRSQRT / TLOG / TEXP do (its FP16 exp is ``expf``: through float); an integer
    result truncates."""
    if half_through_float and values.dtype == np.dtype(np.float16):
        return np.asarray(fn(values.astype(np.float64))).astype(np.float32).astype(np.float16)
    result = np.asarray(fn(values.astype(np.float64)))
    return result.astype(values.dtype)
