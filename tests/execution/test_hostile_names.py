"""Names a kernel controls cannot escape into generated text: programs whose every name is
hostile (Unicode letters, C++ keywords, names of pto-isa, of the PTO2 runtime and of the
generated code itself) compile to the same structure as a plain one. The CCE kernels and the
orchestration host C++ are built together against pto-isa and run on its CPU simulator
against the reference interpreter; the PTO MLIR must pass PTOAS."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ptoc.codegen.pto.ptoas import vendor_ptoas
from ptoc.driver import compile_source
from ptoc.filekind import program_header
from ptoc.lines import split_lines
from ptoc.scratch import private_folder

from .bench import Bench
from .test_orchestration import run_end_to_end

PROGRAM = '''"""A docstring: */ " \\\\ and #include <evil>
*/ /* nothing here reaches the generated text"""
import pypto.language as pl


@pl.program
class {P}:
    @pl.function(type=pl.FunctionType.InCore)
    def {K}(
        self,
        {A}: pl.Tensor[[64, 64], pl.FP32],
        {B}: pl.Tensor[[64, 64], pl.FP32],
        {O}: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        {T1} = pl.load({A}, [0, 0], [64, 64])
        {T2} = pl.load({B}, [0, 0], [64, 64])
        {T3} = pl.add({T1}, {T2})
        {R} = pl.store({T3}, [0, 0], [64, 64], {O})
        return {R}

    @pl.function(type=pl.FunctionType.InCore)
    def {K2}(
        self, {A}: pl.Tensor[[64, 64], pl.FP32], {O}: pl.Tensor[[64, 64], pl.FP32]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        {T1} = pl.load({A}, [0, 0], [64, 64])
        {T3} = pl.mul({T1}, {T1})
        {R} = pl.store({T3}, [0, 0], [64, 64], {O})
        return {R}

    @pl.function(type=pl.FunctionType.Orchestration)
    def {M}(
        self, {A}: pl.Tensor[[64, 64], pl.FP32], {B}: pl.Tensor[[64, 64], pl.FP32]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        {O}: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        {T1}: pl.Tensor[[64, 64], pl.FP32] = self.{K}({A}, {B}, {O})
        {T2}: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
        {R}: pl.Tensor[[64, 64], pl.FP32] = self.{K2}({T1}, {T2})
        return {R}
'''

# The program's names, in the order of ROLES: class, two kernels, parameters, locals, result,
# orchestration function.
ROLES = "P K K2 A B O T1 T2 T3 R M".split()
NAMES = {
    kind: dict(zip(ROLES, names.split(), strict=True))
    for kind, names in {
        "plain": "Plain add square a b out x y z r main",
        "unicode_letters": "Prögram ключ квадрат α Α 出力 t名 tπ ß résultat mäin",
        "cpp_keywords": "int new delete this auto template switch register operator typename "
        "namespace",
        "pto_isa_names": "pto TADD TMUL Tile GlobalTensor Shape set_flag PIPE_V EVENT_ID0 Stride "
        "TLOAD",
        "generated_names": "Runtime run_add AICORE args arg_count rt params_t0 ext_args v1 "
        "ARG_PTR_ARGS aicpu_orchestration_entry",
        "case_twins": "Twins k k2 a A o x X z Z m",
    }.items()
}


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_hostile_names_build_and_compute_as_plain_ones(kind: str, bench: Bench) -> None:
    names = NAMES[kind]
    assert run_end_to_end(bench, PROGRAM.format(**names), names["M"]) == []


def test_kernels_whose_cpp_names_would_meet_are_refused() -> None:
    names = dict(NAMES["plain"], K="k", K2="K")
    result = compile_source(PROGRAM.format(**names), "cce")
    assert result.text == ""
    assert [(d.code, d.span.line, d.message) for d in result.diagnostics] == [
        (
            "E400",
            22,
            "functions 'k' and 'K' would both be the C++ kernel 'runK'; rename one",
        )
    ]


def assemblers() -> list[Path]:
    """The PTOAS versions at hand: v0.27 (the vendored default) and v0.57 beside it."""
    v027 = vendor_ptoas()
    found = [p for p in (v027, v027.parents[1] / "ptoas-v0.57" / "ptoas") if p.is_file()]
    if not found and os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and PTOAS is missing at {v027}")
    return found


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_hostile_names_pass_ptoas_and_its_cpp_compiles(kind: str, bench: Bench) -> None:
    text = PROGRAM.format(**NAMES[kind])
    tried = assemblers()
    if not tried:
        pytest.skip("no PTOAS found")
    for ptoas in tried:
        mlir = compile_source(text, "pto", ptoas=ptoas)
        assert [d.format() for d in mlir.diagnostics] == [], ptoas
        cpp = compile_source(text, "pto-cpp", ptoas=ptoas)
        assert cpp.diagnostics == [] and "__global__ AICORE void" in cpp.text
        assert syntax_errors(bench, cpp.text) == "", ptoas


def syntax_errors(bench: Bench, source: str) -> str:
    """What the C++ compiler says of ``source`` against pto-isa ("" when it compiles)."""
    toolchain = bench.toolchain
    with private_folder("ptoc-test-") as folder:
        (folder / "kernel.cpp").write_text(source, encoding="utf-8")
        command = [toolchain.compiler.command, *toolchain.flags(), "-fsyntax-only", "kernel.cpp"]
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    return done.stderr if done.returncode else ""


def test_function_symbols_keep_clear_of_cpp_in_the_mlir() -> None:
    mlir = compile_source(PROGRAM.format(**NAMES["cpp_keywords"]), "pto").text
    assert "func.func @new_(" in mlir and "func.func @delete_(" in mlir
    unicode = compile_source(PROGRAM.format(**NAMES["unicode_letters"]), "pto").text
    assert 'func.func @"ключ"(' in unicode


# Hostile `# pypto.program:` headers over module-level functions of a printed IR file: only an
# identifier names the program; anything else leaves the file an ordinary Python file.
PRINTED = """import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def kernel(
    a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]
) -> pl.Tensor[[64, 64], pl.FP32]:
    t = pl.load(a, [0, 0], [64, 64])
    r = pl.store(t, [0, 0], [64, 64], out)
    return r
"""
HEADERS = {
    "# pypto.program: Evil*/ /*": None,
    '# pypto.program: A"B\\C': None,
    "# pypto.program: A\u2028B": None,
    "# pypto.program: A\x0bB": None,
    "# pypto.program: A\rB = 1": "A",  # a line break ends the header: B = 1 is code
    "# pypto.program: Prögram": None,
    "# pypto.program: int": "int",
}


@pytest.mark.parametrize("header", sorted(HEADERS), ids=repr)
def test_a_hostile_program_header_names_nothing_or_an_identifier(header: str) -> None:
    assert program_header(split_lines(header + "\n"))[1] == HEADERS[header]
    text = header + "\n" + PRINTED
    for target in ("cce", "pto", "ir"):
        result = compile_source(text, target)
        problems = [d.format() for d in result.diagnostics if d.severity.value == "error"]
        assert problems == [] and result.text, (target, problems)
        for fragment in ("*/", '"B', "\\C", "\u2028", "\x0b", "Prögram", "\r"):
            assert fragment not in result.text, (target, fragment)


def test_a_kernel_named_as_a_cpp_keyword_runs_through_the_pto_route(bench: Bench) -> None:
    from ptoc.cli import analyze
    from ptoc.run.harness import translation_unit
    from ptoc.run.pto_kernel import pto_kernel

    tried = assemblers()
    if not tried:
        pytest.skip("no PTOAS found")
    (program,) = analyze(PROGRAM.format(**NAMES["cpp_keywords"]), "k.py").all_programs()
    for ptoas in tried:
        cpp, diagnostics = pto_kernel(program, "new", ptoas)
        assert diagnostics == [] and cpp is not None
        assert "void run_new_(__gm__ int64_t* args)" in cpp
        assert syntax_errors(bench, translation_unit([cpp])) == "", ptoas
