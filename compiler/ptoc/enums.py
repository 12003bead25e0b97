"""``IdentityEnum``: an ``Enum`` hashed by identity, for the enums the compiler hashes most.

``Enum.__hash__`` is Python code (``hash(self._name_)``), a call each time a member keys a dict
or a set: about 35,000 times per back-end run of a 2,000-line kernel (pipes, op roles, memory
spaces, data types, tile layouts, field roles). Members are singletons compared by identity, so
``object.__hash__`` is as correct and runs in C. (Sets of members never iterated in a stable
order between processes anyway: string hashes are salted.)
"""

from __future__ import annotations

from enum import Enum


class IdentityEnum(Enum):
    __hash__ = object.__hash__
