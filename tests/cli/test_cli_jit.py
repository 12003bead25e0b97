"""`ptoc print` / `ptoc compile` of @pl.jit kernels: the shapes of a call in the file, the
first by default, the n-th with --specialise N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cli_samples import EXAMPLES, run_ptoc, tools_or_skip

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
    for command in ("print", "compile"):  # a kernel named: as ptoc run and ptoc graph say it
        named = run_ptoc(command, "--specialise", "3", "--function", "tile_add", str(JIT))
        assert (named.returncode, named.stderr) == (
            2,
            f"ptoc: error: '{JIT}': 'tile_add' has 2 specialisation(s) in this file, not 3: "
            "--specialise N takes the N-th call (or # ptoc: specialise line) of its kernel\n",
        )


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


def test_compile_without_specialise_writes_every_specialisation_under_its_call() -> None:
    result = run_ptoc("compile", "--target", "pto", str(JIT))
    assert (result.returncode, result.stderr) == (0, "")
    banners = [line for line in result.stdout.splitlines() if line.startswith("// ptoc:")]
    assert [b.split(" (")[0] for b in banners] == [
        "// ptoc: specialisation 1: tile_add",
        "// ptoc: specialisation 2: tile_add",
    ]
    first, second = result.stdout.split(banners[1])
    # the kernel loads 64 x 64 windows of tensors of the call's shape
    assert "arith.constant 128" not in first and "arith.constant 128" in second
    alone = run_ptoc("compile", "--target", "pto", "--specialise", "1", str(JIT))
    assert "// ptoc:" not in alone.stdout
    assert first.split("\n", 1)[1].strip("\n") == alone.stdout.strip("\n")


def test_compile_to_a_file_writes_each_specialisation_to_its_own(tmp_path: Path) -> None:
    out = tmp_path / "k.cpp"
    result = run_ptoc("compile", "--target", "cce", str(JIT), "-o", str(out))
    assert (result.returncode, result.stderr) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.2.cpp", "k.cpp"]
    assert "[64, 64]" in out.read_text().splitlines()[0]
    assert "[128, 128]" in (tmp_path / "k.2.cpp").read_text().splitlines()[0]


def test_a_named_jit_entry_compiles_to_its_host_code_and_its_kernels() -> None:
    """The kernel a ``@pl.jit`` entry's ``pl.at`` scope is outlined into is the entry's code:
    C++, MLIR and IR of ``--function tile_add`` hold it (C++ and IR held only the host code)."""
    shown = {
        "cce": ("void runTileAddIncore0(", "// Orchestration function tile_add:"),
        "pto": ("func.func @tile_add_incore_0(", "// Orchestration function tile_add:"),
        "ir": ("def tile_add_incore_0(", "def tile_add("),
    }
    for target, (kernel, host) in shown.items():
        result = run_ptoc(
            "compile", "--target", target, "--specialise", "1", "--function", "tile_add", str(JIT)
        )
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout.count(kernel) == 1 and result.stdout.count(host) == 1, target


HOST_PROGRAM = """\
import pypto.language as pl
import torch


@pl.jit.incore
def write_kv(prompt: pl.Tensor, kv: pl.Out[pl.Tensor]):
    tile = pl.load(prompt, [0, 0], [64, 64])
    return pl.store(pl.add(tile, tile), [0, 0], kv)


@pl.jit
def prefill_chip(prompt: pl.Tensor, kv: pl.Out[pl.Tensor]):
    return write_kv(prompt, kv)


@pl.jit.host
def prefill(prompt: pl.Tensor, kv: pl.Out[pl.Tensor]):
    return prefill_chip(prompt, kv)


if __name__ == "__main__":
    prompt = torch.zeros((64, 64), dtype=torch.float32)
    prefill.compile(prompt, torch.zeros_like(prompt), config=None)
"""
HOST_NOTE = (
    "'prefill' runs on the host (level HOST): ptoc generates the chip programs it launches "
    "(prefill_chip), not the host runtime's code"
)


def test_a_host_function_is_a_note_and_the_chip_program_it_launches_is_generated(
    write: Write,
) -> None:
    """upstream's runtime/multi_program_kv_cache.py: the host function inlined the chip
    orchestration and its kernel, and was generated as a vector kernel of its own."""
    path = write("kv.py", HOST_PROGRAM)
    cce = run_ptoc("compile", "--target", "cce", str(path))
    assert cce.returncode == 0
    assert cce.stderr == f"{path}:17:1: info[I010]: {HOST_NOTE}\n"
    assert f"// prefill: {HOST_NOTE}\n" in cce.stdout
    assert "void runPrefill(" not in cce.stdout and "void runWriteKv(" in cce.stdout
    assert "// Orchestration function prefill_chip:" in cce.stdout
    pto = run_ptoc("compile", "--target", "pto", str(path))
    assert (pto.returncode, pto.stderr) == (0, f"{path}:17:1: info[I010]: {HOST_NOTE}\n")
    assert f"  // prefill: {HOST_NOTE}\n" in pto.stdout
    assert "func.func @write_kv(" in pto.stdout and "@prefill(" not in pto.stdout


def test_a_host_function_is_not_run_on_the_simulator(write: Write) -> None:
    tools_or_skip()
    path = write("kv.py", HOST_PROGRAM)
    result = run_ptoc("run", "--sim", "--function", "prefill", str(path))
    assert result.returncode == 1
    assert result.stderr.endswith(
        "ptoc: error: 'prefill' cannot be compared on the simulator: it runs on the host, whose "
        "code ptoc does not generate (I010 above); run a chip program it launches instead\n"
    )
