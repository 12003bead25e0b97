"""``ptoc run`` of ``@pl.jit`` kernels: each specialisation (the first call's by default,
``--specialise N`` the N-th) runs on the reference interpreter, and with ``--sim`` its host code
and the kernels its ``pl.at`` scopes and sub-functions become run on pto-isa's CPU simulator
with the host shim (``ptoc.run.orchestration``), compared tensor by tensor (issue #27). The
upstream examples are read in place."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_samples import tools_or_skip

from ptoc.cli import main

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "pypto-2026-08" / "examples"
JIT = str(ROOT / "examples" / "jit_tile_add.py")  # calls tile_add with 64 x 64, then 128 x 128
OK = "max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok"


pytestmark = pytest.mark.usefixtures("shared_build_cache")


# (file, kernel, its tensors, how many kernels its host code launches)
KERNELS = [
    ("beginner/01_hello_world.py", "tile_add", ["a", "b", "c"], 1),  # one pl.at scope
    # two @pl.jit.incore sub-functions called from the entry
    ("intermediate/01_fused_linear.py", "fused_linear_relu", ["x", "w", "bias", "y"], 2),
    ("models/02_vector_dag.py", "vector_dag", ["a", "b", "f"], 3),
]


@pytest.mark.parametrize(
    ("relative", "kernel", "tensors", "launched"), KERNELS, ids=[k[1] for k in KERNELS]
)
def test_an_upstream_jit_kernel_runs_on_the_simulator_as_on_the_interpreter(
    relative: str,
    kernel: str,
    tensors: list[str],
    launched: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if not UPSTREAM.is_dir():
        pytest.skip("the upstream examples are not beside the repo")
    tools_or_skip()
    assert main(["run", str(UPSTREAM / relative), "--function", kernel, "--sim"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        *(f"{name} (FP32): {OK}" for name in tensors),
        f"{kernel}: simulator (host code and {launched} kernel(s) run as tasks in program "
        f"order) and reference interpreter agree on {len(tensors)} results",
    ]


def test_specialise_runs_the_nth_calls_shapes_on_the_simulator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    keep = tmp_path / "keep"
    argv = ["run", JIT, "--function", "tile_add", "--sim", "--specialise", "2"]
    assert main([*argv, "--keep", str(keep)]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[0] == (
        "ptoc: note: 'tile_add' specialisation 2 of 2: call at line 25: a: [128, 128] FP32, "
        "b: [128, 128] FP32, c: [128, 128] FP32"
    )
    assert captured.out.splitlines()[-1].startswith("tile_add: simulator (host code and 1 ")
    inputs = np.load(keep / "inputs.npz")
    assert {name: inputs[name].shape for name in inputs} == {
        "a": (128, 128),
        "b": (128, 128),
        "c": (128, 128),
    }


def test_specialise_picks_the_interpreters_shapes_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", JIT, "--function", "tile_add"]) == 0
    first = capsys.readouterr()
    assert first.err == (  # of several, which one runs is said
        "ptoc: note: 'tile_add' specialisation 1 of 2: call at line 25: a: [64, 64] FP32, "
        "b: [64, 64] FP32, c: [64, 64] FP32\n"
    )
    assert [line.split(" min ")[0] for line in first.out.splitlines()[:3]] == [
        "a: [64, 64]",
        "b: [64, 64]",
        "c: [64, 64]",
    ]
    assert main(["run", JIT, "--function", "tile_add", "--specialise", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("a: [128, 128] min ")


def test_a_specialisation_the_file_does_not_have_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", JIT, "--function", "tile_add", "--specialise", "3"]) == 2
    assert capsys.readouterr().err == (
        f"ptoc: error: '{JIT}': 'tile_add' has 2 specialisation(s) in this file, not 3: "
        "--specialise N takes the N-th call (or # ptoc: specialise line) of its kernel\n"
    )


def test_a_kernel_no_call_gives_shapes_to_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file defines 'tile_add' but never calls it: not "no function named 'tile_add'"."""
    source = tmp_path / "uncalled.py"
    text = (UPSTREAM / "beginner" / "01_hello_world.py").read_text(encoding="utf-8")
    source.write_text(
        text.replace("    tile_add(a, b, c", "    tile_sum(a, b, c"), encoding="utf-8"
    )
    why = (
        f"ptoc: error: '{source}': 'tile_add' is a @pl.jit kernel, and no call of it in this "
        "file passes tensors ptoc can read (such as torch.zeros((128, 128), "
        "dtype=torch.float32)): no shapes to run or compile it with\n"
    )
    assert main(["run", str(source), "--function", "tile_add"]) == 2
    assert capsys.readouterr().err == why
    assert main(["compile", str(source), "--function", "tile_add"]) == 2
    assert capsys.readouterr().err == why


def test_results_that_depend_on_memory_nothing_wrote_are_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """upstream's FFN with a ReLU kernel that writes only half of the tensor the host created
    for it: the last matmul reads 32 rows nothing wrote. The interpreter runs again with
    created memory poisoned; those results are set aside with a warning, not a mismatch."""
    tools_or_skip()
    source = tmp_path / "ffn.py"
    text = (UPSTREAM / "models" / "01_ffn.py").read_text(encoding="utf-8")
    relu = text.index("def relu_kernel")
    half = text[relu:].replace("pl.load(x, [0, 0], [64, 64])", "pl.load(x, [0, 0], [32, 64])", 1)
    source.write_text(text[:relu] + half, encoding="utf-8")
    assert main(["run", str(source), "--function", "ffn_relu", "--sim"]) == 0
    captured = capsys.readouterr()
    why = (
        "depend on memory nothing wrote (a created tensor or tile read before it is written "
        "holds whatever the device memory held): they are not compared"
    )
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert warnings == [
        f"ptoc: warning: 2048 of 4096 elements of 'output' {why}",
        f"ptoc: warning: 2048 of 4096 elements of 'return 0' {why}",
    ]
    assert captured.out.splitlines()[-1].startswith("ffn_relu: simulator (host code and 2 ")


def test_an_accumulator_stored_into_an_integer_tensor_is_truncated_as_on_the_simulator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """upstream's fused linear with its intermediate tensor made INT32: the FP32 matmul result
    is stored from Acc into it, and pto-isa's TSTORE converts with static_cast (a truncation);
    the interpreter used to round, and the two disagreed on about a quarter of the elements."""
    tools_or_skip()
    source = tmp_path / "fused.py"
    text = (UPSTREAM / "intermediate" / "01_fused_linear.py").read_text(encoding="utf-8")
    relu = text.index("def fused_linear_relu")
    made = "mm_out = pl.create_tensor([64, 64], dtype=pl.FP32)"
    changed = text[relu:].replace(made, made.replace("FP32", "INT32"), 1)
    assert changed != text[relu:]
    source.write_text(text[:relu] + changed, encoding="utf-8")
    assert main(["run", str(source), "--function", "fused_linear_relu", "--sim"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == (
        "fused_linear_relu: simulator (host code and 2 kernel(s) run as tasks in program order) "
        "and reference interpreter agree on 4 results"
    )
