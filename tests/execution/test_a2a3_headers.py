"""The CCE C++ of every execution-suite kernel (the matrix, the examples, the 2026-08 kernels),
compiled against pto-isa's A2/A3 instruction headers (``npu/a2a3/``, in the configuration of
its cost model: ``-D__COSTMODEL -D__NPU_ARCH__=2201``, ../shared/vendor/README.md), which
assert more than the CPU simulator does (row-major vector operands, DN / ND copies, element
types, the Right operand's fractal, the bias table): what passes the simulator must also
compile for the chip. The patched include tree is made once by the vendor's
``pto-isa-costmodel/prepare.py``; kernels are checked in batches (one ``-fsyntax-only``
compiler process each), and a batch that compiles is remembered by content hash. The CCE route's
C++ of tests/ptoas's execution tests (PyPTO 2026-08's own InCore kernels, the assemble, Mat
placement, paged form, promoted operand and valid region cases) is checked too, from the kernel
lists those modules build. What the headers rejected is lowered otherwise or is a diagnostic now
(docs/codegen-pto.md, "The execution chain"): every kernel compiles."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ptoc.run.execute import cce_kernel, tensor_level
from ptoc.run.toolchain import ToolMissing, find_compiler, find_pto_isa

from . import test_edition_2026_08 as edition_2026_08
from .bench import load_kernel
from .conftest import CACHE
from .matrix import all_cases
from .test_examples import EXAMPLES, KERNELS
from .test_matrix import CCE_REJECTS

ROOT = Path(__file__).resolve().parents[2]
PREPARE = ROOT.parent / "shared" / "vendor" / "pto-isa-costmodel" / "prepare.py"
FLAGS = ("-fsyntax-only", "-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-DPTO_COMM_NOT_SUPPORTED")
FLAGS += ("-std=c++20", "-include", "stdint.h", "-include", "stddef.h")
# Instructions whose A2/A3 implementation the cost-model configuration leaves out (no
# ``_IMPL`` under __COSTMODEL, ../shared/vendor/README.md): their npu/a2a3 headers, included
# after pto-inst.hpp, give them (found at instantiation), static assertions and all.
NOT_IN_THE_COST_MODEL = (
    *("TExpandS", "TColExpand", "TRowExpandMax", "TRowExpandMin", "TLRelu", "TPrelu", "TFillPad"),
    *("TConcat", "TInsert"),
    *(f"TColExpand{op}" for op in ("Add", "Sub", "Mul", "Div", "Max", "Min")),
    *("TAnd", "TOr", "TXor", "TShl", "TShr", "TBitwiseSOp"),
)
# TPRELU's TSUBVIEW, declared outside namespace pto (no argument-dependent lookup): first.
HEADER = "\n".join(
    ['#include "pto/npu/a2a3/TSubView.hpp"', "#include <pto/pto-inst.hpp>"]
    + [f'#include "pto/npu/a2a3/{name}.hpp"' for name in NOT_IN_THE_COST_MODEL]
    + ["using namespace pto;"]
)
BATCH = 24


def sources() -> dict[str, tuple[str, str, dict[str, object] | None]]:
    """Every kernel by name: (source, function, fixed inputs)."""
    found: dict[str, tuple[str, str, dict[str, object] | None]] = {
        case.name: (case.source, case.function, dict(case.inputs))
        for case in all_cases()
        if case.name not in CCE_REJECTS  # E400: no C++
    }
    for key in KERNELS:
        relative, function = key.split("::")
        found[key] = ((EXAMPLES / relative).read_text(encoding="utf-8"), function, None)
    for function in edition_2026_08.KERNELS:
        found[f"2026-08::{function}"] = (edition_2026_08.SOURCE, function, None)
    return found


PTOAS_TESTS = ROOT / "tests" / "ptoas"
NO_PTOAS = Path("ptoas")  # the CCE route does not run PTOAS


def ptoas_test_texts() -> dict[str, Callable[[], str | None]]:
    """The CCE route's C++ of tests/ptoas's execution kernels, by ``module::case``, made when
    asked for (``None``: the route makes no code, which those tests check)."""
    if str(PTOAS_TESTS) not in sys.path:
        sys.path.insert(0, str(PTOAS_TESTS))
    import test_assemble_execution as assemble
    import test_mat_placement_execution as mat_placement
    import test_paged_forms_execution as paged
    import test_promoted_operands_execution as promoted
    import test_ptoas_2608_execution as upstream
    import test_valid_regions_execution as valid

    def upstream_text(key: str) -> str | None:
        program, function = upstream.KERNELS[key]
        level, _ = tensor_level(program, function)
        return cce_kernel(level, function)[0]

    found: dict[str, Callable[[], str | None]] = {
        f"2026-08-upstream::{key}": (lambda key=key: upstream_text(key))
        for key in upstream.KERNELS  # every one has code but an Acc -> Mat assemble (E400)
        if key not in upstream.DEFECTS or upstream.DEFECTS[key] != upstream.ACC_MAT_ASSEMBLE
    }
    for module in (assemble, mat_placement, paged, valid):
        found |= {
            f"{module.__name__}::{key}": (
                lambda module=module, key=key: module.kernel_for(key, "cce", NO_PTOAS).text
            )
            for key in module.CASES
        }
    found |= {
        f"{promoted.__name__}::{key}@{edition}": (
            lambda key=key, edition=edition: promoted.kernel_for(key, edition, "cce", NO_PTOAS).text
        )
        for key, edition in promoted.KEYS
    }
    return found


SOURCES = sources()
TEXTS = ptoas_test_texts()
# Kernels whose C++ the A2/A3 headers reject, with the static assertion that says why.
NAMES = sorted([*SOURCES, *TEXTS])
BATCHES = [NAMES[i : i + BATCH] for i in range(0, len(NAMES), BATCH)]


@pytest.fixture(scope="module")
def a2a3_include() -> tuple[str, Path]:
    """The compiler and the patched include directory (made once per pto-isa checkout)."""
    try:
        compiler, pto_isa = find_compiler(), find_pto_isa(None)
    except ToolMissing as exc:
        missing(str(exc))
    if not PREPARE.is_file():
        missing(f"no {PREPARE}")
    out = CACHE / ("a2a3-" + hashlib.sha256(str(pto_isa.resolve()).encode()).hexdigest()[:12])
    include = out / "include"
    if not (include / "pto" / "pto-inst.hpp").is_file():
        command = [sys.executable, str(PREPARE), "--pto-isa", str(pto_isa), "--out", str(out)]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return compiler.command, include


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and a tool is missing: {reason}")
    pytest.skip(reason)


def compile_errors(compiler: str, include: Path, text: str) -> list[str]:
    """The compiler's errors on ``text`` (none: it compiles); a success is remembered."""
    flags = [*FLAGS, "-I", str(include / "pto" / "costmodel" / "stubs"), "-I", str(include)]
    key = hashlib.sha256("\0".join([compiler, *flags, text]).encode()).hexdigest()[:32]
    passed = CACHE / f"a2a3-ok-{key}"
    if passed.is_file():
        return []
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE, prefix="a2a3-") as scratch:
        source = Path(scratch) / "kernels.cpp"
        source.write_text(text, encoding="utf-8")
        done = subprocess.run([compiler, *flags, str(source)], capture_output=True, text=True)
    if done.returncode == 0:
        passed.touch()
        return []
    return [line for line in done.stderr.splitlines() if "error:" in line] or [done.stderr]


