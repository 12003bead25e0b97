"""2026-08's ``break`` and ``continue``: only inside a loop, and not inside one whose iterations
run at once or are unrolled (``pl.parallel``, ``pl.unroll``, ``pl.spmd``, ``pl.split_aiv``),
as upstream checks."""

from __future__ import annotations

import ast

from ...ir.stmt import LoopJumpStmt, Stmt
from .assignments import unsupported_statement
from .core import Lowerer

_NO_JUMPS = ("parallel", "unroll", "spmd", "split_aiv")


def lower_jump(lw: Lowerer, node: ast.Break | ast.Continue) -> list[Stmt]:
    keyword = "break" if isinstance(node, ast.Break) else "continue"
    if not lw.env.rules.loop_jumps:  # 2026-03 has no break / continue
        return unsupported_statement(lw, node)
    if not lw.state.loops:
        lw.error("E014", f"`{keyword}` outside a loop", node)
        return []
    innermost = lw.state.loops[-1]
    if innermost in _NO_JUMPS:
        lw.error("E014", f"`{keyword}` is not allowed in a pl.{innermost} loop", node)
        return []
    return [LoopJumpStmt(keyword, span=lw.span(node))]
