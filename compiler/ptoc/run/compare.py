"""Comparing the simulator's results with the reference interpreter's, per dtype.

An element matches when ``|actual - expected| <= atol + rtol * |expected|`` (NaN matches NaN,
an infinity the same infinity). Integers and booleans must be equal. The float tolerances allow
for a different summation order and for the simulator's own exp/log/sqrt:

=========  =======  =======
dtype      rtol     atol
=========  =======  =======
FP32       1e-4     1e-5
FP16       1e-2     1e-2
BF16       2e-2     2e-2
=========  =======  =======
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.dtype import DataType
from ..records import record

if TYPE_CHECKING:
    import numpy as np

TOLERANCES: dict[DataType, tuple[float, float]] = {
    DataType.FP32: (1e-4, 1e-5),
    DataType.FP16: (1e-2, 1e-2),
    DataType.BF16: (2e-2, 2e-2),
}


def tolerance(dtype: DataType) -> tuple[float, float]:
    """``(rtol, atol)``; exact for every non-float dtype."""
    return TOLERANCES.get(dtype, (0.0, 0.0))


@record(frozen=True)
class Comparison:
    name: str
    dtype: DataType
    elements: int
    mismatches: int
    max_abs: float
    max_rel: float
    first_mismatch: tuple[int, ...] | None = None

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def line(self) -> str:
        rtol, atol = tolerance(self.dtype)
        verdict = "ok" if self.ok else f"MISMATCH in {self.mismatches} of {self.elements}"
        where = f", first at {list(self.first_mismatch)}" if self.first_mismatch is not None else ""
        return (
            f"{self.name} ({self.dtype.name}): max abs error {self.max_abs:.3g}, max rel error "
            f"{self.max_rel:.3g} (rtol {rtol:g}, atol {atol:g}): {verdict}{where}"
        )


def compare(name: str, dtype: DataType, actual: np.ndarray, expected: np.ndarray) -> Comparison:
    import numpy as np

    got = np.asarray(actual, dtype=np.float64)
    want = np.asarray(expected, dtype=np.float64)
    if got.shape != want.shape:
        return Comparison(name, dtype, want.size, want.size, float("inf"), float("inf"), ())
    rtol, atol = tolerance(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got - want)
        same_special = (np.isnan(got) & np.isnan(want)) | (got == want)
        diff = np.where(same_special, 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(want), np.finfo(np.float64).tiny)
        # An expected infinity has no tolerance (rtol * inf would accept any value).
        bad = diff > np.where(np.isinf(want), 0.0, atol + rtol * np.abs(want))
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else None
    return Comparison(
        name,
        dtype,
        int(want.size),
        int(bad.sum()),
        float(diff.max()) if diff.size else 0.0,
        float(rel.max()) if rel.size else 0.0,
        first,
    )
