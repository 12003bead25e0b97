"""PTOAS (the real PTO assembler) accepts what ``ptoc --target pto`` writes: every example,
the op kernels in kernels/, seed 002's golden text and the PTO generator tests' kernels, for
each supported version (v0.57 and v0.27), and makes every kernel an entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from corpus import Kernel, everything

from ptoc.cli import main
from ptoc.codegen.pto import generate_pto
from ptoc.codegen.pto.ptoas import PtoasResult, ptoas_version, run_ptoas
from ptoc.ir import Program

KERNELS = everything()


def mlir_of(kernel: Kernel, tmp_path: Path, version: str) -> str:
    if kernel.mlir is not None:
        return kernel.mlir.read_text(encoding="utf-8")
    if kernel.build is not None:
        result = generate_pto(Program("kernels", (kernel.build(),)), ptoas_version=version)
        assert result.diagnostics == []
        return result.text
    source = kernel.source
    if source is None:
        source = tmp_path / "kernel.py"
        source.write_text(kernel.text or "", encoding="utf-8")
    out = tmp_path / "kernel.pto"
    code = main(
        ["compile", str(source), "--target", "pto", "--ptoas-version", version, "-o", str(out)]
    )
    if code != 0 and kernel.text is not None:
        pytest.skip(f"{kernel.name} does not compile for PTO (ptoc exit code {code})")
    assert code == 0, f"ptoc compile --target pto failed on {kernel.name}"
    return out.read_text(encoding="utf-8")


def explain(result: PtoasResult) -> str:
    return "\n".join(f"{d.line}:{d.column}: {d.severity}: {d.message}" for d in result.diagnostics)


# Kernels of a form only a newer PTOAS takes: what ptoc says for an older one (E400, not MLIR
# the older PTOAS would refuse).
NEWER_ONLY = {
    ("kernels/ops_2608_v057.py", "0.27"): (
        "kernels/ops_2608_v057.py:16:41: error[E400]: block.assemble (pto.tinsert) has no PTOAS "
        "v0.27 form here: v0.57 and later take it"
    ),
}


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_ptoas_accepts(
    kernel: Kernel, ptoas_each: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = ptoas_version(ptoas_each)
    assert version is not None
    refused = NEWER_ONLY.get((kernel.name, version))
    if refused is not None:
        assert kernel.source is not None
        out = tmp_path / "kernel.pto"
        argv = ["compile", str(kernel.source), "--target", "pto", "--ptoas-version", version]
        assert main([*argv, "-o", str(out)]) == 1
        assert capsys.readouterr().err.replace(str(kernel.source.parent.parent) + "/", "") == (
            refused + "\n"
        )
        return
    mlir = mlir_of(kernel, tmp_path, version)
    result = run_ptoas(mlir, ptoas_each)
    assert result.ok, f"PTOAS rejects {kernel.name}:\n{explain(result)}"
    called = set(re.findall(r"func\.call @(\w+)\(", mlir))
    for name in re.findall(r"func\.func @(\w+)\(", mlir):  # every function became C++
        assert re.search(rf"AICORE \w+ {name}\(", result.cpp), name
        if name not in called:  # a kernel is an entry (v0.57: only when marked pto.entry)
            assert re.search(rf"__global__ AICORE void {name}\(", result.cpp), name


def test_the_corpus_covers_every_example_and_op_kernel() -> None:
    names = {k.name for k in KERNELS}
    root = Path(__file__).parents[2]
    examples = {p.relative_to(root).as_posix() for p in (root / "examples").rglob("*.py")}
    assert examples <= names and len(examples) == 11
    assert {"kernels/vector_ops.py", "kernels/other_ops.py", "golden/mul_kernel_2d.mlir"} <= names
