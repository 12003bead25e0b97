"""The operator registry and the ops of every category (importing this registers them all)."""

# Registration side effects: the 2026-03 ops, the ops 2026-08 added, and 2026-08's spellings
# of the 2026-03 ops (renames).
from . import (  # noqa: F401
    block,
    distributed_2608,
    renames,
    system,
    system_2608,
    tensor,
    tensor_2608,
    tensor_2608_data,
    tile_2608,
    tile_2608_cube,
    tile_2608_data,
    tile_2608_gather,
)
from .dispatch import Resolution, dsl_spellings, resolve_op
from .distributed_2608 import GROUPS as PLD_GROUPS
from .distributed_2608 import pld_spellings, resolve_pld
from .registry import (
    REGISTRY,
    REQUIRED,
    Access,
    Category,
    DeduceContext,
    EditionForm,
    LegacyForm,
    Lowering,
    OpDef,
    OpError,
    Param,
    ParamKind,
    PipeType,
    Role,
    register,
)

__all__ = [
    "REGISTRY",
    "REQUIRED",
    "Access",
    "Category",
    "DeduceContext",
    "EditionForm",
    "LegacyForm",
    "Lowering",
    "OpDef",
    "PLD_GROUPS",
    "OpError",
    "Param",
    "ParamKind",
    "PipeType",
    "Resolution",
    "Role",
    "dsl_spellings",
    "pld_spellings",
    "register",
    "resolve_op",
    "resolve_pld",
]
