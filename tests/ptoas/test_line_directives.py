"""`ptoc compile --line-directives`: generated code that points home. A clang error in the
C++ names the kernel's .py line through `#line`; a PTOAS error names it through the `loc(...)`
on the PTO MLIR operation."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kernels_rejected import INT8_COLUMN_SUM, INT8_COLUMN_SUM_LINE

from ptoc.cli import main
from ptoc.codegen.pto.ptoas import run_ptoas
from ptoc.ir.span import Span
from ptoc.line_directives import cpp_line_directives, mlir_locations
from ptoc.run.harness import PRELUDE
from ptoc.run.simulator import Toolchain

KERNEL = (Path(__file__).resolve().parents[2] / "examples" / "loop_sum.py").read_text()
ADD_LINE = 1 + KERNEL.split("\n").index(
    "            total: pl.Tile[[32, 64], pl.FP32] = pl.add(acc, rows)"
)


def compiled(tmp_path: Path, target: str, text: str = KERNEL) -> tuple[Path, str]:
    source = tmp_path / "k.py"
    source.write_text(text)
    output = tmp_path / ("k.cpp" if target == "cce" else "k.pto")
    command = ["compile", str(source), "--target", target, "--line-directives", "-o", str(output)]
    assert main(command) == 0
    return source, output.read_text()


def test_a_clang_error_in_generated_cpp_names_the_kernel_line(
    toolchain: Toolchain, tmp_path: Path
) -> None:
    source, cpp = compiled(tmp_path, "cce")
    assert f'#line {ADD_LINE} "{source}"' in cpp
    assert cpp.count("TADD(") == 1
    broken = tmp_path / "broken.cpp"  # an error injected into the kernel's TADD
    broken.write_text(PRELUDE + cpp.replace("TADD(", "TADD_UNDECLARED("))
    command = [toolchain.compiler.command, *toolchain.flags(), "-fsyntax-only", str(broken)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if ": error:" in line]
    assert errors and errors[0].startswith(f"{source}:{ADD_LINE}:"), done.stderr
    assert "TADD_UNDECLARED" in errors[0]


def test_without_the_error_the_marked_cpp_still_compiles(
    toolchain: Toolchain, tmp_path: Path
) -> None:
    _, cpp = compiled(tmp_path, "cce")
    clean = tmp_path / "clean.cpp"
    clean.write_text(PRELUDE + cpp)
    command = [toolchain.compiler.command, *toolchain.flags(), "-fsyntax-only", str(clean)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_a_ptoas_error_names_the_kernel_line(ptoas: Path, tmp_path: Path) -> None:
    source, mlir = compiled(tmp_path, "pto", INT8_COLUMN_SUM)
    result = run_ptoas(mlir, ptoas)
    assert not result.ok
    assert f'loc("{source}":{INT8_COLUMN_SUM_LINE}:9): error:' in result.output


def test_marked_mlir_passes_ptoas(ptoas: Path, tmp_path: Path) -> None:
    _, mlir = compiled(tmp_path, "pto")
    assert run_ptoas(mlir, ptoas).ok


def test_loc_goes_after_each_operation_and_after_a_region_s_brace() -> None:
    text = "\n".join(
        [
            "module {",
            "  func.func @f(%a: i32,",
            "               %b: i32) {",
            "    // a comment",
            "    %0 = arith.addi %a,",
            "         %b : i32",
            "    scf.for %i = %c0 to %c4 step %c1 {",
            "      pto.tadd ins(%x) outs(%y)",
            "    }",
            "    return",
            "  }",
            "}",
        ]
    )
    f, add, loop, body = (Span("k.py", line, 4, line, 9) for line in (3, 5, 6, 7))
    spans: list[Span | None] = [None, f, f, None, add, add, loop, body, None, None, None, None]
    assert mlir_locations(text, spans).split("\n") == [
        "module {",
        "  func.func @f(%a: i32,",
        "               %b: i32) {",
        "    // a comment",
        "    %0 = arith.addi %a,",
        '         %b : i32 loc("k.py":5:5)',
        "    scf.for %i = %c0 to %c4 step %c1 {",
        '      pto.tadd ins(%x) outs(%y) loc("k.py":7:5)',
        '    } loc("k.py":6:5)',
        "    return",
        '  } loc("k.py":3:5)',
        "}",
    ]


def test_line_directives_count_as_the_compiler_counts() -> None:
    statement = Span("k.py", 12, 8, 12, 20)
    text = "void f()\n{\n    TADD(a, b, c);\n    TMOV(d, c);\n}\n"
    spans: list[Span | None] = [None, None, statement, statement, None]
    out, out_spans = cpp_line_directives(text, spans, "k.cpp")
    assert out.split("\n") == [
        "void f()",
        "{",
        '#line 12 "k.py"',
        "    TADD(a, b, c);",
        '#line 12 "k.py"',
        "    TMOV(d, c);",
        '#line 8 "k.cpp"',  # the brace is line 8 of the output
        "}",
        "",
    ]
    assert len(out_spans) == len(out.split("\n")) - 1


def test_line_directives_are_for_cce_and_pto_only(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text(KERNEL)
    assert main(["compile", str(source), "--target", "ir", "--line-directives"]) == 2
