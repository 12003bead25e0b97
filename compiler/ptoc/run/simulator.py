"""Building generated kernels against pto-isa's CPU simulator and running them.

Builds are cached by content hash: the executable for a translation unit is ``CACHE/exe-<sha256 of
the source, the compiler, the flags and pto-isa's header files>``, so an unchanged kernel is never
rebuilt; a source the compiler rejected is remembered the same way (``exe-<hash>.failed`` holds the
compiler's output). With clang, pto-isa's headers are parsed once into a precompiled header
(``CACHE/pto-inst-<hash>.pch``; about 3x faster per build). Files are written under a temporary name
and renamed, so concurrent builders never see half-written results.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..codegen.cce.cpp_types import DTYPE_TO_CPP
from ..ir.dtype import DataType
from ..records import field, record
from ..scratch import run_tool
from .toolchain import SIM_FLAGS, UB_BYTES, Compiler

if TYPE_CHECKING:
    import numpy as np

BUILD_TIMEOUT = 600
# What clang says when a header changed after the precompiled header was made from it.
STALE_PCH = re.compile(r"has been modified since the precompiled header|PCH file|precompiled file")
RUN_TIMEOUT = 120


class BuildFailed(Exception):
    """The C++ compiler rejected the generated code; ``log`` is its output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


