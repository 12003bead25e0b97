"""`ptoc compile`: front end -> pass pipeline -> code generation, end to end."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_samples import BROKEN, BROKEN_COLUMN, BROKEN_LINE, EXAMPLES, TWO_KERNELS, run_ptoc

from ptoc.cli import main
from ptoc.codegen import CodegenResult
from ptoc.codegen.cce import generate_cce
from ptoc.codegen.pto import generate_pto
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source
from ptoc.ir.function import Program
from ptoc.printer import print_program

Write = Callable[[str, str], Path]
SIMPLE_ADD = EXAMPLES / "simple_add.py"

TOO_BIG = """\
import pypto.language as pl


@pl.program
class TooBig:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[256, 256], pl.FP32], out: pl.Tensor[[256, 256], pl.FP32]):
        t: pl.Tile[[256, 256], pl.FP32] = pl.load(x, [0, 0], [256, 256])
        pl.store(t, [0, 0], [256, 256], out)
"""


def only_program(path: Path) -> Program:
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert not analysis.has_errors
    (program,) = analysis.all_programs()
    return program


def with_newline(text: str) -> str:
    return text.rstrip("\n") + "\n"


@pytest.mark.parametrize(
    ("target", "pipeline", "generate", "markers"),
    [
        (
            "cce",
            "default",
            generate_cce,
            ("void runSimpleAdd(__gm__ int64_t* args)", "TADD(tile_z, tile_x, tile_y);"),
        ),
        ("pto", "ptoas", generate_pto, ("func.func @simple_add(", "pto.tload")),
    ],
)
def test_output_is_the_code_generators_text_after_the_targets_default_pipeline(
    target: str,
    pipeline: str,
    generate: Callable[[Program], CodegenResult],
    markers: tuple[str, ...],
) -> None:
    final = run_pipeline(only_program(SIMPLE_ADD), pipeline=pipeline).program

    result = run_ptoc("compile", str(SIMPLE_ADD), "--target", target)

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == with_newline(generate(final).text)
    for marker in markers:
        assert marker in result.stdout


def test_cce_is_the_default_target() -> None:
    explicit = run_ptoc("compile", str(SIMPLE_ADD), "--target", "cce")
    default = run_ptoc("compile", str(SIMPLE_ADD))
    assert default.returncode == 0
    assert default.stdout == explicit.stdout


def test_pipeline_choice_reaches_the_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(SIMPLE_ADD), "--target", "cce", "--pipeline", "default"]) == 0
    with_sync = capsys.readouterr().out
    assert main(["compile", str(SIMPLE_ADD), "--target", "cce", "--pipeline", "ptoas"]) == 0
    without_sync = capsys.readouterr().out
    assert "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in with_sync
    assert "set_flag" not in without_sync


def test_ir_target_prints_the_final_ir_which_checks_clean(tmp_path: Path) -> None:
    final = run_pipeline(only_program(SIMPLE_ADD), pipeline="default").program

    result = run_ptoc("compile", str(SIMPLE_ADD), "--target", "ir")

    assert result.returncode == 0
    assert result.stdout == with_newline(print_program(final))
    assert "pl.MemRef(" in result.stdout
    reparsed = analyze_source(result.stdout, "final.py")
    assert reparsed.diagnostics == []


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "simple_add.cpp"
    reference = run_ptoc("compile", str(SIMPLE_ADD))

    result = run_ptoc("compile", str(SIMPLE_ADD), "-o", str(out))

    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert out.read_text(encoding="utf-8") == reference.stdout


def test_dump_passes_writes_the_ir_after_each_pass(tmp_path: Path) -> None:
    program = only_program(SIMPLE_ADD)
    pipeline = run_pipeline(program, pipeline="default")
    dump = tmp_path / "passes"

    result = run_ptoc("compile", str(SIMPLE_ADD), "--dump-passes", str(dump))

    assert result.returncode == 0
    names = [name for name, _ in pipeline.snapshots]
    expected = ["00_input.py"] + [f"{i:02d}_{name}.py" for i, name in enumerate(names, 1)]
    assert sorted(p.name for p in dump.iterdir()) == expected
    assert (dump / "00_input.py").read_text(encoding="utf-8") == print_program(program)
    assert (dump / expected[-1]).read_text(encoding="utf-8") == print_program(pipeline.program)
    assert len(names) >= 5  # the default pipeline has at least SSA ... AllocateMemoryAddr


def test_function_filter_generates_one_kernel(write: Write) -> None:
    path = write("pair.py", TWO_KERNELS)

    both = run_ptoc("compile", str(path))
    one = run_ptoc("compile", str(path), "--function", "square")

    assert both.returncode == one.returncode == 0
    assert "runDouble" in both.stdout and "runSquare" in both.stdout
    assert "runSquare" in one.stdout and "runDouble" not in one.stdout


def test_front_end_errors_stop_before_the_back_end(write: Write, tmp_path: Path) -> None:
    path = write("broken.py", BROKEN)
    out = tmp_path / "out.cpp"
    dump = tmp_path / "dump"

    result = run_ptoc("compile", str(path), "-o", str(out), "--dump-passes", str(dump))

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"{path}:{BROKEN_LINE}:{BROKEN_COLUMN}: error[E200]: ")
    assert not out.exists()
    assert not dump.exists()


def test_back_end_errors_are_reported_with_exit_1(write: Write, tmp_path: Path) -> None:
    # One 256x256 FP32 tile needs 256 KiB; the target's Vec buffer holds 192 KiB.
    path = write("too_big.py", TOO_BIG)
    out = tmp_path / "too_big.cpp"

    result = run_ptoc("compile", str(path), "-o", str(out))

    assert (result.returncode, result.stdout) == (1, "")
    # Where the passes place it (the function or the tile) is their choice; the CLI reports it.
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error\[E402\]: ", result.stderr)
    assert not out.exists()


def test_missing_file_and_bad_target_are_usage_errors(tmp_path: Path) -> None:
    missing = run_ptoc("compile", str(tmp_path / "gone.py"))
    assert missing.returncode == 2
    assert f"cannot read '{tmp_path / 'gone.py'}'" in missing.stderr

    bad = run_ptoc("compile", str(SIMPLE_ADD), "--target", "llvm")
    assert bad.returncode == 2
    assert "invalid choice: 'llvm'" in bad.stderr


PARTIAL_FRACTALS = """\
import pypto.language as pl
import torch


