"""Every registered op has semantics, or is declared to have none with the reason."""

from __future__ import annotations

from ptoc.ops import REGISTRY
from ptoc.ops.semantics import NO_SEMANTICS, SEMANTICS


def test_every_registered_op_has_semantics_or_a_reason_for_none() -> None:
    registered = {op.name for op in REGISTRY}
    missing = sorted(registered - set(SEMANTICS) - set(NO_SEMANTICS))
    assert missing == []


def test_semantics_are_only_for_registered_ops() -> None:
    registered = {op.name for op in REGISTRY}
    assert sorted(set(SEMANTICS) - registered) == []
    assert sorted(set(NO_SEMANTICS) - registered) == []
    assert sorted(set(SEMANTICS) & set(NO_SEMANTICS)) == []
