"""Checking op type rules on hand-built arguments (from ``ir_builder``; the front end is not
involved)."""

from __future__ import annotations

from typing import Any

import pytest

from ptoc.ir import (
    Expr,
    Type,
)
from ptoc.ops import REGISTRY, OpDef, OpError


def opdef(name: str) -> OpDef:
    found = REGISTRY.get(name)
    assert found is not None, name
    return found


def deduce(op_name: str, attrs: dict[str, Any] | None = None, **args: Expr) -> Type:
    return opdef(op_name).deduce(args, attrs or {})


def error(op_name: str, attrs: dict[str, Any] | None = None, **args: Expr) -> OpError:
    with pytest.raises(OpError) as caught:
        deduce(op_name, attrs, **args)
    return caught.value


def assert_error(failure: OpError, code: str, at: str | None, *fragments: str) -> None:
    assert (failure.code, failure.at) == (code, at), failure.message
    for fragment in fragments:
        assert fragment in failure.message, failure.message


def assert_type(actual: Type, expected: Type) -> None:
    """Structural equality plus the printed form (so a failure shows both readably)."""
    assert actual.short() == expected.short()
    assert actual == expected
