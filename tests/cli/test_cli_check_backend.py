"""`ptoc check` reports what compiling would say about tiles (E401, E402), once each, on the
statement at fault, and agrees with `ptoc compile`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cli_samples import run_ptoc

Write = Callable[[str, str], Path]


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def kernel(shape: str, window: str, header: str = "") -> str:
    tensor = f"pl.Tensor[{shape}, pl.FP32]"
    return f"""import pypto.language as pl
{header}

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {tensor}, out: {tensor}) -> {tensor}:
        t = pl.load(a, [0, 0], {window})
        u = pl.add(t, t)
        out = pl.store(u, [0, 0], {window}, out)
        return out
"""


def test_capacity_overflow_is_reported_by_check(write: Write) -> None:
    text = kernel("[256, 256]", "[256, 256]")
    path = write("big.py", text)
    checked = run_ptoc("check", str(path))
    assert checked.returncode == 1
    assert checked.stdout == (
        f"{path}:{line_of(text, 't = pl.load')}:9: error[E402]: tiles live in Vec need 524288 "
        f"bytes, but the target's Vec "
        "capacity is 196608 bytes; buffers: t (262144 B), u (262144 B)\n"
    )
    compiled = run_ptoc("compile", str(path), "--target", "cce")
    assert compiled.stderr.splitlines()[0] == checked.stdout.rstrip("\n")


def test_dynamic_window_is_one_error_naming_the_tensor(write: Write) -> None:
    text = kernel("[N, 32]", "[N, 32]", header='N = pl.dynamic("N")\n')
    path = write("dyn.py", text)
    checked = run_ptoc("check", str(path))
    assert checked.returncode == 1
    assert checked.stdout == (
        f"{path}:{line_of(text, 't = pl.load')}:9: error[E401]: the window of 'a' has the "
        "dynamic shape [N, 32], but a tile needs a static shape: declare 'a' with constant "
        "sizes and load windows of constant size\n"
    )
    # The fix it names compiles for both targets.
    fixed = write("fixed.py", kernel("[128, 32]", "[32, 32]"))
    for target in ("cce", "pto"):
        compiled = run_ptoc("compile", str(fixed), "--target", target)
        assert (compiled.returncode, compiled.stderr) == (0, ""), target


def test_fitting_kernels_get_nothing(write: Write) -> None:
    path = write("fine.py", kernel("[128, 64]", "[128, 64]"))
    checked = run_ptoc("check", str(path))
    assert (checked.returncode, checked.stdout) == (0, "")


def test_a_function_with_a_front_end_error_gets_no_backend_diagnostic(write: Write) -> None:
    text = kernel("[256, 256]", "[256, 256]").replace("u = pl.add(t, t)", "u = pl.add(t, tt)")
    path = write("both.py", text)
    checked = run_ptoc("check", str(path))
    assert [line.split(": ")[1] for line in checked.stdout.splitlines()] == ["error[E200]"]


MIXED = """import pypto.language as pl


@pl.program
class M:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.add(acc, bias), [0, 0])
        return out
"""


def test_a_mixed_scope_is_a_note_of_check_and_compile(write: Write) -> None:
    """A vector op reading the matmul's product in one scope: split into a cube kernel and a
    vector kernel (I009, information), no error."""
    path = write("mixed.py", MIXED)
    checked = run_ptoc("check", str(path))
    assert checked.returncode == 0
    note = (
        f"{path}:14:9: info[I009]: this kernel scope is split into a cube kernel and a vector "
        "kernel, launched one after the other, the matmul's product handed over through a "
        "tensor in GM (A2/A3's vector unit cannot read the cube's Acc buffer); upstream's "
        "cross-core pipe between the two, and the overlap pl.split asks for, are not modelled"
    )
    assert checked.stdout == note + "\n"
    for target in ("cce", "pto"):
        compiled = run_ptoc("compile", str(path), "--target", target)
        assert compiled.returncode == 0
        assert compiled.stderr.splitlines() == [note]
