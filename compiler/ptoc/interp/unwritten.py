"""What a created tensor or tile holds before anything writes it.

On the device ``pl.create_tensor`` and ``create_tile`` give memory whose contents are whatever
it held: undefined. The interpreter fills them with zeros; ``ptoc run --sim`` runs it once
more with every such buffer poisoned (NaN, or the largest integer) and so learns which
results depend on memory nothing wrote: those elements are not compared with the simulator's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from .numeric import is_float

_POISONED: ContextVar[bool] = ContextVar("ptoc_interp_poisoned", default=False)


def created(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """A new buffer: zeros, or poison inside ``poisoned()``."""
    if not _POISONED.get():
        return np.zeros(shape, dtype)
    if is_float(dtype):
        return np.full(shape, np.nan, dtype)
    if dtype == np.bool_:
        return np.ones(shape, dtype)
    return np.full(shape, np.iinfo(dtype).max, dtype)


@contextmanager
def poisoned() -> Iterator[None]:
    """Created buffers hold poison instead of zeros while inside."""
    token = _POISONED.set(True)
    try:
        yield
    finally:
        _POISONED.reset(token)


def differs(zeroed: Any, poisoned_run: Any) -> np.ndarray:
    """Where two runs' results differ: the elements that depend on memory nothing wrote."""
    first, second = np.asarray(zeroed), np.asarray(poisoned_run)
    if first.shape != second.shape:
        return np.ones(first.shape, bool)
    if is_float(first.dtype):
        wide_first, wide_second = first.astype(np.float64), second.astype(np.float64)
        same = (wide_first == wide_second) | (np.isnan(wide_first) & np.isnan(wide_second))
        return np.asarray(~same)
    return np.asarray(first != second)
