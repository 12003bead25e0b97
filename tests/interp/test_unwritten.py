"""Created buffers: zeros in the interpreter's runs, poison in the run that finds which results
depend on memory nothing wrote (``ptoc run --sim``)."""

from __future__ import annotations

import numpy as np

from ptoc.interp.unwritten import created, differs, poisoned


def test_created_buffers_are_zeros_and_poison_only_inside_poisoned() -> None:
    assert np.array_equal(created((2, 2), np.dtype(np.float32)), np.zeros((2, 2)))
    with poisoned():
        assert np.isnan(created((2, 2), np.dtype(np.float16))).all()
        assert (created((3,), np.dtype(np.int32)) == np.iinfo(np.int32).max).all()
        assert created((1,), np.dtype(np.bool_)).all()
    assert not created((1,), np.dtype(np.int8)).any()  # the context is left behind


def test_differs_marks_what_changed_and_treats_nan_as_equal_to_nan() -> None:
    zeroed = np.array([0.0, 1.0, np.nan], np.float32)
    again = np.array([np.nan, 1.0, np.nan], np.float32)
    assert differs(zeroed, again).tolist() == [True, False, False]
    assert differs(np.array([1, 2]), np.array([1, 3])).tolist() == [False, True]
    assert differs(np.zeros(2), np.zeros(3)).tolist() == [True, True]
