"""A @pl.jit kernel's parameters' element types (``dtype(a)``) and their promotions: one
object per name, as DataType members are, so the type rules compare them with ``is``."""

from __future__ import annotations

import pickle

from ptoc.ir.dtype import DataType, dtype_variable, is_dtype_variable, promote


def test_a_parameters_dtype_is_one_object_and_promotes_to_itself() -> None:
    a = dtype_variable("a")
    assert a is dtype_variable("a") and is_dtype_variable(a) and a.name == "dtype(a)"
    assert promote(a, a) is a
    assert pickle.loads(pickle.dumps(a)) is a
    assert not is_dtype_variable(DataType.FP32)


def test_the_promotion_of_two_is_their_join_whichever_way_round() -> None:
    a, b, c = (dtype_variable(n) for n in "abc")
    ab = promote(a, b)
    assert ab is promote(b, a) and ab.name == "promote(dtype(a), dtype(b))"
    assert promote(ab, a) is ab and promote(b, ab) is ab
    assert promote(ab, c).name == "promote(dtype(a), dtype(b), dtype(c))"
    assert promote(DataType.FP16, a).name == "promote(FP16, dtype(a))"
    assert promote(DataType.FP16, DataType.FP32) is DataType.FP32  # (unchanged)


def test_a_name_no_type_holds_any_more_is_forgotten() -> None:
    """Names come from the user's code: the server must not keep every one ever typed."""
    import gc

    from ptoc.ir import dtype

    kept = dtype_variable("kept")
    for n in range(1000):
        promote(dtype_variable(f"typed_{n}"), kept)
    gc.collect()
    assert [name for name in dtype._VARIABLES if "typed_" in name] == []
    assert dtype_variable("kept") is kept
