"""One compile driver: the editor's preview is byte for byte what `ptoc compile` prints.

For every example and every kernel of the code generators' golden tests, for every function
(and the whole file), every target (cce, pto, ir, pass:<Name>) with its default pipeline and
the other one, the server's preview function and the command line agree.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ptoc.cli import main
from ptoc.driver import TARGETS, all_targets, available_ptoas, default_pipeline
from ptoc.frontend import analyze_source
from ptoc.ir.function import Function, Program
from ptoc.printer import print_program
from ptols.features.preview import compile_preview
from ptols.jobs import compile_pass_diff

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.py"))
CODEGEN = ROOT / "tests" / "codegen"
# With PTOAS found, a PTO preview is checked by it, as `ptoc compile --target pto --verify`.
PTOAS = available_ptoas()


def load_test_module(path: Path) -> ModuleType:
    """A golden test module, loaded for its kernels (its helpers live next to it)."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"golden_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


def as_source(fn: Function) -> str:
    """An IR-built kernel as a printed IR file, which the front end reads like any source."""
    return print_program(Program(fn.name, (fn,), span=fn.span))


def golden_kernels() -> Iterator[tuple[str, str]]:
    cce = load_test_module(CODEGEN / "cce" / "test_cce_golden.py")
    pto = load_test_module(CODEGEN / "pto" / "test_pto_golden.py")
    pipeline = load_test_module(CODEGEN / "pto" / "test_pto_pipeline.py")
    yield "cce_simple_add_ir", as_source(cce.simple_add())
    yield "cce_matmul_ir", as_source(cce.matmul_kernel())
    yield "pto_mul_kernel_2d_ir", as_source(pto.mul_kernel_2d())
    yield "pto_mul_kernel_2d_source", pipeline.MUL_KERNEL_2D


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["compile", *argv])
    return code, capsys.readouterr().out


def settings() -> Iterator[tuple[str, str | None]]:
    """Every target with its default pipeline; code targets and one pass also with the other
    pipeline (a pass snapshot is the same under both pipelines until that pass)."""
    for target in all_targets():
        yield target, None
        if target in TARGETS:
            yield target, "ptoas" if default_pipeline(target) == "default" else "default"
    yield "pass:InsertSync", "ptoas"  # not in that pipeline: both say so


def check_file(path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """Compare every combination for one file; returns how many gave non-empty text."""
    text = path.read_text(encoding="utf-8")
    analysis = analyze_source(text, str(path))
    assert analysis.uses_pypto and not analysis.has_errors, path
    shown = 0
    # A preview shows one specialisation of a file's @pl.jit kernels (the first unless the
    # user picks another); `ptoc compile` alone writes them all.
    one = ["--specialise", "1"] if analysis.jit_specialisations else []
    for function in [None, *(info.name for info in analysis.function_infos)]:
        narrowing = one if function is None else [*one, "--function", function]
        for target, pipeline in settings():
            if target == "pto-cpp" and PTOAS is None:
                continue  # the command line needs PTOAS for it; the preview says it is missing
            choice = [] if pipeline is None else ["--pipeline", pipeline]
            if target == "pto" and PTOAS is not None:
                choice.append("--verify")
            preview = compile_preview(analysis, target, function, pipeline)
            code, out = cli(capsys, str(path), "--target", target, *narrowing, *choice)
            where = (path.name, function, target, pipeline)
            assert preview.content == out, where
            assert code == (
                1 if any(d.severity.value == "error" for d in preview.diagnostics) else 0
            ), where
            shown += bool(out)
    return shown


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_previews_as_ptoc_compile_prints(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_file(path, capsys) > 0


@pytest.mark.parametrize("name", [name for name, _ in golden_kernels()])
def test_every_golden_kernel_previews_as_ptoc_compile_prints(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(dict(golden_kernels())[name], encoding="utf-8")
    assert check_file(path, capsys) > 0


def test_the_pto_preview_uses_the_ptoas_pipeline_as_the_cli_does() -> None:
    # ptoas schedules its own synchronisation: no set/wait flag pairs in PTO MLIR by default.
    path = ROOT / "examples" / "mul_kernel_2d.py"
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path))
    pto = compile_preview(analysis, "pto", None, None).content
    assert "pto.tmul" in pto and "set_flag" not in pto and "wait_flag" not in pto
    cce = compile_preview(analysis, "cce", None, None).content
    assert "set_flag(" in cce and "wait_flag(" in cce
    assert "set_flag" in compile_preview(analysis, "pto", None, "default").content


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


def test_a_2026_08_file_s_ir_previews_and_pass_diff_are_in_its_edition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scale.py"
    path.write_text(KERNEL_2026_08, encoding="utf-8")
    assert check_file(path, capsys) > 0  # every target, IR and pass ones too, as the CLI
    analysis = analyze_source(KERNEL_2026_08, str(path))
    for target in ("ir", "pass:ConvertToSSA"):
        ir = compile_preview(analysis, target, None, None).content
        assert "pl.tile.muls(t, k * c + s)" in ir and "pl.block." not in ir, target
        assert "c: pl.Scalar[pl.INT64] = pl.const(7, pl.INT64)" in ir, target
        assert "s: pl.Scalar[pl.INDEX] = 3" in ir, target
    (program,), _, _ = compile_pass_diff(analysis, None, None, strict=False)
    for stage in program.stages:
        assert "pl.const(7, pl.INT64)" in stage.text and "pl.block." not in stage.text, stage.name
