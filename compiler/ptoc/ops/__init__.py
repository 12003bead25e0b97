"""The operator registry and the ops of every category. Importing this registers the 2026-03
ops and 2026-08's spellings of them (renames); the ops 2026-08 added are registered when first
looked up or walked (ops/lazy.py)."""

# Registration side effects: the 2026-03 ops and 2026-08's spellings of them (renames).
from . import block, renames, system, tensor  # noqa: F401
from .dispatch import Resolution, dsl_spellings, resolve_op
from .lazy import defer, load_all
from .pld import GROUPS as PLD_GROUPS
from .pld import pld_spellings, resolve_pld
from .registry import (
    GM_ELEMENT,
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

defer()

__all__ = [
    "GM_ELEMENT",
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
    "load_all",
    "pld_spellings",
    "register",
    "resolve_op",
    "resolve_pld",
]
