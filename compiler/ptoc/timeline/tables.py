"""Cycle facts, read at run time from the pto-isa installation (never copied here).

* ``include/pto/costmodel/arch_config.hpp``: the A2/A3 clock (``kMainFrequencyHz``) and the
  transfer bandwidths in GiB/s (``kA2A3ArchConfig``, in ``BandwidthTable``'s field order).
* ``include/pto/costmodel/a2a3/cce_costmodel/cce_costmodel_vector_compute.hpp``: each vector
  intrinsic's ``EstimateLinearCycles(repeat, head, slope, tail)`` (defaults 6, 2, 0).
* ``include/pto/npu/a2a3/T<Name>.hpp``: which intrinsic an instruction is made of (the first
  costed intrinsic its A2/A3 implementation calls).

Two facts are constants of pto-isa's cost model that no table holds, named with their source:
the cube's ``TryEstimateMadCycles`` (``formula_backend_compute.hpp``: 6 cycles, then per
16 x (32 B / element) x 16 fractal 1 cycle, 2 for FP32) and the 16-cycle count-mode floor of a
binary vector op whose rows are not whole 256-byte repeats (``cce_costmodel_core.hpp``).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import field, record

COSTMODEL = Path("include/pto/costmodel")
_BANDWIDTHS = (
    "GM_TO_UB GM_TO_L1 UB_TO_GM L1_TO_GM UB_TO_UB L0C_TO_GM L0C_TO_L1 L1_TO_L0A L1_TO_L0B "
    "L1_TO_BT L1_TO_FB L1_FILL"
).split()
_LINEAR = re.compile(
    r"inline void (\w+)\([^{]*\{(?:(?!inline void).)*?EstimateLinearCycles\(\s*repeat\s*"
    r"(?:,\s*(?:/\*\w+=\*/)?(\d+)\s*(?:,\s*(?:/\*\w+=\*/)?(\d+)\s*(?:,\s*(\d+))?)?)?\)",
    re.DOTALL,
)
#: cce_costmodel_core.hpp, EstimateLinearCycles' defaults.
DEFAULT_LINEAR = (6, 2, 0)
#: cce_costmodel_core.hpp, kCountModeFloorCycles.
COUNT_MODE_FLOOR = 16
#: formula_backend_compute.hpp, TryEstimateMadCycles.
MAD_HEAD, MAD_FRACTAL_M, MAD_FRACTAL_N, MAD_FRACTAL_K_BYTES = 6, 16, 16, 32
REPEAT_BYTES = 256
#: Instructions whose intrinsic is not named after them: TMOV between vector tiles is a vcopy
#: (npu/a2a3/TMov.hpp), TCVT a vconv_* whose cost is EstimateVconvCycles (cce_costmodel_core.hpp).
_CONV = ("kConvHeadCycles", "kConvSlope", "kConvTailCycles")
_ALIASES = {"TMOV": "vcopy", "TCVT": "vconv"}


class TablesMissing(Exception):
    """pto-isa's cost-model headers are not where they should be."""


@record
class CostTables:
    frequency_hz: float
    bandwidth: dict[str, float]  # GiB/s by transfer (GM_TO_UB, ...)
    linear: dict[str, tuple[int, int, int]]  # vector intrinsic -> head, slope, tail
    root: Path
    _intrinsics: dict[str, str | None] = field(default_factory=dict)

    @staticmethod
    def load(root: Path) -> CostTables:
        arch = _read(root / COSTMODEL / "arch_config.hpp")
        cce = root / COSTMODEL / "a2a3/cce_costmodel"
        vector = _read(cce / "cce_costmodel_vector_compute.hpp")
        core = _read(cce / "cce_costmodel_core.hpp")
        frequency = re.search(r"kMainFrequencyHz\s*=\s*([\d.eE+]+)L?", arch)
        block = re.search(r"kA2A3ArchConfig\{[^{]*\{([^}]*)\}", arch)
        if frequency is None or block is None:
            raise TablesMissing(f"no A2/A3 clock or bandwidths in {root / COSTMODEL}")
        numbers = [float(n) for n in re.findall(r"[\d.]+", block.group(1))]
        linear = {
            m[1]: tuple(
                int(v) if v else d for v, d in zip(m.groups()[1:], DEFAULT_LINEAR, strict=True)
            )
            for m in _LINEAR.finditer(vector)
        }
        conv = [re.search(rf"{name}\s*=\s*(\d+)", core) for name in _CONV]
        if all(conv):
            linear["vconv"] = tuple(int(m[1]) for m in conv if m)
        return CostTables(
            float(frequency.group(1)),
            dict(zip(_BANDWIDTHS, numbers, strict=False)),
            linear,  # type: ignore[arg-type]
            root,
        )

    def transfer_cycles(self, nbytes: int, path: str) -> int:
        """``EstimateBandwidthCycles``: bytes over the path's bandwidth, at the clock."""
        bandwidth = self.bandwidth.get(path, 0.0)
        if bandwidth <= 0:
            return 0
        return int(nbytes / float(1 << 30) / bandwidth * self.frequency_hz)

    def intrinsic(self, instruction: str) -> str | None:
        """The costed intrinsic ``instruction``'s A2/A3 implementation calls first."""
        if instruction not in self._intrinsics:
            self._intrinsics[instruction] = self._find_intrinsic(instruction)
        return self._intrinsics[instruction]

    def _find_intrinsic(self, instruction: str) -> str | None:
        """``v`` + its name when that is costed (TADD: vadd); else the first costed call in
        its header (TRowSum.hpp), or in the op struct its ``_IMPL`` names (TEXP_IMPL:
        ExpOp, vexp)."""
        named = _ALIASES.get(instruction, "v" + instruction[1:].lower())
        if named in self.linear:
            return named
        folder = self.root / "include/pto/npu/a2a3"
        try:
            headers = sorted(folder.glob("*.hpp"))
        except OSError:
            return None
        wanted = instruction.lower() + ".hpp"
        for header in headers:
            if header.name.lower() == wanted:
                return self._first_costed(_read(header))
        for header in headers:
            text = _read(header)
            impl = text.find(f"void {instruction}_IMPL(")
            if impl < 0:
                continue
            end = text.find("\n}", impl)
            body = text[impl : end if end > 0 else impl + 800]
            delegate = re.search(r"\b(T[A-Z0-9]+)_IMPL\(", body[len(instruction) + 10 :])
            if delegate and delegate[1] != instruction:  # TNEG_IMPL: TMULS_IMPL(dst, src, -1)
                return self.intrinsic(delegate[1])
            op = re.search(r"\b(\w+Op)<", body)
            struct = text.find(f"struct {op[1]}") if op else -1
            return self._first_costed(text[struct:] if struct >= 0 else body)
        return None

    def _first_costed(self, text: str) -> str | None:
        calls = re.finditer(r"\b(v[a-z0-9_]+)\s*\(", text)
        return next((c[1] for c in calls if c[1] in self.linear), None)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TablesMissing(f"cannot read {path}: {exc.strerror or exc}") from None