@pl.jit
def k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c = pl.matmul(a, b, out_dtype=pl.FP32)
    return c


if __name__ == "__main__":
    a = torch.zeros(64, 8, dtype=torch.float16)
    b = torch.zeros(8, 64, dtype=torch.float16)
    k(a, b, torch.zeros(64, 64))
"""


def test_cube_tiles_that_are_not_whole_fractals_are_e400_not_cpp_pto_isa_rejects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A matmul with K = 8 (FP16): pto-isa's Tile asserts whole 16 x 16 fractals in Mat,
    Left and Right, so clang would reject the C++. Each such tile is an E400 on the statement
    it comes from."""
    source = tmp_path / "k.py"
    source.write_text(PARTIAL_FRACTALS, encoding="utf-8")
    assert main(["compile", str(source)]) == 1
    why = (
        "is not whole 16 x 16 fractals, which pto-isa's Tile requires there (its rows a "
        "multiple of 16, its columns of 16); pad the shape (for a matmul: M, K and N) to whole "
        "fractals"
    )
    assert capsys.readouterr().err.splitlines() == [
        f"{source}:8:9: error[E400]: tile 'a_left': a Left tile of 64 x 8 FP16 {why}",
        f"{source}:8:9: error[E400]: tile 'a_mat': a Mat tile of 64 x 8 FP16 {why}",
        f"{source}:8:9: error[E400]: tile 'b_mat': a Mat tile of 8 x 64 FP16 {why}",
        f"{source}:8:9: error[E400]: tile 'b_right': a Right tile of 8 x 64 FP16 {why}",
    ]
    source.write_text(PARTIAL_FRACTALS.replace("64, 8,", "64, 16,").replace("(8, ", "(16, "))
    assert main(["compile", str(source)]) == 0


def test_an_fp16_matmul_result_assembled_into_an_fp32_tensor_is_w035(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """upstream's split-K matmul asking for FP16 partial products, which it adds atomically
    into the FP32 result: the accumulator goes through the FIX pipe straight to FP32, so the
    FP16 rounding never happens on the device (the interpreter does it: Run disagrees)."""
    upstream = EXAMPLES.parent.parent / "shared" / "pypto-2026-08" / "examples"
    text = (upstream / "advanced" / "01_split_k.py").read_text(encoding="utf-8")
    asked = "partial = pl.matmul(a_k, b_k, out_dtype=pl.FP32)"
    assert asked in text
    source = tmp_path / "split_k.py"
    source.write_text(text.replace(asked, asked.replace("FP32", "FP16")), encoding="utf-8")
    assert main(["compile", str(source)]) == 0
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "c = pl.assemble(c, partial" in t)
    assert capsys.readouterr().err.splitlines() == [
        f"{source}:{line}:13: warning[W035]: this FP16 matmul result goes straight from the "
        "accumulator into a tensor of FP32: the FIX pipe converts the FP32 accumulator to "
        "FP32, so it is never rounded to FP16 on the device (the reference interpreter rounds "
        "it); ask for out_dtype=pl.FP32, or write it into a tensor of FP16",
    ]
    assert main(["check", str(source)]) == 0  # check and the editor say it too
    assert "warning[W035]: this FP16 matmul result" in capsys.readouterr().out
    source.write_text(text, encoding="utf-8")
    assert main(["compile", str(source)]) == 0
    assert "W035" not in capsys.readouterr().err
