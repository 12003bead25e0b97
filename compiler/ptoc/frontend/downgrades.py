"""The rewrite table read backwards: where a file whose chosen edition is 2026-03 writes a
2026-08 spelling, the edits that spell it the 2026-03 way (W031's quick fix). Only renames and
the store's arguments go back mechanically; other 2026-08 constructs have no 2026-03 spelling.
"""

from __future__ import annotations

import ast

from ..diagnostics import TextEdit
from ..ir.expr import Call, ConstInt, MakeTuple
from ..ops import sugar
from .names import dsl_path
from .upgrades import TENSOR_NAMES, TILE_NAMES, Planner, UpgradePlan, prefix_node, with_items

#: 2026-08 name -> 2026-03 name, in ``pl.tile`` (``pl.block`` in 2026-03), at top level and in
#: ``pl.tensor``. (``pl.tile.store`` of an Acc tile is 2026-03's ``l0c_store``: from the IR.)
BLOCK_NAMES = {new: old for old, new in TILE_NAMES.items() if old != "l0c_store"}
OLD_UNIFIED = {"slice": "view", "maximums": "maxs", "minimums": "mins"}
OLD_TENSOR = {**{new: old for old, new in TENSOR_NAMES.items()}, "slice": "view"}


class OldSpellings(Planner):
    """Finds the 2026-08 spellings of a module analysed as 2026-03."""

    def plan(self, tree: ast.Module) -> UpgradePlan:
        scopes = {id(item.context_expr) for item in with_items(tree) if not item.optional_vars}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.new_call(node, id(node) in scopes)
        return UpgradePlan(sorted(self.rewrites, key=lambda r: r.span[1:3]), [])

    def new_call(self, node: ast.Call, in_with: bool) -> None:
        path = dsl_path(node.func, self.imports)
        head = prefix_node(node.func, path)
        if path is None or head is None:
            return
        if len(path) == 2 and path[0] == "tile":
            name = path[1]
            if name == "store" and self.lowered_name(node) == sugar.ACC_STORE:
                name = "l0c_store"
            self.rename_back(node, head, f"block.{BLOCK_NAMES.get(name, name)}", "pl.tile.X")
        elif len(path) == 2 and path[0] == "tensor" and path[1] in OLD_TENSOR:
            self.rename_back(node, head, f"tensor.{OLD_TENSOR[path[1]]}", "pl.tensor.X")
        elif path == ("at",) and in_with and is_core_group(node):
            prefix = self.source.segment(head)
            self.add(
                "pl.at(level=CORE_GROUP)", node, (self.edit(node, node, f"{prefix}.incore()"),)
            )
        elif len(path) == 1 and (path[0] in OLD_UNIFIED or path[0] == "store"):
            name = OLD_UNIFIED.get(path[0], path[0])
            if name == "store" and self.lowered_name(node) == sugar.ACC_STORE:
                name = "l0c_store"
            self.rename_back(node, head, name, f"pl.{path[0]}")

    def rename_back(self, node: ast.Call, head: ast.expr, old_path: str, row: str) -> None:
        edits: list[TextEdit] = []
        written = self.source.segment(node.func)[len(self.source.segment(head)) :]
        if written != f".{old_path}":
            edits.append(self.between(head, node.func, f".{old_path}", after_first=True))
        if old_path.rsplit(".", 1)[-1] in ("store", "l0c_store"):
            shapes = self.store_shapes(node)
            if shapes is None:
                return  # already the 2026-03 form, or a window ptoc cannot write back
            edits += shapes
        if edits:
            self.add(row, node, tuple(edits))

    def store_shapes(self, node: ast.Call) -> list[TextEdit] | None:
        """2026-08's ``store(tile, offsets, out[, shapes])`` -> ``(tile, offsets, shapes, out)``."""
        args = node.args
        if node.keywords or len(args) not in (3, 4) or isinstance(args[2], ast.List | ast.Tuple):
            return None
        if len(args) == 4:  # move the window before the tensor
            shapes = self.source.segment(args[3])
            return [
                self.insert_before(args[2], f"{shapes}, "),
                self.between(args[2], args[3], "", True),
            ]
        lowered = self.exprs.get(self.source.span(node))
        if not isinstance(lowered, Call) or len(lowered.args) < 3:
            return None
        window = lowered.args[2]
        if not isinstance(window, MakeTuple) or not all(
            isinstance(e, ConstInt) for e in window.elements
        ):
            return None
        text = ", ".join(str(e.value) for e in window.elements)  # type: ignore[attr-defined]
        return [self.insert_before(args[2], f"[{text}], ")]

    def lowered_name(self, node: ast.Call) -> str:
        lowered = self.exprs.get(self.source.span(node))
        return lowered.op_name if isinstance(lowered, Call) else ""


def is_core_group(node: ast.Call) -> bool:
    """``pl.at(level=pl.Level.CORE_GROUP)`` and nothing else: 2026-03's ``pl.incore()``."""
    if node.args or len(node.keywords) != 1 or node.keywords[0].arg != "level":
        return False
    value = node.keywords[0].value
    return isinstance(value, ast.Attribute) and value.attr == "CORE_GROUP"
