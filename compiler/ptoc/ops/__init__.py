"""The operator registry and the ops of every category (importing this registers them all)."""

from . import block, system, tensor  # noqa: F401  (registration side effects)
from .dispatch import Resolution, dsl_spellings, resolve_op
from .registry import (
    REGISTRY,
    REQUIRED,
    Access,
    Category,
    DeduceContext,
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
    "LegacyForm",
    "Lowering",
    "OpDef",
    "OpError",
    "Param",
    "ParamKind",
    "PipeType",
    "Resolution",
    "Role",
    "dsl_spellings",
    "register",
    "resolve_op",
]
