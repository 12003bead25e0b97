"""Bad input gets diagnostics, never a crash; user code is never executed."""

from __future__ import annotations

import random
from pathlib import Path

from ptoc.frontend import analyze_source

KERNEL = """import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class Robust:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc0 = pl.load(a, [0, 0], [32, 64])
        for i, (acc,) in pl.range(0, 2, 1, init_values=(acc0,)):
            t = pl.load(a, [i * 32, 0], [32, 64])
            if i > 0:
                u = pl.yield_(pl.add(acc, t))
            else:
                u = pl.yield_(pl.mul(acc, t))
            acc2 = pl.yield_(u)
        r = pl.store(acc2, [0, 0], [32, 64], out)
        return r

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = self.kernel(a, out)
        return r
"""


def test_kernel_is_clean():
    assert analyze_source(KERNEL, "k.py").diagnostics == []


def test_every_prefix_of_a_kernel_analyses_without_crashing():
    for end in range(0, len(KERNEL), 7):
        result = analyze_source(KERNEL[:end], "k.py")
        assert all(d.code != "E900" for d in result.diagnostics), (end, result.diagnostics)


def test_random_line_deletions_and_garbage_never_crash():
    rng = random.Random(7)
    lines = KERNEL.splitlines(keepends=True)
    garbage = [
        "(",
        ")",
        "[",
        "]",
        ":",
        "pl.",
        "=",
        "for",
        "if x",
        "\t",
        "yield",
        "pl.yield(",
        "'",
        '"""',
        "\\",
    ]
    for _ in range(300):
        mutated = lines[:]
        for _ in range(rng.randint(1, 3)):
            index = rng.randrange(len(mutated))
            if rng.random() < 0.5:
                del mutated[index]
            else:
                pos = rng.randrange(len(mutated[index]) + 1)
                mutated[index] = mutated[index][:pos] + rng.choice(garbage) + mutated[index][pos:]
        result = analyze_source("".join(mutated), "k.py")
        assert all(d.code != "E900" for d in result.diagnostics), result.diagnostics


def test_deeply_nested_expression_is_a_diagnostic():
    depth = 5000
    text = (
        "import pypto.language as pl\n\n@pl.function\ndef f(n: pl.Scalar[pl.INT64]):\n    x = "
        + "(" * depth
        + "n"
        + ")" * depth
        + "\n"
    )
    result = analyze_source(text, "k.py")
    assert result.diagnostics and all(d.code in ("E000", "E901") for d in result.diagnostics)


def test_deeply_nested_arithmetic_is_handled():
    text = (
        "import pypto.language as pl\n\n@pl.function\ndef f(n: pl.Scalar[pl.INT64]):\n    x = "
        + " + ".join(["n"] * 3000)
        + "\n"
    )
    result = analyze_source(text, "k.py")
    assert all(d.code in ("E901",) for d in result.diagnostics)


def test_deeply_nested_blocks():
    body = ""
    indent = "    "
    for level in range(60):
        body += indent * (level + 1) + f"if n > {level}:\n"
    body += indent * 61 + "k = n\n"
    text = "import pypto.language as pl\n\n@pl.function\ndef f(n: pl.Scalar[pl.INT64]):\n" + body
    result = analyze_source(text, "k.py")
    assert [d.code for d in result.diagnostics] in ([], ["E000"])


def test_huge_file_of_many_functions():
    fn = """
@pl.function
def f{i}(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    t = pl.load(a, [0, 0], [64, 64])
    u = pl.add(t, t)
    r = pl.store(u, [0, 0], [64, 64], a)
    return r
"""
    text = "import pypto.language as pl\n" + "".join(fn.format(i=i) for i in range(400))
    result = analyze_source(text, "k.py")
    assert result.diagnostics == []
    assert len(result.functions) == 400


def test_non_ascii_columns_are_code_points():
    text = (
        "import pypto.language as pl\n\n@pl.function\ndef f(n: pl.Scalar[pl.INT64]):\n    s = "
        "'é' ; k = zz\n"
    )
    result = analyze_source(text, "k.py")
    d = next(d for d in result.diagnostics if d.code == "E200")
    line = text.splitlines()[d.span.line - 1]
    assert line[d.span.column : d.span.end_column] == "zz"


def test_nul_byte_is_a_diagnostic():
    result = analyze_source("import pypto.language as pl\n\x00\n", "k.py")
    assert [d.code for d in result.diagnostics] == ["E000"]


def test_user_code_is_never_executed(tmp_path: Path):
    marker = tmp_path / "executed.txt"
    text = f"""import pypto.language as pl
open({str(marker)!r}, "w").write("ran")
N = __import__("os").system("touch {marker}")

@pl.function
def f(a: pl.Tensor[[N], pl.FP32]):
    k = a
"""
    result = analyze_source(text, "k.py")
    assert not marker.exists()
    assert [d.code for d in result.diagnostics] == ["E205"]
