"""Per-function state of the host code generator: the output lines, the C++ expression of
each variable, the tensor analysis, and the task count."""

from __future__ import annotations

import re

from ....diagnostics import DiagnosticBag
from ....ir import expr as ex
from ....ir.function import Function, Program
from ...cpp_names import is_reserved
from .analysis import Tensors

# What the host code itself names (the runtime's API, the entry's parameters, the helper).
HOST_NAMES = frozenset(
    """rt args arg_count conv float_to_u64 f32 u64 Tensor PTOParam DataType make_tensor
    make_tensor_external make_input_param make_output_param make_inout_param make_scalar_param
    pto2_rt_submit_task PTO2_SCOPE PTO2Runtime PTO2OrchestrationConfig PTO2_WORKER_VECTOR
    PTO2_WORKER_CUBE aicpu_orchestration_entry aicpu_orchestration_config printf""".split()
)
_TASK_PARAMS = re.compile(r"params_t\d+")


def derived(name: str) -> set[str]:
    """Every identifier the host code makes of a variable's C++ name."""
    upper = name.upper()
    return {
        name,
        f"ext_{name}",
        f"arg_{name}_ptr",
        f"{name}_shapes",
        f"idx_{name}",
        f"ARG_PTR_{upper}",
        f"ARG_SCALAR_{upper}",
    }


def ascii_identifier(name: str) -> str:
    """``name`` in ASCII: a character outside it becomes ``u<hex>`` (C++ compilers differ on
    which Unicode letters they take); a keyword or a name of the runtime gets a ``_``."""
    text = "".join(c if c.isascii() else f"u{ord(c):x}" for c in name)
    return text + "_" if is_reserved(text) or text in HOST_NAMES else text


class HostNames:
    """The C++ name of each variable name of a host function: the name itself when it is an
    ASCII identifier that meets nothing the code generator writes, else a name made so (a
    ``_1``, ``_2``... suffix until none of the identifiers derived from it is taken)."""

    def __init__(self) -> None:
        self.chosen: dict[str, str] = {}
        self.taken: set[str] = set(HOST_NAMES)

    def __call__(self, name: str) -> str:
        found = self.chosen.get(name)
        if found is not None:
            return found
        base = ascii_identifier(name)
        candidate, n = base, 0
        while self._clashes(candidate):
            n += 1
            candidate = f"{base}_{n}"
        self.taken |= derived(candidate)
        self.chosen[name] = candidate
        return candidate

    def _clashes(self, candidate: str) -> bool:
        names = derived(candidate)
        return bool(names & self.taken) or any(_TASK_PARAMS.fullmatch(n) for n in names)


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
        self.ident = HostNames()  # a variable name -> its C++ identifier
        self.diagnostics = DiagnosticBag()
        self.tensors = Tensors(program, func, self.diagnostics)
        self.tasks = 0
