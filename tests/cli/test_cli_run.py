"""``ptoc run``: the reference interpreter, and ``--sim`` on pto-isa's CPU simulator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_samples import tools_or_skip

from ptoc.cli import main

ROOT = Path(__file__).resolve().parents[2]
SIMPLE_ADD = str(ROOT / "examples" / "simple_add.py")


pytestmark = pytest.mark.usefixtures("shared_build_cache")


def test_run_without_sim_prints_the_interpreters_results(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == ["x", "y", "output", "simple_add"]
    assert out[-1] == (
        "simple_add: ran on the reference interpreter (add --sim to compare with pto-isa)"
    )
    assert out[2].startswith("output: [128, 64] min ")


def test_given_inputs_are_used_and_the_rest_generated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.full((128, 64), 2.0), y=np.full((128, 64), 0.5))
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--inputs", str(inputs)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "output: [128, 64] min 2.5 max 2.5 mean 2.5"


def test_bad_inputs_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong_shape = tmp_path / "shape.npz"
    np.savez(wrong_shape, x=np.zeros((4, 4)))
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--inputs", str(wrong_shape)]) == 2
    assert capsys.readouterr().err == (
        "ptoc: error: input 'x' has shape [4, 4], the parameter [128, 64]\n"
    )
    unknown = tmp_path / "unknown.npz"
    np.savez(unknown, z=np.zeros(3))
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--inputs", str(unknown)]) == 2
    assert capsys.readouterr().err == (
        "ptoc: error: inputs that are not parameters of 'simple_add': z\n"
    )
    assert main(["run", SIMPLE_ADD, "--function", "nope"]) == 2
    assert capsys.readouterr().err == f"ptoc: error: no function named 'nope' in '{SIMPLE_ADD}'\n"


def run_with_inputs(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["run", SIMPLE_ADD, "--function", "simple_add", "--inputs", str(path)])
    return code, capsys.readouterr().err


def test_unreadable_inputs_name_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    assert run_with_inputs(empty, capsys) == (
        2,
        f"ptoc: error: '{empty}' is not a .npz archive: save the inputs with numpy.savez\n",
    )
    single = tmp_path / "single.npz"
    with single.open("wb") as stream:
        np.save(stream, np.zeros(3))  # a .npy file under a .npz name
    assert run_with_inputs(single, capsys) == (
        2,
        f"ptoc: error: '{single}' is not a .npz archive: save the inputs with numpy.savez\n",
    )
    no_arrays = tmp_path / "none.npz"
    np.savez(no_arrays)
    assert run_with_inputs(no_arrays, capsys) == (
        2,
        f"ptoc: error: '{no_arrays}' holds no arrays: save them with numpy.savez\n",
    )
    missing = tmp_path / "missing.npz"
    assert run_with_inputs(missing, capsys) == (
        2,
        f"ptoc: error: cannot read inputs from '{missing}': No such file or directory\n",
    )


def test_inputs_of_the_wrong_kind_name_the_parameter_dtype(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    complex_values = tmp_path / "complex.npz"
    np.savez(complex_values, x=np.full((128, 64), 1 + 2j))
    assert run_with_inputs(complex_values, capsys) == (
        2,
        "ptoc: error: input 'x' holds complex128 values, not real numbers: the parameter is FP32\n",
    )
    text = tmp_path / "text.npz"
    np.savez(text, y=np.full((128, 64), "abc"))
    assert run_with_inputs(text, capsys) == (
        2,
        "ptoc: error: input 'y' holds <U3 values, not real numbers: the parameter is FP32\n",
    )


def test_integer_parameters_refuse_values_they_cannot_hold() -> None:
    from ptoc.ir.dtype import DataType
    from ptoc.run.inputs import InputProblem, fit_input

    fitted = fit_input("n", np.array([1.0, -3.0]), (2,), DataType.INT8)
    assert fitted.dtype == np.int8 and fitted.tolist() == [1, -3]
    for values in ([0.5, 1.0], [300.0, 1.0]):
        with pytest.raises(InputProblem) as caught:
            fit_input("n", np.array(values), (2,), DataType.INT8)
        assert str(caught.value) == (
            "input 'n' has values that INT8 cannot hold exactly (fractions or out of range)"
        )
    with pytest.raises(InputProblem):
        fit_input("flag", np.array([2]), (1,), DataType.BOOL)


def test_missing_tools_name_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["run", SIMPLE_ADD, "--function", "simple_add", "--sim", "--pto-isa", "/nonexistent"]
    )
    assert code == 2
    assert capsys.readouterr().err == (
        "ptoc: error: pto-isa not found at '/nonexistent' (--pto-isa): it has no "
        "include/pto/pto-inst.hpp; pass --pto-isa DIR or set PTO_ISA_ROOT to a checkout of "
        "pto-isa\n"
    )
    monkeypatch.setenv("CXX", "no-such-compiler")
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--sim"]) == 2
    assert capsys.readouterr().err == (
        "ptoc: error: CXX='no-such-compiler' is not an executable; apt-get install -y clang-19 "
        "(or set CXX to clang++ 17+ / g++ 13+)\n"
    )


def test_sim_agrees_on_the_readme_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    monkeypatch.chdir(tmp_path)  # a relative --keep (the simulator runs inside it)
    keep = tmp_path / "keep"
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--sim", "--keep", "keep"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "x (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "y (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "output (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "simple_add: simulator and reference interpreter agree on 3 results",
    ]
    kept = sorted(p.name for p in keep.iterdir())
    assert kept == ["inputs.npz", "kernel.cpp", "reference.npz", "sim", "simulator.npz"]
    assert "runSimpleAdd" in (keep / "kernel.cpp").read_text(encoding="utf-8")


def test_sim_reports_a_mismatch_with_exit_code_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    from ptoc.run import execute

    real = execute.reference_results

    def off_by_one(*args: object) -> execute.Results:
        results = real(*args)  # type: ignore[arg-type]
        results.outputs["output"] = results.outputs["output"] + 1
        return results

    monkeypatch.setattr(execute, "reference_results", off_by_one)
    assert main(["run", SIMPLE_ADD, "--function", "simple_add", "--sim"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2:] == [
        "output (FP32): max abs error 1, max rel error 1.26e+03 (rtol 0.0001, atol 1e-05): "
        "MISMATCH in 8192 of 8192, first at [0, 0]",
        "simple_add: simulator and reference interpreter DISAGREE",
    ]


def test_sim_does_not_compare_bf16_on_a_simulator_that_holds_it_as_float16(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's CPU simulator holds bfloat16_t as _Float16 without C++23's std::bfloat16_t:
    a BF16 kernel's results there are not BF16's. The probe asks the compiler and pto-isa."""
    tools_or_skip()
    from ptoc.run import command, simulator

    source = tmp_path / "bf16_add.py"
    text = Path(SIMPLE_ADD).read_text(encoding="utf-8")
    source.write_text(
        text.replace("y: pl.Tensor[[128, 64], pl.FP32]", "y: pl.Tensor[[128, 64], pl.BF16]")
    )
    toolchain = command._toolchain(None, False)
    float16 = simulator.bf16_is_float16(toolchain)
    verdicts = {p.read_text(encoding="utf-8") for p in toolchain.cache.glob("bf16-*[0-9a-f]")}
    assert ("float16" if float16 else "bf16") in verdicts  # asked once per toolchain
    code = main(["run", str(source), "--function", "simple_add", "--sim"])
    captured = capsys.readouterr()
    if not float16:  # a toolchain with a real bfloat16_t: the kernel is compared
        assert code == 0, captured.out
        return
    assert code == 1
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "ptoc: error: 'simple_add' cannot be compared on the simulator: it computes on BF16, "
        f"and pto-isa's CPU simulator built with {toolchain.compiler.command} holds "
        "bfloat16_t as _Float16 "
        "(include/pto/common/type.hpp: a real bfloat16_t needs C++23 <stdfloat>), so its "
        "results would not be BF16's; without --sim the reference interpreter runs it"
    )
    assert "building" not in captured.err


