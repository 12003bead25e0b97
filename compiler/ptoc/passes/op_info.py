"""What the passes read from the op registry's traits: an op's pipe, which argument binds
which parameter, where a result tile lives, which arguments an op writes, and which ops the
passes create themselves (sync flags, barriers, uninitialised values)."""

from __future__ import annotations

from collections.abc import Callable

from ..ir.expr import Call, Expr, Op, Var
from ..ir.types import MemorySpace, TileType
from ..ops.registry import REGISTRY, Access, OpDef, PipeType, Role


def op_def(call: Call) -> OpDef | None:
    if not isinstance(call.callee, Op):
        return None
    return REGISTRY.get(call.callee.name)


def is_tensor_op(value: Expr, role: Role) -> bool:
    """A call of a tensor-level op of ``role`` (MATMUL: ``tensor.matmul``; STORE:
    ``tensor.assemble``, the one tensor op that stores)."""
    op = op_def(value) if isinstance(value, Call) else None
    return op is not None and op.namespace == "tensor" and op.role is role


def op_pipe(call: Call) -> PipeType | None:
    """The pipe executing a registered op; None for function calls and unknown ops."""
    op = op_def(call)
    return op.pipe if op is not None else None


def bound_args(call: Call) -> dict[str, Expr]:
    """Positional arguments by the name of the parameter they bind (expression parameters
    take ``Call.args`` in order). Empty for unregistered ops and function calls."""
    op = op_def(call)
    if op is None:
        return {}
    return op.bind(call.args)


def written_args(call: Call) -> list[Expr]:
    """The arguments an op writes: a store's output tensor, a scratch (tmp) tile."""
    op = op_def(call)
    if op is None:
        return []
    args = call.args
    return [args[i] for i in written_positions(op) if i < len(args)]


def written_positions(op: OpDef) -> tuple[int, ...]:
    """Which positional arguments (``Call.args``) ``op`` writes, remembered per op: the
    passes ask per statement, and most ops write none."""
    known = _WRITTEN.get(op.name)
    if known is None or known[0] is not op:
        positions = tuple(i for i, p in enumerate(op.expr_params) if p.access is Access.WRITE)
        known = _WRITTEN[op.name] = (op, positions)
    return known[1]


_WRITTEN: dict[str, tuple[OpDef, tuple[int, ...]]] = {}


def aliased_arg(call: Call) -> Expr | None:
    """The argument whose storage the op's result is (a store's output tensor, the source
    of a tensor view), if any."""
    op = op_def(call)
    if op is None or op.aliases is None:
        return None
    return bound_args(call).get(op.aliases)


def accumulator_of(call: Call) -> Var | None:
    """The Acc tile an accumulating product adds into, which its result is (a matmul-role op
    whose ``OpDef.aliases`` names a tile operand: ``block.matmul_acc``'s ``acc``; A2/A3's
    TMATMUL_ACC(out, in, a, b) adds into ``out`` and ignores ``in``); None for other calls."""
    op = op_def(call)
    if op is None or op.aliases is None or op.role is not Role.MATMUL:
        return None
    operand = bound_args(call).get(op.aliases)
    if isinstance(operand, Var) and isinstance(operand.type, TileType):
        return operand
    return None


def stored_into(call: Call) -> Expr | None:
    """The tensor a store-like op writes into (its result is that tensor, updated)."""
    op = op_def(call)
    return aliased_arg(call) if op is not None and op.role is Role.STORE else None


def tile_space(value: Expr) -> MemorySpace:
    """Where the tile an expression produces lives: the op's result space (its
    ``target_memory`` attribute when it has one, Acc for the cube's products), else Vec."""
    if isinstance(value, Call):
        op = op_def(value)
        if op is not None:
            return op.result_space_for(dict(value.kwargs))
    return MemorySpace.Vec


def is_inserted_sync(call: Call) -> bool:
    """Sync statements InsertSync creates (and removes again when it re-runs)."""
    op = op_def(call)
    return (
        op is not None
        and op.is_sync
        and (op.role is not Role.BARRIER or op.barrier_pipe is not PipeType.ALL)
    )


def _the(role: Role, namespace: str | None = None) -> OpDef:
    found = REGISTRY.with_role(role, namespace)
    if len(found) != 1:
        return REGISTRY.the(role, namespace)  # raises, naming what it found
    return found[0]


def barrier_op(pipe: PipeType) -> OpDef | None:
    """The barrier op ordering ``pipe``'s own work (``REGISTRY.barrier``)."""
    return REGISTRY.barrier(pipe)


def the_first(role: Role, namespace: str | None, test: Callable[[OpDef], bool]) -> OpDef:
    """The first op of a role (in a namespace) that passes ``test`` (``REGISTRY.first``)."""
    found = REGISTRY.first(role, namespace, test)
    if found is None:
        raise LookupError(f"no {role.value} op in {namespace} is the one wanted")
    return found


def set_flag_op() -> OpDef:
    return _the(Role.SET_FLAG)


def wait_flag_op() -> OpDef:
    return _the(Role.WAIT_FLAG)


def creator_op(namespace: str) -> OpDef:
    """The op creating an uninitialised tile ("block") or tensor ("tensor")."""
    return _the(Role.CREATE, namespace)
