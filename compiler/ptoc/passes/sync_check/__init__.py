"""The static synchronisation checker: is every pipe of a lowered function ordered?

``verify_function`` reads a function after AllocateMemoryAddr (InsertSync's output, or the
``ptoas`` pipeline's, which keeps the sync the user wrote) into per-pipe instructions
(``stream.py``) and walks them with vector clocks (``checker.py``, ``state.py``). Findings
are E410-E415 diagnostics on the lines of the statements involved. ``ptoc compile
--verify-sync`` runs it on every function that runs on the accelerator.
"""

from __future__ import annotations

from ...diagnostics import Diagnostic
from ...ir.function import Function, FunctionType, Program
from ...ops.registry import Role
from ..irutil import op_call_of, walk_stmts
from ..op_info import op_def
from ..target import DEFAULT_TARGET, Target
from .checker import SyncChecker
from .stream import StreamReader


def verify_function(fn: Function, target: Target = DEFAULT_TARGET) -> list[Diagnostic]:
    """Every synchronisation defect of ``fn`` (an Orchestration function runs on the host:
    nothing to check)."""
    if fn.func_type is FunctionType.Orchestration:
        return []
    return SyncChecker(StreamReader(fn).nodes, target).run()


def holds_sync(fn: Function) -> bool:
    """Whether ``fn`` sets or waits for events itself (written by hand, or printed IR after
    InsertSync): then it manages its sync, and the checker reports on it when nothing inserts
    sync. A barrier alone does not count: InsertSync still plans the flags around it."""
    for stmt in walk_stmts(fn.body):
        call = op_call_of(stmt)
        op = op_def(call) if call is not None else None
        if op is not None and op.role in (Role.SET_FLAG, Role.WAIT_FLAG):
            return True
    return False


def verify_program(program: Program, target: Target = DEFAULT_TARGET) -> list[Diagnostic]:
    return [d for fn in program.functions for d in verify_function(fn, target)]


__all__ = ["holds_sync", "verify_function", "verify_program"]
