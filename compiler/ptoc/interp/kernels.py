"""Numeric kernels shared by the op semantics, each written the way pto-isa's CPU simulator
computes it (accumulation order and type, comparison encoding, integer division).

Operands reaching these functions already have the op's computation dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .numeric import is_float, is_integer

Array = np.ndarray
Fail = Callable[[str], Any]


def maximum(a: Array, b: Array) -> Array:
    """std::max(a, b): b only when a < b (a NaN first operand stays)."""
    return np.where(a < b, b, a)


def minimum(a: Array, b: Array) -> Array:
    """std::min(a, b): b only when b < a."""
    return np.where(b < a, b, a)


def divide(a: Array, b: Array, fail: Fail) -> Array:
    """C division: IEEE for floats, truncation toward zero for integers (zero: an error)."""
    if not is_integer(np.asarray(a).dtype):
        return np.asarray(a / b)
    if np.any(np.asarray(b) == 0):
        fail("integer division by zero")
    quotient = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.asarray(quotient + inexact.astype(quotient.dtype))


def remainder(a: Array, b: Array, fail: Fail) -> Array:
    """TREM / TREMS: the C remainder (fmod in double for floats), moved into the divisor's
    sign when the operands' signs differ; a zero divisor is an error."""
    if np.any(np.asarray(b) == 0):
        fail("remainder by zero")
    a, b = np.asarray(a), np.asarray(b)
    if is_integer(a.dtype):
        rest = np.fmod(a, b)
    else:
        rest = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    fix = ((a >= 0) != (b >= 0)) & (rest != 0)
    return np.asarray(np.where(fix, rest + b, rest).astype(a.dtype))


def sequential(
    values: Array,
    axis: int,
    acc_dtype: np.dtype[Any],
    step: Callable[[Array, Array], Array],
    start_zero: bool,
) -> Array:
    """Reduce one axis element by element in order, in ``acc_dtype`` (the simulator's loop;
    numpy's own sum is pairwise)."""
    moved = np.moveaxis(values, axis, 0).astype(acc_dtype)
    if start_zero:
        acc = np.zeros(moved.shape[1:], acc_dtype)
        first = 0
    else:
        acc, first = moved[0].copy(), 1
    for index in range(first, moved.shape[0]):
        acc = np.asarray(step(acc, moved[index])).astype(acc_dtype)
    return acc


def row_sum_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """TROWSUM accumulates FP16 / BF16 in float; other types in themselves."""
    if is_float(dtype) and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return dtype


def reduce(values: Array, axis: int, kind: str) -> Array:
    """sum / max / min of one axis, as TROW* (last axis) or TCOL* (any other axis) do."""
    dtype = values.dtype
    if kind == "sum":
        last = axis == values.ndim - 1
        acc = row_sum_dtype(dtype) if last else dtype
        return sequential(values, axis, acc, np.add, start_zero=True).astype(dtype)
    step = maximum if kind == "max" else minimum
    return sequential(values, axis, dtype, step, start_zero=False)


def matmul(lhs: Array, rhs: Array) -> Array:
    """TMATMUL: float operands accumulate in float with one fused multiply-add per k in
    order (emulated in double); int8 accumulates in int32 (wrapping)."""
    if is_integer(lhs.dtype):
        product = np.matmul(lhs.astype(np.int64), rhs.astype(np.int64))
        return np.asarray(product).astype(np.int32)
    a = lhs.astype(np.float32).astype(np.float64)
    b = rhs.astype(np.float32).astype(np.float64)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    acc = np.zeros(shape, np.float32)
    for k in range(a.shape[-1]):
        term = a[..., :, k, None] * b[..., None, k, :]
        acc = (term + acc.astype(np.float64)).astype(np.float32)
    return acc


def pack_rows(bits: Array, out_shape: tuple[int, ...], out_dtype: np.dtype[Any]) -> Array:
    """TCMP's encoding: each row's results packed into words, bit c of word w holding column
    8w + c (32-bit words for a UINT32 result); the words fill the row from the left and the
    rest of the result is zero."""
    word = 32 if out_dtype == np.dtype(np.uint32) else 8
    rows = bits.reshape(-1, bits.shape[-1]) if bits.ndim else bits.reshape(1, 1)
    words = -(-rows.shape[1] // word)
    padded = np.zeros((rows.shape[0], words * word), np.uint64)
    padded[:, : rows.shape[1]] = rows
    weights = np.left_shift(np.uint64(1), np.arange(word, dtype=np.uint64))
    packed = (padded.reshape(rows.shape[0], words, word) * weights).sum(axis=-1)
    out = np.zeros(_as_2d(out_shape), np.uint64)
    height, width = min(out.shape[0], packed.shape[0]), min(out.shape[1], words)
    out[:height, :width] = packed[:height, :width]
    return out.astype(out_dtype).reshape(out_shape)


def _as_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    if not shape:
        return (1, 1)
    last = shape[-1]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    return (rows, last)
