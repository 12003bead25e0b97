"""Per-function state of the host code generator: the output lines, the C++ expression of
each variable, the tensor analysis, and the task count."""

from __future__ import annotations

from ....diagnostics import DiagnosticBag
from ....ir import expr as ex
from ....ir.function import Function, Program
from .analysis import Tensors


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text if text else "")


class HostContext:
    def __init__(self, program: Program | None, func: Function) -> None:
        self.program = program
        self.func = func
        self.out = Lines()
        self.names: dict[ex.Var, str] = {}  # C++ expression of each tensor / scalar variable
        self.diagnostics = DiagnosticBag()
        self.tensors = Tensors(program, func, self.diagnostics)
        self.tasks = 0
