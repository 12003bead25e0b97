"""The enumerations of the 2026-08 language that values of the IR may hold (scope levels,
atomic modes, split modes, ...). Members are read from source as ``pl.Group.NAME``."""

from __future__ import annotations

from enum import Enum


class Level(Enum):
    """Where in the machine's hierarchy a function or a ``pl.at`` scope runs."""

    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    CHIP = 4
    HOST = 5
    CLUSTER_0 = 6
    CLUSTER_1 = 7
    CLUSTER_2 = 8
    GLOBAL = 9
    # Aliases (Enum makes them names of the members above).
    L2CACHE = 3
    PROCESSOR = 4
    UMA = 4
    NODE = 5
    POD = 6
    CLOS1 = 7
    CLOS2 = 8


class Role(Enum):
    Orchestrator = 0
    SubWorker = 1


class AtomicType(Enum):
    None_ = 0
    Add = 1
    Max = 2
    Min = 3


class SplitMode(Enum):
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


class ScopeMode(Enum):
    AUTO = 0
    MANUAL = 1


class PadValue(Enum):
    null = 0
    zero = 1
    max = 2
    min = 3


class TileLayout(Enum):
    none_box = 0
    row_major = 1
    col_major = 2


class CompactMode(Enum):
    null = 0
    normal = 1


class ForKind(Enum):
    Sequential = 0
    Parallel = 1
    Unroll = 2
    Pipeline = 3


class MaskPattern(Enum):
    """``pl.tile.MaskPattern``: the gather / scatter column patterns (values as upstream's)."""

    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7


class NotifyOp(Enum):
    """``pld.NotifyOp``: how a notify changes the peer's signal slot."""

    Set = 0
    AtomicAdd = 1


class WaitCmp(Enum):
    """``pld.WaitCmp``: how a wait compares the local signal slot."""

    Eq = 0
    Ne = 1
    Lt = 2
    Le = 3
    Gt = 4
    Ge = 5


class ReduceOp(Enum):
    """``pld.ReduceOp``: a collective's reduction."""

    Sum = 0
    Max = 1
    Min = 2
    Prod = 3


#: ``pl.<Group>.<member>`` for each group (``pl.tile.MaskPattern`` is read as its last part).
DSL_ENUMS: dict[str, type[Enum]] = {
    e.__name__: e
    for e in (
        Level,
        Role,
        AtomicType,
        SplitMode,
        ScopeMode,
        PadValue,
        TileLayout,
        CompactMode,
        ForKind,
        MaskPattern,
    )
}
#: ``pld.<Group>.<member>``: distributed PyPTO's own.
PLD_ENUMS: dict[str, type[Enum]] = {e.__name__: e for e in (NotifyOp, WaitCmp, ReduceOp)}


def dsl_enum_member(group: str, name: str) -> Enum | None:
    enum = DSL_ENUMS.get(group) or PLD_ENUMS.get(group)
    if enum is None:
        return None
    return enum.__members__.get(name)
