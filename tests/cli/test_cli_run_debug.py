"""``ptoc run --debug``: a -g -O0 simulator build whose line table names the kernel's lines."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_samples import tools_or_skip

from ptoc.cli import main
from ptoc.run.simulator import Toolchain
from ptoc.run.toolchain import find_compiler, find_pto_isa

ROOT = Path(__file__).resolve().parents[2]
SIMPLE_ADD = str(ROOT / "examples" / "simple_add.py")

ADD_LINE = 21  # `tile_z ... = pl.add(tile_x, tile_y)` in examples/simple_add.py


pytestmark = pytest.mark.usefixtures("shared_build_cache")


def line_table(executable: str) -> str:
    """The executable's DWARF line table, binutils' decoded view: a ``FILE:`` header, then
    one row (name, line, address) per address until a blank line."""
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump (binutils) is not installed: cannot read the DWARF line table")
    command = [objdump, "--dwarf=decodedline", executable]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout


def decoded_lines(dump: str, source: str) -> set[int]:
    """The lines of ``source`` in a ``line_table``."""
    lines: set[int] = set()
    inside = False
    for row in dump.splitlines():
        if row.endswith(":") and not row.startswith(" "):
            inside = row[:-1] == source
        elif inside and row.strip():
            fields = row.split()
            if len(fields) >= 3 and fields[1].isdigit():
                lines.add(int(fields[1]))
    return lines


def test_debug_build_names_the_kernels_lines_and_still_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    keep = tmp_path / "keep"
    command = ["run", SIMPLE_ADD, "--function", "simple_add", "--debug", "--keep", str(keep)]
    assert main(command) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == (
        "simple_add: simulator and reference interpreter agree on 3 results"
    )
    notes = [line for line in captured.err.splitlines() if line.startswith("ptoc: note: ")]
    match = re.fullmatch(r"ptoc: note: debug build: (\S+)", notes[0])
    assert match is not None, captured.err
    executable = match.group(1)
    workdir = keep.absolute() / "sim"
    assert notes[1:] == [
        f"ptoc: note: to debug: cd {workdir} && PTO_CPU_SIM_UB_BYTES=196608 "
        f"PTO_CPU_SIM_NUM_CORES=1 gdb --args {executable} 0 {workdir}",
        "ptoc: note: then, in gdb: break simple_add.py:15 (any kernel line), run",
    ]
    source = str(Path(SIMPLE_ADD).resolve())
    kernel = (keep / "kernel.cpp").read_text(encoding="utf-8")
    assert f'#line {ADD_LINE} "{source}"' in kernel
    dump = line_table(executable)
    assert {15, 19, 20, ADD_LINE, 22} <= decoded_lines(dump, source)
    # the harness's lines are the kept kernel.cpp's own (main calls the kernel there)
    call = kernel.split("\n").index("    kKernels[kernel](args.data());") + 1
    assert call in decoded_lines(dump, str(keep.absolute() / "kernel.cpp"))


def test_a_debug_build_has_its_own_cache_entries(tmp_path: Path) -> None:
    tools_or_skip()
    plain = Toolchain(find_compiler(), find_pto_isa(None), tmp_path)
    debug = Toolchain(find_compiler(), find_pto_isa(None), tmp_path, debug=True)
    assert "-g" not in plain.flags()
    assert [flag for flag in debug.flags() if flag not in plain.flags()] == ["-g", "-O0"]
    assert debug.key("source") != plain.key("source")


def test_debug_does_not_go_with_pipes(capsys: pytest.CaptureFixture[str]) -> None:
    command = ["run", SIMPLE_ADD, "--function", "simple_add", "--debug", "--pipes"]
    assert main(command) == 2
    assert capsys.readouterr().err == (
        "ptoc: error: --debug builds the simulator run; it does not go with --pipes\n"
    )
