"""What the back-end passes need to know about the hardware: buffer capacities, address
alignment, and which pipes need a barrier between dependent instructions of their own."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..ir.types import MemorySpace
from ..ops.registry import PipeType
from ..records import field, record

KIB = 1024

_DEFAULT_CAPACITIES: Mapping[MemorySpace, int] = MappingProxyType(
    {
        MemorySpace.Vec: 192 * KIB,  # UB
        MemorySpace.Mat: 512 * KIB,  # L1
        MemorySpace.Left: 64 * KIB,  # L0A
        MemorySpace.Right: 64 * KIB,  # L0B
        MemorySpace.Acc: 128 * KIB,  # L0C
        MemorySpace.Bias: 1 * KIB,  # BT (bias table)
    }
)


@record(frozen=True)
class Target:
    """An accelerator core as the memory and sync passes see it.

    ``capacities`` bounds each on-chip memory space in bytes; a space it does not list (DDR)
    is unbounded.
    ``barrier_pipes`` lists the pipes whose instructions may overlap, so that an instruction
    reading what an earlier instruction of the same pipe wrote needs a ``pipe_barrier``
    (``system.bar_v`` / ``system.bar_m``) in between.
    """

    name: str = "ascend"
    capacities: Mapping[MemorySpace, int] = field(default_factory=lambda: _DEFAULT_CAPACITIES)
    alignment: int = 32
    barrier_pipes: frozenset[PipeType] = frozenset({PipeType.V, PipeType.M})

    def __hash__(self) -> int:
        capacities = tuple(sorted((s.name, n) for s, n in self.capacities.items()))
        return hash((self.name, capacities, self.alignment, self.barrier_pipes))

    def capacity(self, space: MemorySpace) -> int | None:
        """Bytes available in ``space``; None when unbounded (DDR)."""
        return self.capacities.get(space)

    def align(self, address: int) -> int:
        return -(-address // self.alignment) * self.alignment


DEFAULT_TARGET = Target()
