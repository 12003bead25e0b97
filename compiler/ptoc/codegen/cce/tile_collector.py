"""TileCollector: the tile variables a kernel declares in its prologue (seed 000, phase 1).

Every Var bound by an AssignStmt whose type is a tile, in body order (loops and branches
included). IfStmt return_vars are not AssignStmts and are left out: the if declares them.
"""

from __future__ import annotations

from ...ir.expr import Var
from ...ir.stmt import AssignStmt, Stmt
from ...ir.types import TileType
from ...ir.walk import walk_stmts


class TileCollector:
    @staticmethod
    def collect(body: Stmt) -> list[tuple[AssignStmt, TileType]]:
        """Statements only: an assignment is never inside an expression."""
        tiles: list[tuple[AssignStmt, TileType]] = []
        seen: set[Var] = set()
        for stmt in walk_stmts(body):
            if type(stmt) is AssignStmt:
                var_type = stmt.var.type
                if isinstance(var_type, TileType) and stmt.var not in seen:
                    seen.add(stmt.var)
                    tiles.append((stmt, var_type))
        return tiles
