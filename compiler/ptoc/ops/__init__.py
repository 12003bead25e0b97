"""The operator registry and the ops of every category (importing this registers them all)."""

from . import block, system, tensor  # noqa: F401  (registration side effects)
from .dispatch import Resolution, resolve_op
from .registry import (
    REGISTRY,
    REQUIRED,
    Category,
    DeduceContext,
    LegacyForm,
    Lowering,
    OpDef,
    OpError,
    Param,
    ParamKind,
    PipeType,
    register,
)

__all__ = [
    "REGISTRY", "REQUIRED", "Category", "DeduceContext", "LegacyForm", "Lowering", "OpDef",
    "OpError", "Param", "ParamKind", "PipeType", "Resolution", "register", "resolve_op",
]