@record
class Toolchain:
    compiler: Compiler
    pto_isa: Path
    cache: Path
    debug: bool = False  # `ptoc run --debug`: -g -O0 (the flags are part of every cache key)

    def flags(self) -> list[str]:
        debug = ["-g", "-O0"] if self.debug else []
        return [*SIM_FLAGS, *debug, "-I", str(self.pto_isa / "include")]

    @functools.cached_property
    def headers_fingerprint(self) -> str:
        """Names, sizes and mtimes of pto-isa's headers: a changed checkout is a new key."""
        digest = hashlib.sha256()
        for directory, subdirs, files in sorted(os.walk(self.pto_isa / "include")):
            subdirs.sort()
            for name in sorted(files):
                stat = os.stat(os.path.join(directory, name))
                digest.update(f"{directory}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
        return digest.hexdigest()

    def key(self, *parts: str) -> str:
        digest = hashlib.sha256()
        fixed = (self.compiler.version_text, " ".join(self.flags()), self.headers_fingerprint)
        for part in (*fixed, *parts):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()[:32]


@record
class SimArgument:
    """One kernel argument: a tensor's bytes, or a scalar's 64-bit slot."""

    tensor: bytes | None = None
    scalar_bits: int = 0


@record
class SimRun:
    returncode: int
    stderr: str
    outputs: dict[int, bytes] = field(default_factory=dict)  # argument index -> final bytes
    returns: list[int] = field(default_factory=list)  # raw result slots


def atomic_write(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def _compile(toolchain: Toolchain, arguments: list[str], output: Path) -> None:
    """Run the compiler writing to a temporary name next to ``output``, then rename (its
    intermediate files go to a private folder; the paths given are absolute)."""
    # (a name of this process and thread: two threads may build the same source at once)
    temporary = output.with_name(f"{output.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    command = [toolchain.compiler.command, *toolchain.flags(), *arguments, "-o", str(temporary)]
    try:
        result = run_tool(command, BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise BuildFailed(f"the C++ build timed out after {BUILD_TIMEOUT} s", "") from None
    if result.returncode != 0:
        temporary.unlink(missing_ok=True)
        raise BuildFailed(
            f"{toolchain.compiler.command} rejected the generated code", result.stderr
        )
    os.replace(temporary, output)


def precompiled_header(toolchain: Toolchain) -> Path | None:
    """pto-isa's main header, precompiled once per compiler/flags/pto-isa (clang only)."""
    if toolchain.compiler.family != "clang":
        return None
    header = toolchain.pto_isa / "include" / "pto" / "pto-inst.hpp"
    pch = toolchain.cache / f"pto-inst-{toolchain.key(str(header))}.pch"
    if not pch.exists():
        toolchain.cache.mkdir(mode=0o700, parents=True, exist_ok=True)  # executables run
        _compile(toolchain, ["-x", "c++-header", str(header)], pch)
    return pch


# Compiled against pto-isa with the simulator's flags: fails when its bfloat16_t is _Float16.
_BF16_PROBE = """#include <pto/pto-inst.hpp>
#include <type_traits>
static_assert(!std::is_same<bfloat16_t, _Float16>::value, "ptoc-probe: bfloat16_t is _Float16");
"""


def bf16_is_float16(toolchain: Toolchain) -> bool:
    """Whether pto-isa's CPU simulator, built with these tools, holds ``bfloat16_t`` as
    ``_Float16``: include/pto/common/type.hpp does so unless the compiler offers C++23's
    ``std::bfloat16_t``, and BF16 values are then not simulated as BF16. Asked of the compiler
    and pto-isa themselves once per toolchain (the answer is cached beside the builds)."""
    answer = toolchain.cache / f"bf16-{toolchain.key(str(toolchain.pto_isa), _BF16_PROBE)}"
    if answer.exists():
        return answer.read_text(encoding="utf-8") == "float16"
    toolchain.cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    pch = precompiled_header(toolchain)
    extra = ["-include-pch", str(pch)] if pch is not None else []
    probe = toolchain.cache / f"{answer.name}.cpp"
    atomic_write(probe, _BF16_PROBE.encode("utf-8"))
    command = [toolchain.compiler.command, *toolchain.flags(), *extra, "-fsyntax-only", str(probe)]
    try:
        result = run_tool(command, BUILD_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False  # not known: the run goes ahead
    if result.returncode == 0:
        verdict = "bf16"
    elif "ptoc-probe: bfloat16_t is _Float16" in result.stderr:
        verdict = "float16"
    else:
        return False
    atomic_write(answer, verdict.encode("utf-8"))
    return verdict == "float16"


def bf16_refusal(toolchain: Toolchain, source: str, function: str) -> str | None:
    """Why ``function``'s translation unit cannot be compared on this simulator (it computes
    on BF16, which the simulator holds as _Float16), or None."""
    if DTYPE_TO_CPP[DataType.BF16] not in source or not bf16_is_float16(toolchain):
        return None
    return (
        f"'{function}' cannot be compared on the simulator: it computes on BF16, and pto-isa's "
        f"CPU simulator built with {toolchain.compiler.command} holds bfloat16_t as _Float16 "
        "(include/pto/common/type.hpp: a real bfloat16_t needs C++23 <stdfloat>), so its "
        "results would not be BF16's; without --sim the reference interpreter runs it"
    )


def build(
    toolchain: Toolchain,
    source: str,
    label: str = "kernels",
    progress: Callable[[str], None] | None = None,
) -> Path:
    """The simulator executable for ``source`` (one translation unit), from the cache if there."""
    toolchain.cache.mkdir(mode=0o700, parents=True, exist_ok=True)  # executables run
    executable = toolchain.cache / f"exe-{toolchain.key(str(toolchain.pto_isa), source)}"
    failure_log = executable.with_name(executable.name + ".failed")
    if executable.exists():
        return executable
    if failure_log.exists():  # the same source failed before with the same tools
        raise BuildFailed(
            f"{toolchain.compiler.command} rejected the generated code",
            failure_log.read_text(encoding="utf-8"),
        )
    if progress is not None:
        progress(
            f"building {label} with {toolchain.compiler.command} against pto-isa at "
            f"{toolchain.pto_isa}"
        )
    source_file = toolchain.cache / f"{executable.name}.cpp"
    atomic_write(source_file, source.encode("utf-8"))
    pch = precompiled_header(toolchain)
    extra = ["-include-pch", str(pch)] if pch is not None else []
    try:
        try:
            _compile(toolchain, [*extra, str(source_file)], executable)
        except BuildFailed as failure:
            if pch is None or not STALE_PCH.search(failure.log):
                raise
            # pto-isa changed under the precompiled header: rebuild it once.
            pch.unlink(missing_ok=True)
            pch = precompiled_header(toolchain)
            _compile(toolchain, ["-include-pch", str(pch), str(source_file)], executable)
    except BuildFailed as failure:
        if failure.log:  # a timeout (no log) is not a verdict on the source
            atomic_write(failure_log, failure.log.encode("utf-8"))
        raise
    return executable


def run(
    executable: Path, kernel: int, arguments: Sequence[SimArgument], returns: int, workdir: Path
) -> SimRun:
    """Run kernel number ``kernel`` of ``executable`` on ``arguments`` in ``workdir`` (a
    private folder: ``scratch.private_folder``, or the user's ``--keep`` folder)."""
    workdir = workdir.absolute()  # the executable runs in it: a relative name would nest
    workdir.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for index, argument in enumerate(arguments):
        if argument.tensor is None:
            lines.append(f"scalar {argument.scalar_bits}")
        else:
            (workdir / f"arg{index}.bin").write_bytes(argument.tensor)
            lines.append(f"tensor {len(argument.tensor)}")
    lines.append(f"returns {returns}")
    (workdir / "args.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        command = [str(executable), str(kernel), str(workdir)]
        # One block runs the kernel, as in the reference interpreter (get_block_num() is 1).
        result = run_tool(
            command, RUN_TIMEOUT, workdir, PTO_CPU_SIM_UB_BYTES=UB_BYTES, PTO_CPU_SIM_NUM_CORES="1"
        )
    except subprocess.TimeoutExpired:
        return SimRun(-1, f"the simulated kernel ran longer than {RUN_TIMEOUT} s")
    run_result = SimRun(result.returncode, result.stderr)
    if result.returncode in (0, 3):
        for index, argument in enumerate(arguments):
            if argument.tensor is not None:
                run_result.outputs[index] = (workdir / f"arg{index}.out").read_bytes()
        slots = (workdir / "returns.bin").read_bytes()
        run_result.returns = [
            int.from_bytes(slots[i : i + 8], "little") for i in range(0, len(slots), 8)
        ]
    return run_result


# --- element values as the kernel sees them --------------------------------------------------


def to_device_bytes(values: np.ndarray, dtype: DataType) -> bytes:
    """The bytes a kernel sees for ``values`` of ``dtype`` (little-endian, as on the CPU)."""
    import numpy as np

    from .inputs import numpy_dtype

    element = np.dtype(numpy_dtype(dtype))
    return np.ascontiguousarray(np.asarray(values).astype(element)).tobytes()


def from_device_bytes(data: bytes, dtype: DataType, shape: tuple[int, ...]) -> np.ndarray:
    import numpy as np

    from .inputs import numpy_dtype

    return np.frombuffer(data, dtype=numpy_dtype(dtype)).reshape(shape).copy()


def scalar_slot(value: np.ndarray, dtype: DataType) -> int:
    """A scalar's 64-bit argument slot: its bits in the low bytes, little-endian."""
    return int.from_bytes(to_device_bytes(value.reshape(()), dtype).ljust(8, b"\0"), "little")


def slot_value(bits: int, dtype: DataType) -> np.ndarray:
    import numpy as np

    from .inputs import numpy_dtype

    width = np.dtype(numpy_dtype(dtype)).itemsize
    return from_device_bytes(bits.to_bytes(8, "little")[:width], dtype, ())
