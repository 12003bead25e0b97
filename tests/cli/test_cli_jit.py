"""`ptoc print` / `ptoc compile` of @pl.jit kernels: the shapes of a call in the file, the
first by default, the n-th with --specialise N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cli_samples import EXAMPLES, run_ptoc

Write = Callable[[str, str], Path]

JIT = EXAMPLES / "jit_tile_add.py"  # calls its kernel with 64 x 64, then 128 x 128 tensors
KERNEL = JIT.read_text(encoding="utf-8").split("if __name__")[0]


def test_print_shows_the_first_call_and_specialise_picks_another() -> None:
    first = run_ptoc("print", str(JIT))
    second = run_ptoc("print", "--specialise", "2", str(JIT))
    assert (first.returncode, second.returncode) == (0, 0)
    assert "a: pl.Tensor[[64, 64], pl.FP32]," in first.stdout
    assert "a: pl.Tensor[[128, 128], pl.FP32]," in second.stdout


def test_compile_generates_code_for_the_call() -> None:
    for target in ("cce", "pto"):
        result = run_ptoc("compile", "--target", target, "--specialise", "2", str(JIT))
        assert (result.returncode, result.stderr) == (0, "")
        assert "128" in result.stdout


def test_a_kernel_no_call_shapes_says_why_nothing_compiles(write: Write) -> None:
    path = write("k.py", KERNEL)
    for command in ("print", "compile"):
        result = run_ptoc(command, str(path))
        assert result.returncode == 1
        assert "has @pl.jit kernels but no call of them in the file" in result.stderr
    beyond = run_ptoc("compile", "--specialise", "3", str(JIT))
    assert beyond.returncode == 1 and "no shapes to generate code for" in beyond.stderr


def test_jit_signature_prints_each_kernels_contract() -> None:
    result = run_ptoc("print", "--jit-signature", str(JIT))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[:5] == [
        "def tile_add(a: Tensor[?, ?], b: Tensor[?, ?], c: Tensor[?, ?]) -> Tensor[?, ?]",
        "# a needs rank 2, at least [64, 64]",
        "# b needs rank 2, at least [64, 64]",
        "# c needs rank 2",
        "# as the first call in this file gives it:",
    ]


def test_run_executes_the_first_calls_program_on_the_interpreter() -> None:
    result = run_ptoc("run", str(JIT), "--function", "tile_add", "--seed", "3")
    assert result.returncode == 0, result.stderr
    means = {
        line.split(":")[0]: float(line.split("mean ")[1])
        for line in result.stdout.splitlines()
        if " mean " in line
    }
    assert set(means) == {"a", "b", "c"}
    assert abs(means["c"] - (means["a"] + means["b"])) < 1e-4  # c = a + b
