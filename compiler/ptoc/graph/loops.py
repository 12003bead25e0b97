"""Which loops of an orchestration function the task graph unrolls: a loop with constant
bounds that launches tasks, of at most ``MAX_ITERATIONS`` iterations, while the graph stays
within ``MAX_TASKS`` tasks. Any other loop that launches tasks is one summarised node per
launch site (naming its loops); one of constant trip count over the bounds gets W043. A loop
with a ``break`` or ``continue`` is not unrolled (its trip count is a run-time matter)."""

from __future__ import annotations

from ..ir import expr as ex
from ..ir import stmt as st
from ..ir.shape import constant_value
from ..ir.walk import walk_stmts

MAX_ITERATIONS = 64
MAX_TASKS = 256


def trip_count(loop: st.ForStmt) -> int | None:
    """The number of iterations of a loop of constant bounds (None: not constant)."""
    start, stop, step = (constant_value(e) for e in (loop.start, loop.stop, loop.step))
    if start is None or stop is None or step is None or step == 0:
        return None
    return max(0, -(-(stop - start) // step)) if step > 0 else max(0, -(-(start - stop) // -step))


def is_spmd_loop(loop: st.ForStmt) -> bool:
    """``for i in pl.spmd(n):``: one launch of n blocks (its body is the InCore scope the front
    end wrapped it in, spanning just the body), not n tasks."""
    body = st.body_stmts(loop.body)
    return (
        len(body) == 1
        and isinstance(body[0], st.ScopeStmt)
        and body[0].kind is st.ScopeKind.InCore
        and body[0].span == body[0].body.span
    )


def unrolled_trips(loop: st.ForStmt) -> int | None:
    """The iterations the graph draws a loop with (None: one summarised pass)."""
    trips = trip_count(loop)
    if trips is None or is_spmd_loop(loop) or trips > MAX_ITERATIONS or jumps(loop):
        return None
    return trips


def jumps(loop: st.ForStmt) -> bool:
    """Whether a ``break`` / ``continue`` may cut iterations short (then how many tasks run is
    known only at run time: the loop is not unrolled)."""
    return any(isinstance(s, st.LoopJumpStmt) for s in walk_stmts(loop.body))


def bounds_text(loop: st.ForStmt) -> str:
    """A loop's ``range`` arguments as written: ``batch_cfg``, ``1, n, 2``."""
    start, step = constant_value(loop.start), constant_value(loop.step)
    stop = expr_text(loop.stop)
    if start == 0 and step == 1:
        return stop
    parts = [expr_text(loop.start), stop]
    return ", ".join(parts if step == 1 else [*parts, expr_text(loop.step)])


def expr_text(expr: ex.Expr) -> str:
    value = constant_value(expr)
    if value is not None:
        return str(value)
    from ..printer import print_expr  # (the printer reads the registry: loaded when needed)

    return print_expr(expr)


def loop_note(loop: st.ForStmt | st.WhileStmt) -> str:
    """How often a loop the graph draws once runs."""
    if isinstance(loop, st.WhileStmt):
        return "runs while its condition holds at run time"
    trips = trip_count(loop)
    if trips is not None:
        if jumps(loop):
            return f"runs at most {trips} times (a break / continue may end it at run time)"
        return f"runs {trips} times"
    start, step = constant_value(loop.start), constant_value(loop.step)
    count = expr_text(loop.stop) if start == 0 and step == 1 else f"len(range({bounds_text(loop)}))"
    return f"runs {count} times at run time"


def launches(stmt: st.Stmt | None) -> int:
    """How many tasks a statement launches when its loops are unrolled as the graph would
    (a loop it keeps summarised counts once)."""
    if stmt is None:
        return 0
    if isinstance(stmt, st.SeqStmts):
        return sum(launches(inner) for inner in stmt.stmts)
    if isinstance(stmt, st.AssignStmt | st.EvalStmt):
        value = stmt.value if isinstance(stmt, st.AssignStmt) else stmt.expr
        launched = isinstance(value, ex.Submit) or (
            isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar)
        )
        return 1 if launched else 0
    if isinstance(stmt, st.ForStmt):
        trips = unrolled_trips(stmt)
        inner = launches(stmt.body)
        return inner * trips if trips is not None else inner
    if isinstance(stmt, st.WhileStmt):
        return launches(stmt.body)
    if isinstance(stmt, st.IfStmt):
        return launches(stmt.then_body) + launches(stmt.else_body)
    if isinstance(stmt, st.ScopeStmt):
        return 1 if stmt.kind is st.ScopeKind.InCore else launches(stmt.body)
    return 0