def int32_output_add(tmp_path: Path) -> Path:
    """simple_add storing its FP32 sum into an INT32 tensor (W021: the bits are copied)."""
    source = tmp_path / "bits.py"
    text = Path(SIMPLE_ADD).read_text(encoding="utf-8")
    out = "output: pl.Tensor[[128, 64], pl.FP32]"
    source.write_text(text.replace(out, out.replace("FP32", "INT32")), encoding="utf-8")
    return source


def test_the_interpreter_copies_the_bits_of_a_store_into_another_type(tmp_path: Path) -> None:
    """A Vec tile stored into a tensor of another type of the same size is a byte copy on the
    NPU (W021): the interpreter reinterprets the bits, it does not convert the values."""
    keep = tmp_path / "keep"
    run = ["run", str(int32_output_add(tmp_path)), "--function", "simple_add"]
    assert main([*run, "--keep", str(keep)]) == 0
    inputs, reference = np.load(keep / "inputs.npz"), np.load(keep / "reference.npz")
    total = (inputs["x"] + inputs["y"]).astype(np.float32)
    assert reference["output"].dtype == np.int32
    assert np.array_equal(reference["output"], total.view(np.int32))


def test_sim_does_not_compare_a_store_the_simulator_converts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pto-isa's CPU simulator converts the values where the NPU copies the bits (W021)."""
    tools_or_skip()
    source = int32_output_add(tmp_path)
    assert main(["run", str(source), "--function", "simple_add", "--sim"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "ptoc: error: 'simple_add' cannot be compared on the simulator: it stores 1 tile(s) "
        "into a tensor of another type of the same size (W021 above): the NPU copies the bits, "
        "which the reference interpreter follows, and pto-isa's CPU simulator converts the "
        "values"
    )


TENSOR_ADD = str(ROOT / "examples" / "tensor_add.py")


def test_sim_runs_a_tensor_level_kernel_with_its_out_parameter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tools_or_skip()
    assert main(["run", TENSOR_ADD, "--function", "scaled_sum", "--sim"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "out_0 (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "scaled_sum: simulator and reference interpreter agree on 3 results",
    ]


def test_sim_runs_an_orchestration_function_with_the_kernels_it_launches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    keep = tmp_path / "keep"
    assert main(["run", TENSOR_ADD, "--function", "main", "--sim", "--keep", str(keep)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "a (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "b (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "return 0 (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok",
        "main: simulator (host code and 2 kernel(s) run as tasks in program order) and "
        "reference interpreter agree on 3 results",
    ]
    assert sorted(np.load(keep / "simulator.npz")) == ["a", "b", "return_0"]
    assert sorted(np.load(keep / "reference.npz")) == ["a", "b", "return_0"]
    unit = (keep / "kernel.cpp").read_text(encoding="utf-8")
    assert "aicpu_orchestration_entry(&rt" in unit and "ptoc_kernels::runScaledSum" in unit


def test_sim_of_an_orchestration_function_reports_a_mismatch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_or_skip()
    from ptoc.run import orchestration

    real = orchestration.reference_tensors

    def off_by_one(*args: object) -> dict[str, np.ndarray]:
        found = real(*args)  # type: ignore[arg-type]
        found["return 0"] = found["return 0"] + 1
        return found

    monkeypatch.setattr(orchestration, "reference_tensors", off_by_one)
    assert main(["run", TENSOR_ADD, "--function", "main", "--sim"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("return 0 (FP32): max abs error 1, ")
    assert out[2].endswith("MISMATCH in 65536 of 65536, first at [0, 0]")
    assert out[3] == "main: simulator and reference interpreter DISAGREE"


def test_sim_refuses_host_code_that_leaves_tensor_ops_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The host code leaves out an Orchestration function's computing tensor ops (W010), and
    a later use names a variable it never declared: refused before clang, saying why."""
    tools_or_skip()
    flash = str(ROOT / "examples" / "flash_attention.py")
    assert main(["run", flash, "--function", "flash_attention", "--sim"]) == 1
    err = capsys.readouterr().err
    assert err.count("warning[W010]") == 15
    assert err.splitlines()[-1] == (
        "ptoc: error: 'flash_attention' cannot be compared on the simulator: its host code leaves "
        "out 15 tensor op(s) that compute (W010 above); put them in a kernel (an InCore "
        "function or a `with pl.incore():` scope)"
    )
    assert "rejected the generated code" not in err


def test_check_and_compile_never_import_numpy() -> None:
    script = (
        "import sys\nfrom ptoc.cli import main\n"
        f"main(['check', {SIMPLE_ADD!r}])\n"
        f"main(['compile', {SIMPLE_ADD!r}, '-o', '/dev/null'])\n"
        "print('numpy' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "False"


NAMED_REGION = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep") as prep:
            y = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
            out = pl.mul(y, y)
        return out
"""


def test_sim_runs_a_region_that_names_its_task_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`with pl.at(...) as prep:` is outlined into a submit of its kernel (prep bound to its
    TaskId): with no deps= it is the plain PTO2 task, and the simulator agrees."""
    tools_or_skip()
    source = tmp_path / "named.py"
    source.write_text(NAMED_REGION, encoding="utf-8")
    assert main(["run", str(source), "--function", "main", "--sim"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "main: simulator (host code and 2 kernel(s) run as tasks in program order) and "
        "reference interpreter agree on 3 results"
    )


VALID_WINDOW = """\
import pypto.language as pl


@pl.program
class Window:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        data: pl.Tensor[[64, 64], pl.FP32],
        vlen: pl.Scalar[pl.INDEX],
        output: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        window = pl.load(data, [0, 0], [64, 64], valid_shape=[64, vlen])
        padded = pl.tile.fillpad(window, pad_value=pl.PadValue.zero)
        return pl.store(padded, [0, 0], output)
"""


@pytest.mark.parametrize(("vlen", "fits"), [(-8, False), (65, False), (0, True), (64, True)])
def test_a_valid_extent_outside_the_tile_stops_the_interpreter_at_the_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vlen: int, fits: bool
) -> None:
    """pto-isa's TLOAD asserts that the valid region fits the tile (the simulated kernel was
    killed by signal 6 on a seeded -8 while the interpreter clamped it)."""
    source, inputs = tmp_path / "window.py", tmp_path / "in.npz"
    source.write_text(VALID_WINDOW, encoding="utf-8")
    np.savez(inputs, vlen=np.array(vlen, dtype=np.int64))
    code = main(["run", str(source), "--function", "main", "--inputs", str(inputs)])
    err = capsys.readouterr().err
    if fits:
        assert code == 0, err
        return
    assert code != 0
    assert (
        f"window.py:13:18: block.load: the tile's valid shape [64, {vlen}] does not fit its " in err
    )
    assert "shape [64, 64]: each extent must be from 0 to the tile's" in err
