"""Names for the variables a pass adds to a function, reserving the function's own names only
once a pass asks for one: most functions a pass visits need no new name, and finding the
names a function binds walks all of it."""

from __future__ import annotations

from ..ir.function import Function
from .irutil import NameAllocator, defined_vars


class FunctionNames(NameAllocator):
    """``NameAllocator(v.name for v, _ in defined_vars(fn))``, filled on first use."""

    def __init__(self, fn: Function) -> None:
        super().__init__()
        self.fn: Function | None = fn

    def fresh(self, name: str) -> str:
        self.reserve()
        return super().fresh(name)

    def temp(self, prefix: str = "_t") -> str:
        self.reserve()
        return super().temp(prefix)

    def reserve(self) -> None:
        if self.fn is not None:
            self.reserved.update(v.name for v, _ in defined_vars(self.fn))
            self.fn = None
