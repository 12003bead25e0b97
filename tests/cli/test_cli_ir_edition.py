"""IR dumps in the file's edition: `ptoc compile --target ir` / `pass:NAME` and `--dump-passes`
print a 2026-08 file's IR in 2026-08 spelling (INDEX constants bare, other integers as
`pl.const(v, pl.DT)`, `pl.tile.*`), which parses back structurally equal; a 2026-03 file's dumps
keep the 2026-03 form byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.driver import run_pipeline
from ptoc.editions import Edition
from ptoc.frontend import analyze_source
from ptoc.ir import structural_equal

Write = Callable[[str, str], Path]

# 2026-08 (detected from `pl.tile.*` and the three-argument `pl.store`): an INT32 scalar plus a
# literal stays INT32, a bare literal is INDEX, `pl.const` keeps its dtype.
KERNEL_2026_08 = """\
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 16])
        k = n + 2
        s = 3
        c = pl.const(7, pl.INT64)
        u = pl.tile.muls(t, k * c + s)
        out = pl.store(u, [0, 0], out)
        return out
"""

KERNEL_2026_03 = KERNEL_2026_08.replace("pl.tile.", "pl.block.").replace(
    "pl.store(u, [0, 0], out)", "pl.block.store(u, [0, 0], [16, 16], out)"
)

IR_2026_08 = """\
# pypto.program: Scale
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 1024, 0)],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[
            pl.Tensor[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 1024, 1)]
        ],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0x0, 1024, 2)] = (
            pl.tile.load(a, [0, 0], [16, 16])
        )
        k: pl.Scalar[pl.INT32] = n + 2
        s: pl.Scalar[pl.INDEX] = 3
        c: pl.Scalar[pl.INT64] = pl.const(7, pl.INT64)
        pl.system.sync_src(
            set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0
        )
        pl.system.sync_dst(
            set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0
        )
        u: pl.Tile[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0x400, 1024, 3)] = (
            pl.tile.muls(t, k * c + s)
        )
        pl.system.sync_src(
            set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0
        )
        pl.system.sync_dst(
            set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0
        )
        out_1: pl.Tensor[
            [16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 1024, 1)
        ] = pl.tile.store(u, [0, 0], out)
        return out_1
"""

INPUT_2026_08 = """\
# pypto.program: Scale
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16])
        k: pl.Scalar[pl.INT32] = n + 2
        s: pl.Scalar[pl.INDEX] = 3
        c: pl.Scalar[pl.INT64] = pl.const(7, pl.INT64)
        u: pl.Tile[[16, 16], pl.FP32] = pl.tile.muls(t, k * c + s)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(u, [0, 0], out)
        return out
"""

# The 2026-03 form, as before editions reached the IR dumps: every integer constant INT64 and
# printed bare.
INPUT_2026_03 = """\
# pypto.program: Scale
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.block.load(a, [0, 0], [16, 16])
        k: pl.Scalar[pl.INT64] = n + 2
        s: pl.Scalar[pl.INT64] = 3
        c: pl.Scalar[pl.INT64] = 7
        u: pl.Tile[[16, 16], pl.FP32] = pl.block.muls(t, k * c + s)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(u, [0, 0], [16, 16], out)
        return out
"""

IR_2026_03_HEAD = """\
# pypto.program: Scale
import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 1024, 0)],
        n: pl.Scalar[pl.INT32],
        out: pl.Out[
            pl.Tensor[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 1024, 1)]
        ],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0x0, 1024, 2)] = (
            pl.block.load(a, [0, 0], [16, 16])
        )
        k: pl.Scalar[pl.INT64] = n + 2
        s: pl.Scalar[pl.INT64] = 3
        c: pl.Scalar[pl.INT64] = 7
"""


def compile_ir(capsys: pytest.CaptureFixture[str], path: Path, *options: str) -> str:
    assert main(["compile", str(path), *options]) == 0
    return capsys.readouterr().out


def test_target_ir_prints_a_2026_08_file_in_2026_08_spelling(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", KERNEL_2026_08)
    assert compile_ir(capsys, path, "--target", "ir") == IR_2026_08


def test_a_pass_target_prints_in_the_file_s_edition(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    def in_ssa(text: str) -> str:  # what ConvertToSSA changes here: the store's new name
        return text.replace("        out: pl.Tensor", "        out_1: pl.Tensor").replace(
            "return out\n", "return out_1\n"
        )

    path = write("k.py", KERNEL_2026_08)
    assert compile_ir(capsys, path, "--target", "pass:ConvertToSSA") == in_ssa(INPUT_2026_08)
    path = write("k03.py", KERNEL_2026_03)
    assert compile_ir(capsys, path, "--target", "pass:ConvertToSSA") == in_ssa(INPUT_2026_03)


def test_dump_passes_prints_a_2026_08_file_in_2026_08_spelling(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", KERNEL_2026_08)
    out = compile_ir(capsys, path, "--target", "ir", "--dump-passes", str(tmp_path / "dump"))
    assert (tmp_path / "dump" / "00_input.py").read_text(encoding="utf-8") == INPUT_2026_08
    assert (tmp_path / "dump" / "11_AllocateMemoryAddr.py").read_text(encoding="utf-8") == out


def test_every_2026_08_dump_parses_back_structurally_equal(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k.py", KERNEL_2026_08)
    compile_ir(capsys, path, "--target", "ir", "--dump-passes", str(tmp_path / "dump"))
    analysis = analyze_source(KERNEL_2026_08, str(path))
    (program,) = analysis.all_programs()
    stages = [("input", program), *run_pipeline(program, "default").snapshots]
    dumps = sorted((tmp_path / "dump").glob("*.py"))
    assert [d.name.split("_", 1)[1] for d in dumps] == [f"{name}.py" for name, _ in stages]
    for dump, (name, snapshot) in zip(dumps, stages, strict=True):
        reparsed = analyze_source(dump.read_text(encoding="utf-8"), str(dump))
        assert reparsed.edition is not None and reparsed.edition.edition is Edition.V2026_08
        assert [d.format() for d in reparsed.diagnostics] == [], name
        (again,) = reparsed.all_programs()
        assert structural_equal(snapshot, again), name


def test_a_2026_03_file_s_dumps_keep_the_2026_03_form(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("k03.py", KERNEL_2026_03)
    out = compile_ir(capsys, path, "--target", "ir", "--dump-passes", str(tmp_path / "dump"))
    assert out.startswith(IR_2026_03_HEAD)
    assert (tmp_path / "dump" / "00_input.py").read_text(encoding="utf-8") == INPUT_2026_03