_texts: dict[str, str] = {}


def text_of(name: str) -> str:
    if name not in _texts:
        if name in TEXTS:
            text = TEXTS[name]()
            assert text is not None, f"{name}: the CCE route makes no code"
        else:
            source, function, fixed = SOURCES[name]
            kernel = load_kernel(name, source, function, fixed=fixed)  # type: ignore[arg-type]
            assert kernel.text is not None, kernel.problem
            text = kernel.text
        _texts[name] = text
    return _texts[name]


def translation_unit(names: list[str]) -> str:
    parts = [HEADER]
    for index, name in enumerate(names):
        parts.append(f"namespace k{index} {{\n{text_of(name)}\n}}  // {name}")
    return "\n".join(parts) + "\n"


@pytest.fixture(scope="module")
def batch_errors(a2a3_include: tuple[str, Path]) -> list[list[str]]:
    """Each batch's errors, the batches compiled two at a time."""
    compiler, include = a2a3_include
    units = [translation_unit(batch) for batch in BATCHES]
    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda unit: compile_errors(compiler, include, unit), units))


def test_the_suite_is_covered() -> None:
    assert len(SOURCES) >= 220 and len(TEXTS) >= 100


@pytest.mark.parametrize("index", range(len(BATCHES)), ids=lambda i: f"batch{i}")
def test_kernels_compile_against_the_a2a3_headers(
    index: int, batch_errors: list[list[str]], a2a3_include: tuple[str, Path]
) -> None:
    if not batch_errors[index]:
        return
    compiler, include = a2a3_include  # name the kernels that fail, one by one
    failing = {
        name: errors[:2]
        for name in BATCHES[index]
        if (errors := compile_errors(compiler, include, translation_unit([name])))
    }
    pytest.fail(f"A2/A3 headers reject {failing or batch_errors[index][:3]}")
