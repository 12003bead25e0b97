"""The L2 prefetch handles (spec section 9.2): make_context() makes a context, async_prefetch
an event, session a session, and each op takes the handle of its kind: another value is an
E306 naming what the argument must be, on the argument."""

from __future__ import annotations

import pytest

from ptoc.frontend import analyze_source
from ptoc.ir.dtype import INDEX
from ptoc.ir.types import PrefetchHandleType, ScalarType
from ptoc.ir.walk import walk_stmts

HEAD = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        ctx = pl.prefetch.make_context()
        ev = pl.prefetch.async_prefetch(x, ctx)
        ses = pl.prefetch.session(ctx)
"""
TAIL = """
        t = pl.load(x, [0, 0], [64, 64])
        r = pl.store(t, [0, 0], out)
        return r
"""


def source(line: str) -> str:
    return HEAD + f"        {line}" + TAIL


def test_the_handles_are_typed_and_wait_is_an_index() -> None:
    analysis = analyze_source(source("done = pl.prefetch.wait(ev, ses)"), "p.py")
    assert analysis.diagnostics == []
    types = {
        s.var.name: s.var.type
        for s in walk_stmts(analysis.programs[0].functions[0].body)
        if hasattr(s, "var")
    }
    assert [types[n] for n in ("ctx", "ev", "ses")] == [
        PrefetchHandleType("context"),
        PrefetchHandleType("event"),
        PrefetchHandleType("session"),
    ]
    assert types["done"] == ScalarType(INDEX)
    assert [types[n].short() for n in ("ctx", "ev", "ses")] == [
        "PrefetchAsyncContext",
        "AsyncEvent",
        "AsyncSession",
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "done = pl.prefetch.wait(ses, ev)",
            "p.py:13:33: error[E306]: prefetch.wait: argument 'event' must be a pl.AsyncEvent "
            "(made by pl.prefetch.async_prefetch(...)), got AsyncSession",
        ),
        (
            "done = pl.prefetch.wait(ev, ctx)",
            "p.py:13:37: error[E306]: prefetch.wait: argument 'session' must be a "
            "pl.AsyncSession (made by pl.prefetch.session(ctx)), got PrefetchAsyncContext",
        ),
        (
            "s2 = pl.prefetch.session(x)",
            "p.py:13:34: error[E306]: prefetch.session: argument 'ctx' must be a "
            "pl.PrefetchAsyncContext (made by pl.prefetch.make_context()), "
            "got Tensor[[64, 64], FP32]",
        ),
        (
            "e2 = pl.prefetch.async_prefetch(x, ev)",
            "p.py:13:44: error[E306]: prefetch.async_prefetch: argument 'ctx' must be a "
            "pl.PrefetchAsyncContext (made by pl.prefetch.make_context()), got AsyncEvent",
        ),
        (
            "e2 = pl.prefetch.async_prefetch(ctx, ctx)",
            "p.py:13:41: error[E306]: prefetch.async_prefetch: argument 'src_tensor' must be a "
            "tensor, got PrefetchAsyncContext",
        ),
    ],
)
def test_a_handle_of_another_kind_is_e306_on_the_argument(line: str, expected: str) -> None:
    analysis = analyze_source(source(line), "p.py")
    assert [d.format() for d in analysis.diagnostics] == [expected]
