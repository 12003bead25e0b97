"""The PTOAS versions ptoc writes PTO MLIR for, and the forms that differ between them.

v0.57 is the version today's PyPTO pins (2026-08) and the default; v0.27 is the 2026-03
edition's. Both read the module header and ``pto.entry``; where one spells a form
differently, the generator asks here (docs/codegen-pto.md).
"""

from __future__ import annotations

# Each supported version and the folder of its vendor copy (../shared/vendor/ beside the
# repository); the first is the default.
VENDOR_FOLDERS = {"0.57": "ptoas-v0.57", "0.27": "ptoas"}
DEFAULT_VERSION = next(iter(VENDOR_FOLDERS))
VERSIONS = tuple(VENDOR_FOLDERS)
OLDEST = VERSIONS[-1]


def _number(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


SUBVIEW = "pto.subview"


def has_subview(version: str) -> bool:
    """v0.57 names the aliasing window of a tile ``pto.subview`` and states its result
    type; v0.27 called it ``pto.subset``, typed by its source."""
    return _number(version) >= _number("0.57")


def mask_extra_rows(version: str) -> int:
    """Rows v0.57 wants in ``pto.tprelu``'s UINT8 mask beyond the result's (A2/A3: at least
    valid rows + 1, as pto-isa asserts); v0.27 wants the mask shaped like the sources."""
    return 1 if _number(version) >= _number("0.57") else 0


def has_pipe_ids(version: str) -> bool:
    """v0.57's frontend pipe ops carry a pipe ``id`` and ``slot_num`` / ``local_slot_num``;
    v0.27's had neither (one pipe per kernel)."""
    return _number(version) >= _number("0.57")


def takes(version: str, since: str) -> bool:
    """Whether PTOAS ``version`` takes a form the registry says ``since`` takes (``""``: all)."""
    return not since or _number(version) >= _number(since)
