"""Where InsertSync put synchronisation, for the editor's inlay hints.

InsertSync gives each ``set_flag``/``wait_flag`` pair and ``pipe_barrier`` it inserts the
span of the statement it guards; a sync statement written in the source has a span of its
own. So after the default pipeline, a sync statement whose span is that of another statement
of the function was inserted there, and the site is that statement's source.
"""

from __future__ import annotations

from .ir.expr import Call
from .ir.function import Function
from .ir.span import Span
from .ir.stmt import EvalStmt, ScopeStmt, SeqStmts, Stmt
from .ir.visitor import IRVisitor, Node
from .records import record


@record(frozen=True)
class SyncSite:
    """The sync inserted before the statement at ``span``: the CCE instructions, in order."""

    span: Span
    instructions: tuple[str, ...]

    @property
    def label(self) -> str:
        """``⇄ MTE2→V`` (one arrow per flag pair; ``bar V`` per barrier)."""
        parts: list[str] = []
        for text in self.instructions:
            if text.startswith("set_flag("):
                signal, wait = (p.strip().removeprefix("PIPE_") for p in text[9:].split(",")[:2])
                parts.append(f"{signal}→{wait}")
            elif text.startswith("pipe_barrier("):
                parts.append("bar " + text[13:-1].removeprefix("PIPE_"))
        return "⇄ " + ", ".join(dict.fromkeys(parts))


def _instruction(call: Call) -> str | None:
    """The CCE instruction of a sync op call, as the code generator writes it."""
    from .ops import Role
    from .passes.op_info import op_def

    op = op_def(call)
    if op is None or not op.is_sync or op.cce.instruction is None:
        return None
    if op.role is Role.BARRIER:
        pipe = op.barrier_pipe.name if op.barrier_pipe is not None else "ALL"
        return f"{op.cce.instruction}(PIPE_{pipe})"
    pipes = [getattr(call.kwarg(k), "name", str(call.kwarg(k))) for k in ("set_pipe", "wait_pipe")]
    event = call.kwarg("event_id", 0)
    return f"{op.cce.instruction}(PIPE_{pipes[0]}, PIPE_{pipes[1]}, EVENT_ID{event})"


class _Collect(IRVisitor):
    def __init__(self) -> None:
        self.sync: list[tuple[Span, str]] = []
        self.other: set[Span] = set()

    def visit_stmt(self, stmt: Stmt) -> None:
        text = None
        if isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
            text = _instruction(stmt.expr)
        if text is not None:
            self.sync.append((stmt.span, text))
        elif not isinstance(stmt, SeqStmts | ScopeStmt):
            self.other.add(stmt.span)

    def generic_visit(self, node: Node) -> None:
        if isinstance(node, Stmt):
            self.visit_stmt(node)
        super().generic_visit(node)


def function_sync_sites(fn: Function) -> list[SyncSite]:
    """The sync InsertSync added to ``fn`` (after the default pipeline), by guarded statement,
    in program order."""
    collect = _Collect()
    collect.visit(fn)
    grouped: dict[Span, list[str]] = {}
    for span, text in collect.sync:
        if span.is_known and span in collect.other:
            grouped.setdefault(span, []).append(text)
    return [SyncSite(span, tuple(texts)) for span, texts in grouped.items()]


__all__ = ["SyncSite", "function_sync_sites"]
