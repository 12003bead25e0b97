"""TileCollector: the tile variables a kernel declares in its prologue (seed 000, phase 1).

Every Var bound by an AssignStmt whose type is a tile, in body order (loops and branches
included). IfStmt return_vars are not AssignStmts and are left out: the if declares them.
"""

from __future__ import annotations

from ...ir.expr import Var
from ...ir.stmt import AssignStmt, Stmt
from ...ir.types import TileType
from ...ir.visitor import IRVisitor


class TileCollector(IRVisitor):
    def __init__(self) -> None:
        self.tiles: list[tuple[AssignStmt, TileType]] = []
        self._seen: set[Var] = set()

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        var_type = stmt.var.type
        if isinstance(var_type, TileType) and stmt.var not in self._seen:
            self._seen.add(stmt.var)
            self.tiles.append((stmt, var_type))

    @classmethod
    def collect(cls, body: Stmt) -> list[tuple[AssignStmt, TileType]]:
        collector = cls()
        collector.visit(body)
        return collector.tiles
