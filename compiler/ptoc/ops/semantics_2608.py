"""What the ops PyPTO 2026-08 added compute, for the reference interpreter (as semantics.py,
which imports this module): the element-wise, column / row and concatenation ops, each on tiles
and on tensors; every other 2026-08 op is listed in ``NO_SEMANTICS`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..interp import kernels
from ..interp.kernels import Array
from ..interp.numeric import cast_to, via_double
from ..interp.opcall import OpCall
from .lazy_index import OPS as OPS_2026_08
from .semantics import NO_SEMANTICS, SEMANTICS, Semantics


def _both(name: str, fn: Semantics) -> None:
    """The op on tiles (``block.X``) and on tensors (``tensor.X``) computes the same."""
    for namespace in ("block", "tensor"):
        SEMANTICS[f"{namespace}.{name}"] = fn


def _unary(fn: Callable[[Array], Array]) -> Semantics:
    def run(op: OpCall) -> Array:
        return via_double(cast_to(op.args[0], op.result_dtype()), fn)

    return run


def _fmod(op: OpCall) -> Array:
    """C fmod (TFMOD / TFMODS): computed in double, rounded once; a zero divisor is an error."""
    dtype = op.result_dtype()
    lhs, rhs = (cast_to(np.asarray(v), dtype) for v in op.args[:2])
    if np.any(rhs == 0):
        op.fail("fmod by zero")
    return np.asarray(np.fmod(lhs.astype(np.float64), rhs.astype(np.float64))).astype(dtype)


_both("sin", _unary(np.sin))
_both("cos", _unary(np.cos))
_both("fmod", _fmod)
_both("fmods", _fmod)


def _column(kind: str) -> Semantics:
    def run(op: OpCall) -> Array:
        values = np.asarray(op.args[0])
        axis = values.ndim - 2
        if kind == "prod":
            return np.prod(values, axis=axis, keepdims=True).astype(values.dtype)
        return np.expand_dims(kernels.reduce(values, axis, kind), axis)

    return run


def _row_prod(op: OpCall) -> Array:
    values = np.asarray(op.args[0])
    return np.prod(values, axis=-1, keepdims=True).astype(values.dtype)


def _concat(op: OpCall) -> Array:
    return np.concatenate([np.asarray(v) for v in op.args[:2]], axis=-1)


for _kind in ("sum", "max", "min", "prod"):
    _both(f"col_{_kind}", _column(_kind))
_both("row_prod", _row_prod)
_both("concat", _concat)


def _transpose_view(op: OpCall) -> Array:
    """The tile read with its dimensions swapped (the same bytes in the other fractal order)."""
    return np.asarray(op.args[0]).T.copy()


SEMANTICS["block.transpose_view"] = _transpose_view


def _extract(op: OpCall) -> Array:
    """The window of ``shape`` at (index_row, index_col) of the source, copied (TEXTRACT)."""
    source = np.asarray(op.args[0])
    row, col = op.int_arg(1), op.int_arg(2)
    rows, cols = op.ints(3)[-2:]
    if row < 0 or col < 0 or row + rows > source.shape[-2] or col + cols > source.shape[-1]:
        op.fail(f"the window at ({row}, {col}) of {rows} x {cols} is outside the source")
    return source[..., row : row + rows, col : col + cols].copy()


SEMANTICS["block.extract"] = _extract

# The tensor twins 2026-08 added of 2026-03 block ops compute what the block op does.
_TWINS = """abs neg sqrt recip minimum and or shl shr ands ors shls shrs not expands row_min
    row_expand row_expand_add row_expand_sub row_expand_mul row_expand_div col_expand col_expand_mul
    col_expand_div col_expand_sub full"""
for _name in _TWINS.split():
    SEMANTICS[f"tensor.{_name}"] = SEMANTICS[f"block.{_name}"]

_ORDERING = (
    "a system, array or prefetch op: it orders work or names a resource of the machine, and "
    "the interpreter runs one core without them"
)
_NOT_YET = "a 2026-08 op the interpreter does not run yet"
for _name in OPS_2026_08:  # (from the index: the interpreter imports no op module for this)
    if _name not in SEMANTICS:
        system = _name.partition(".")[0] in ("system", "array", "prefetch")
        NO_SEMANTICS[_name] = _ORDERING if system else _NOT_YET
