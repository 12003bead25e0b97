"""The operator registry and the ops of every category (importing this registers them all)."""

from . import (  # noqa: F401  (registration side effects)
    block,
    renames,  # noqa: F401  (after every registration: 2026-08's spellings)
    system,
    tensor,
)
from .dispatch import Resolution, dsl_spellings, resolve_op
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
