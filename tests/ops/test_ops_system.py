"""System (sync) ops (spec section 7.6): attributes, no value."""

from __future__ import annotations

import pytest
from ops_ir import assert_error, deduce, error, opdef

from ptoc.ir import UNKNOWN
from ptoc.ops import Category, ParamKind, PipeType


@pytest.mark.parametrize("name", ["system.sync_src", "system.sync_dst"])
def test_flags(name: str) -> None:
    attrs = {"set_pipe": PipeType.MTE2, "wait_pipe": PipeType.V, "event_id": 0}
    assert deduce(name, attrs) == UNKNOWN
    # The seed's integer pipe codes (sync_src(set_pipe=2, wait_pipe=4, event_id=0)).
    assert deduce(name, {"set_pipe": 2, "wait_pipe": 4, "event_id": 7}) == UNKNOWN
    params = opdef(name).params
    assert [(p.name, p.kind, p.required) for p in params] == [
        ("set_pipe", ParamKind.ATTR, True),
        ("wait_pipe", ParamKind.ATTR, True),
        ("event_id", ParamKind.ATTR, True),
    ]
    assert params[0].attr_types == (PipeType, int)


@pytest.mark.parametrize("name", ["system.sync_src", "system.sync_dst"])
def test_flag_errors(name: str) -> None:
    good = {"set_pipe": PipeType.MTE2, "wait_pipe": PipeType.V, "event_id": 0}
    assert_error(
        error(name, {**good, "event_id": 8}),
        "E309",
        "event_id",
        f"{name}: attribute 'event_id' must be 0..7, got 8",
    )
    assert_error(
        error(name, {**good, "wait_pipe": 12}),
        "E309",
        "wait_pipe",
        "attribute 'wait_pipe' must be a pl.PipeType, got 12",
    )
    assert_error(
        error(name, {**good, "set_pipe": "MTE2"}), "E309", "set_pipe", "must be an integer"
    )
    assert_error(
        error(name, {"wait_pipe": PipeType.V, "event_id": 0}),
        "E309",
        "set_pipe",
        "attribute 'set_pipe' is required",
    )


@pytest.mark.parametrize("name", ["system.bar_v", "system.bar_m", "system.bar_all"])
def test_barriers(name: str) -> None:
    assert deduce(name) == UNKNOWN
    definition = opdef(name)
    assert definition.params == ()
    assert definition.category is Category.SYNC
    assert definition.dsl_visible  # the printer writes pl.system.bar_v() and it parses back
