"""Checking a JIT kernel for every shape: each bare tensor parameter gets the rank its uses
show (``pl.load(a, [i, j], ...)`` -> rank 2) and a fresh symbolic dimension per axis. Only a
clash between constant tile shapes survives that check: it holds whatever the call passes, so
it is reported where it is, not at a call."""

from __future__ import annotations

import ast
import re

from ..diagnostics import Diagnostic
from ..ir.dtype import INDEX, DataType, dtype_variable, is_dtype_variable
from ..ir.expr import Var
from ..ir.types import ScalarType, TensorType, Type, UnknownType
from ..records import record
from .consteval import ConstEvaluator, NotConstant
from .jit_calls import bare_tensor
from .names import attribute_chain

_INDEX = ScalarType(INDEX)


@record(frozen=True, slots=True)
class AnyTensor(UnknownType):
    """A bare ``pl.Tensor`` parameter before a call gives it a rank, dims and dtype: unknown,
    so the type rules stay silent on it."""

    def short(self) -> str:
        return "Tensor[?, ?]"


ANY_TENSOR = AnyTensor()
# The element type of a tensor drawn for its task graph alone (``graph_shapes``).
_PLACEHOLDER = DataType.FP32
_SHAPE_CLASH = "E307"
_SHAPES = re.compile(r"\[([^\]]*)\]")


def used_ranks(fn: ast.FunctionDef) -> dict[str, int]:
    """The rank each name is used with, in one walk of the kernel (a walk per parameter was
    quadratic in a huge signature): the offsets of its first load or store, a subscript of it,
    or an unpacking of its shape."""
    ranks: dict[str, int] = {}
    for node in ast.walk(fn):
        found = rank_use(node)
        if found is not None and found[0] not in ranks:
            ranks[found[0]] = found[1]
    return ranks


def rank_use(node: ast.AST) -> tuple[str, int] | None:
    """(name, rank) when ``node`` shows the rank of a name."""
    if isinstance(node, ast.Call):
        chain = attribute_chain(node.func) or []
        args = node.args
        if chain and chain[-1] in ("load", "store") and len(args) >= 2:
            tensor = args[0] if chain[-1] == "load" else (args[2] if len(args) > 2 else None)
            if isinstance(tensor, ast.Name) and isinstance(args[1], ast.List | ast.Tuple):
                return tensor.id, len(args[1].elts)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        index = node.slice
        return node.value.id, len(index.elts) if isinstance(index, ast.Tuple) else 1
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
        value = node.value
        if (
            isinstance(value, ast.Attribute)
            and value.attr == "shape"
            and isinstance(value.value, ast.Name)
        ):
            return value.value.id, len(node.targets[0].elts)
    return None


def symbolic_shapes(fn: ast.FunctionDef) -> dict[str, Type]:
    """Each bare tensor parameter whose rank is known: a tensor of symbolic dims."""
    shapes: dict[str, Type] = {}
    ranks = used_ranks(fn)
    for arg in fn.args.args:
        if bare_tensor(arg.annotation) is None:
            continue
        rank = ranks.get(arg.arg)
        if rank:  # its element type is its own, dtype(a), however many there are
            shapes[arg.arg] = _symbolic_tensor(arg.arg, rank, dtype_variable(arg.arg))
    return shapes


def _symbolic_tensor(name: str, rank: int, dtype: DataType) -> TensorType:
    return TensorType(tuple(Var(_INDEX, name=f"{name}_dim{i}") for i in range(rank)), dtype)


def graph_shapes(fn: ast.FunctionDef) -> dict[str, Type]:
    """Each bare tensor parameter a tensor of symbolic dims, for drawing the kernel's task
    graph when no call gives it shapes: the rank its uses show, else the largest rank the
    other parameters show (else 2), so that ops on it keep their operands (which tensors a
    region reads and writes) though its extents are unknown."""
    ranks = used_ranks(fn)
    bare = [arg.arg for arg in fn.args.args if bare_tensor(arg.annotation) is not None]
    default = max((ranks[name] for name in bare if name in ranks), default=2)
    shapes: dict[str, Type] = {}
    for name in bare:
        shapes[name] = _symbolic_tensor(name, ranks.get(name) or default, _PLACEHOLDER)
    return shapes


def dtype_variables(shapes: dict[str, Type]) -> dict[str, str]:
    """Each bare tensor whose element type is its own variable (``symbolic_shapes``) and that
    variable: ``{"a": "dtype(a)"}``."""
    return {
        name: t.dtype.name
        for name, t in shapes.items()
        if isinstance(t, TensorType) and is_dtype_variable(t.dtype)
    }


def every_shape(diagnostic: Diagnostic) -> bool:
    """A shape clash between tiles of constant shapes (no symbolic dim, no element type in the
    message): what the call passes cannot change it."""
    if diagnostic.code != _SHAPE_CLASH:
        return False
    shapes = _SHAPES.findall(diagnostic.message)
    return len(shapes) >= 2 and all(re.fullmatch(r"[\d, ]+", s) for s in shapes)


def call_needs(fn: ast.FunctionDef, consts: ConstEvaluator) -> dict[str, str]:
    """Per bare tensor parameter, what a call must pass: the rank its uses show and, per axis,
    the least extent its loads with constant offsets and sizes reach."""
    needs: dict[str, str] = {}
    ranks, loads = used_ranks(fn), tensor_loads(fn)
    for arg in fn.args.args:
        if bare_tensor(arg.annotation) is None:
            continue
        rank = ranks.get(arg.arg)
        least = load_extents(loads.get(arg.arg, []), consts)
        if least and (rank is None or len(least) == rank):
            needs[arg.arg] = f"rank {len(least)}, at least [{', '.join(map(str, least))}]"
        elif rank:
            needs[arg.arg] = f"rank {rank}"
    return needs


def tensor_loads(fn: ast.FunctionDef) -> dict[str, list[ast.Call]]:
    """Each name's ``pl.load(name, offsets, sizes)`` calls, in walk order (one walk)."""
    loads: dict[str, list[ast.Call]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and len(node.args) >= 3):
            continue
        chain = attribute_chain(node.func) or []
        tensor = node.args[0]
        if chain and chain[-1] == "load" and isinstance(tensor, ast.Name):
            loads.setdefault(tensor.id, []).append(node)
    return loads


def load_extents(calls: list[ast.Call], consts: ConstEvaluator) -> list[int]:
    """Per axis, the least extent these loads with constant offsets and sizes reach."""
    least: list[int] = []
    for node in calls:
        offsets, sizes = node.args[1:3]
        try:
            reach = [
                int(consts.evaluate(o)) + int(consts.evaluate(n))
                for o, n in zip(elements(offsets), elements(sizes), strict=True)
            ]
        except (NotConstant, TypeError, ValueError):
            continue
        if least and len(reach) != len(least):
            return []  # used with two ranks: the type rules will say so
        least = [max(pair) for pair in zip(least, reach, strict=True)] if least else reach
    return least


def elements(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.List | ast.Tuple):
        return list(node.elts)
    raise NotConstant("not a list")
