"""Finding the real tools: the pto-isa headers and a C++20 compiler that can build them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..records import record
from ..scratch import run_tool

# The flags pto-isa's own CPU tests use (tests/cpu/st/CMakeLists.txt upstream). NDEBUG stays
# undefined: the simulator's shape and layout assertions are part of the check.
SIM_FLAGS = ("-D__CPU_SIM", "-std=c++20", "-include", "stdint.h", "-include", "stddef.h")
# The unified buffer of A2/A3 hardware (the simulator defaults to 512 KB).
UB_BYTES = "196608"
# pto-isa uses static_assert(false) in templates: clang 17+ or GCC 13+.
MIN_VERSIONS = {"clang": 17, "gcc": 13}
PROBE_TIMEOUT = 30  # seconds for `--version`
INSTALL_HINT = "apt-get install -y clang-19 (or set CXX to clang++ 17+ / g++ 13+)"


class ToolMissing(Exception):
    """A tool ``ptoc run --sim`` needs is absent or too old; the message names the fix."""


@record(frozen=True)
class Compiler:
    command: str
    family: str  # "clang" or "gcc"
    major: int
    version_text: str  # first line of --version: part of every cache key


def repository_root() -> Path:
    """The checkout this package lives in (compiler/ptoc/run -> the repository)."""
    return Path(__file__).resolve().parents[3]


def find_pto_isa(option: str | None) -> Path:
    """``--pto-isa DIR``, else ``$PTO_ISA_ROOT``, else ``../shared/vendor/pto-isa`` beside the
    repository; the folder must hold ``include/pto/pto-inst.hpp``."""
    if option:
        candidate, origin = Path(option), "--pto-isa"
    elif os.environ.get("PTO_ISA_ROOT"):
        candidate, origin = Path(os.environ["PTO_ISA_ROOT"]), "PTO_ISA_ROOT"
    else:
        candidate = repository_root().parent / "shared" / "vendor" / "pto-isa"
        origin = "the default location"
        if not candidate.is_dir():
            raise ToolMissing(
                "pto-isa not found: pass --pto-isa DIR or set PTO_ISA_ROOT to a checkout of "
                "https://github.com/hw-native-sys/pto-isa"
            )
    if not (candidate / "include" / "pto" / "pto-inst.hpp").is_file():
        raise ToolMissing(
            f"pto-isa not found at '{candidate}' ({origin}): it has no include/pto/pto-inst.hpp; "
            "pass --pto-isa DIR or set PTO_ISA_ROOT to a checkout of pto-isa"
        )
    return candidate.resolve()


def find_compiler() -> Compiler:
    """``$CXX``, else ``clang++-19``, else ``clang++`` / ``g++`` when new enough."""
    requested = os.environ.get("CXX")
    candidates = [requested] if requested else ["clang++-19", "clang++", "g++"]
    problems: list[str] = []
    for name in candidates:
        path = shutil.which(name)
        if path is None:
            if requested:
                raise ToolMissing(f"CXX='{requested}' is not an executable; {INSTALL_HINT}")
            continue
        compiler = identify(name)
        if compiler is not None and compiler.major >= MIN_VERSIONS[compiler.family]:
            return compiler
        problems.append(f"'{name}' is {compiler.version_text if compiler else 'not clang or gcc'}")
        if requested:
            break
    found = f" ({'; '.join(problems)})" if problems else ""
    raise ToolMissing(f"no C++ compiler that builds pto-isa{found}: {INSTALL_HINT}")


def identify(command: str) -> Compiler | None:
    try:
        result = run_tool([command, "--version"], PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = result.stdout.splitlines()[0] if result.stdout else ""
    family = "clang" if "clang" in first else "gcc" if re.search(r"g\+\+|gcc|GCC", first) else None
    match = re.search(r"(\d+)\.\d+(?:\.\d+)?", first)
    if family is None or match is None:
        return None
    return Compiler(command, family, int(match.group(1)), first.strip())
