"""``ptoc run``'s comparison of the simulator's results with the interpreter's: an expected
infinity matches only the same infinity (a padded tile's -inf must not accept any value)."""

from __future__ import annotations

import numpy as np

from ptoc.ir.dtype import DataType
from ptoc.run.compare import compare


def test_an_expected_infinity_is_matched_only_by_the_same_infinity() -> None:
    want = np.array([1.0, -np.inf, np.inf, np.nan], dtype=np.float32)
    same = compare("out", DataType.FP32, want.copy(), want)
    assert same.ok and same.mismatches == 0
    got = np.array([1.0, 0.5, np.inf, np.nan], dtype=np.float32)
    wrong = compare("out", DataType.FP32, got, want)
    assert (wrong.mismatches, wrong.first_mismatch) == (1, (1,))
    flipped = compare("out", DataType.FP32, -want[1:3], want[1:3])
    assert flipped.mismatches == 2


def test_a_finite_value_keeps_its_tolerance() -> None:
    want = np.array([100.0, -2.0], dtype=np.float32)
    near = compare("out", DataType.FP32, want * np.float32(1 + 5e-5), want)
    assert near.ok
    far = compare("out", DataType.FP32, want * np.float32(1 + 5e-3), want)
    assert far.mismatches == 2
