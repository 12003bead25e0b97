"""`ptoc print` / `ptoc compile` of @pl.jit kernels: the shapes of a call in the file, the
first by default, the n-th with --specialise N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cli_samples import run_ptoc

Write = Callable[[str, str], Path]

KERNEL = """import pypto.language as pl
import torch


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [64, 64])
        tile_b = pl.load(b, [0, 0], [64, 64])
        pl.store(pl.add(tile_a, tile_b), [0, 0], c)
    return c
"""
CALLS = """

if __name__ == "__main__":
    for n in (64, 128):
        a = torch.zeros((n, n), dtype=torch.float32)
        tile_add(a, a, a)
"""


def test_print_shows_the_first_call_and_specialise_picks_another(write: Write) -> None:
    path = write("k.py", KERNEL + CALLS)
    first = run_ptoc("print", str(path))
    second = run_ptoc("print", "--specialise", "2", str(path))
    assert (first.returncode, second.returncode) == (0, 0)
    assert "a: pl.Tensor[[64, 64], pl.FP32]," in first.stdout
    assert "a: pl.Tensor[[128, 128], pl.FP32]," in second.stdout


def test_compile_generates_code_for_the_call(write: Write) -> None:
    path = write("k.py", KERNEL + CALLS)
    for target in ("cce", "pto"):
        result = run_ptoc("compile", "--target", target, "--specialise", "2", str(path))
        assert (result.returncode, result.stderr) == (0, "")
        assert "128" in result.stdout


def test_a_kernel_no_call_shapes_says_why_nothing_compiles(write: Write) -> None:
    path = write("k.py", KERNEL)
    for command in ("print", "compile"):
        result = run_ptoc(command, str(path))
        assert result.returncode == 1
        assert "has @pl.jit kernels but no call of them in the file" in result.stderr
    beyond = run_ptoc("compile", "--specialise", "3", str(write("c.py", KERNEL + CALLS)))
    assert beyond.returncode == 1 and "no shapes to generate code for" in beyond.stderr
