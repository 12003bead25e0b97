"""The compile driver's own contract: targets and their pipelines, reading files, the file-kind
sniff, and results that never raise for anything the input causes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc import driver
from ptoc.filekind import is_pypto_source

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KERNEL = (EXAMPLES / "mul_kernel_2d.py").read_text(encoding="utf-8")


def test_targets_and_default_pipelines() -> None:
    assert driver.all_targets() == [
        "cce",
        "pto",
        "pto-cpp",
        "ir",
        "pass:ConvertToSSA",
        "pass:FlattenCalls",
        "pass:OutlineIncoreScopes",
        "pass:InlineCalls",
        "pass:ConvertTensorToBlockOps",
        "pass:Verifier",
        "pass:AddReductionScratch",
        "pass:InitMemRef",
        "pass:MemoryReuse",
        "pass:InsertSync",
        "pass:AllocateMemoryAddr",
    ]
    assert [
        driver.default_pipeline(t) for t in ("cce", "pto", "pto-cpp", "ir", "pass:InsertSync")
    ] == ["default", "ptoas", "ptoas", "default", "default"]
    assert [driver.target_language(t) for t in ("cce", "pto", "ir", "pass:Verifier")] == [
        "cpp",
        "mlir",
        "python",
        "python",
    ]


def test_an_unknown_target_is_the_callers_mistake() -> None:
    with pytest.raises(ValueError, match="unknown target 'wasm'"):
        driver.compile_source(KERNEL, "wasm")


def test_an_unknown_pipeline_is_a_diagnostic_and_no_text() -> None:
    result = driver.compile_source(KERNEL, "cce", pipeline="fast")
    assert result.text == ""
    assert [(d.code, d.message) for d in result.back_end] == [
        ("E404", "unknown pipeline 'fast' (known: default, ptoas)")
    ]


def test_front_end_errors_stop_before_the_passes() -> None:
    result = driver.compile_source(
        KERNEL.replace("pl.mul(tile_a, tile_b)", "pl.mul(tile_a, nope)"), "cce", path="k.py"
    )
    assert result.text == "" and result.programs == [] and result.back_end == []
    assert [d.code for d in result.front_end] == ["E200"]


def test_a_pass_the_pipeline_does_not_run_says_so() -> None:
    result = driver.compile_source(KERNEL, "pass:InsertSync", pipeline="ptoas")
    assert result.text == "# pass 'InsertSync' is not in the 'ptoas' pipeline\n"


CALLS = """\
import pypto.language as pl


@pl.program
class Calls:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], [64, 64], out)

    @pl.function(type=pl.FunctionType.InCore)
    def unrelated(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], [64, 64], out)

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return self.kernel(a, out)
"""


def test_narrowing_keeps_the_function_and_what_it_calls() -> None:
    (program,) = driver.analyze(CALLS, "c.py").all_programs()
    assert driver.callees(program, "main") == ["main", "kernel"]
    assert [fn.name for fn in driver.narrow(program, "main").functions] == ["kernel", "main"]
    result = driver.compile_source(CALLS, "ir", function="main")
    assert not result.has_errors
    ((source, _pipeline, _text),) = [(p.source, p.pipeline, p.text) for p in result.programs]
    assert [fn.name for fn in source.functions] == ["kernel", "main"]  # what the passes saw
    assert "def main(" in result.text and "def kernel(" not in result.text  # what is shown


def test_reading_files(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_bytes(b"\xef\xbb\xbfimport pypto.language as pl\r\n")
    assert driver.read_text(str(path)) == "\ufeffimport pypto.language as pl\r\n"
    assert driver.read_source(str(path)) == "import pypto.language as pl\r\n"
    path.write_bytes(b"x = 1\n\xff\n")
    with pytest.raises(driver.SourceError, match=r"not valid UTF-8 \(byte 0xff on line 2\)"):
        driver.read_source(str(path))
    with pytest.raises(driver.SourceError, match="no such file or directory"):
        driver.read_source(str(tmp_path / "missing.py"))


def test_directory_walks_skip_hidden_and_tool_folders(tmp_path: Path) -> None:
    for folder in ("a", ".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "k.py").write_text("", encoding="utf-8")
    (tmp_path / "top.py").write_text("", encoding="utf-8")
    found = [
        Path(p).relative_to(tmp_path).as_posix() for p in driver.walk_python_files(str(tmp_path))
    ]
    assert found == ["top.py", "a/k.py"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import pypto.language as pl\n", True),
        ("import pypto.language\n", True),
        ("from pypto import language as pl\n", True),
        ("from pypto.language import Tensor\n", True),
        ("import os, pypto.language as pl\n", True),
        ("if True:\n    import pypto.language as pl\n", True),
        ("import pypto.ir as pi\n", True),
        ("# pypto.program: P\nimport something_else\n", True),
        ("# a comment\n\n# pypto.program\n", True),
        ('"""Uses pypto.language in prose only."""\n', False),
        ("import os  # pypto.language\n", False),
        ("x = 1\n# pypto.program: P\n", False),
        ("import pypto_tools\n", False),
    ],
)
def test_the_file_kind_sniff(text: str, expected: bool) -> None:
    assert is_pypto_source(text) is expected


def test_walking_and_printing_leave_no_garbage_cycles():
    # A long-lived server calls these after every edit and hover; each cycle they left (a
    # visitor class made per call, a printer tied to its own type printer) waited for a full
    # collection and raised the memory's high-water mark (issue #33).
    import gc

    from ptoc.printer import print_expr, print_type

    analysis = driver.analyze(EXAMPLES.joinpath("tensor_add.py").read_text(), "t.py")
    (program,) = analysis.all_programs()
    main = program.function("main")
    assert main is not None
    param = main.params[0]

    def use() -> None:
        assert driver.direct_calls(main) == ["scaled_sum"]
        assert print_type(param.type) == "pl.Tensor[[512, 128], pl.FP32]"
        assert print_expr(param) == "a"

    use()  # first uses load modules and make the visitor classes
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            use()
        assert gc.collect() == 0
    finally:
        gc.enable()
