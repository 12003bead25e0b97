"""``[tool.ptoc.jit]`` (issue #27): a project's table of specialisations for kernels called
from another file, beside the file's own calls and ``# ptoc: specialise`` comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend_helpers import where

from ptoc import driver
from ptoc.config import ConfigError, load_config
from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source

CHOSEN = (Edition.V2026_08, EditionSource.FLAG)
EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)
KERNEL = EXAMPLE[: EXAMPLE.index("if __name__")]
BIG = "a=[128, 128]:FP32 b=[128, 128]:FP32 c=[128, 128]:FP32"
SMALL = "a=[32, 32]:FP16 b=[32, 32]:FP16 c=[32, 32]:FP16"


def write_project(folder: Path, table: str) -> Path:
    (folder / "pyproject.toml").write_text(f"[tool.ptoc.jit]\n{table}\n", encoding="utf-8")
    return folder / "pyproject.toml"


def test_the_table_is_read_by_kernel_name(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path, f'tile_add = ["{BIG}", "{SMALL}"]\nk = "{BIG}"'))
    assert config.jit_for("tile_add") == (BIG, SMALL)
    assert config.jit_for("k") == (BIG,)  # one string: one specialisation
    assert config.jit_for("other") == ()


@pytest.mark.parametrize("table", ["tile_add = 3", 'tile_add = ["a=[1]:FP32", 2]'])
def test_a_bad_entry_is_a_configuration_error(tmp_path: Path, table: str) -> None:
    with pytest.raises(ConfigError, match=r"\[tool.ptoc.jit\] tile_add must be a string"):
        load_config(write_project(tmp_path, table))


def test_a_jit_key_that_is_not_a_table_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ptoc]\njit = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="must be a table of kernel names"):
        load_config(tmp_path / "pyproject.toml")


def test_each_entry_is_a_specialisation_labelled_by_the_table() -> None:
    analysis = analyze_source(KERNEL, "k.py", edition=CHOSEN, jit_specs={"tile_add": (BIG,)})
    assert analysis.diagnostics == []
    (program,) = analysis.jit_specialisations["tile_add"]
    assert program.functions[0].params[0].type.short() == "Tensor[[128, 128], FP32]"
    assert analysis.jit_labels["tile_add"] == [
        "[tool.ptoc.jit] tile_add #1: a: [128, 128] FP32, b: [128, 128] FP32, c: [128, 128] FP32"
    ]


def test_what_an_entry_gets_wrong_is_reported_at_the_kernels_name() -> None:
    specs = {"tile_add": (BIG, SMALL, "a=[64, 64]:FP32")}
    analysis = analyze_source(KERNEL, "k.py", edition=CHOSEN, jit_specs=specs)
    name = where(KERNEL, "tile_add")
    assert [(d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
            for d in analysis.diagnostics] == [("E209", *name), ("I002", *name)]  # fmt: skip
    assert (
        "this [tool.ptoc.jit] entry gives 'b', 'c' of 'tile_add'" in analysis.diagnostics[1].message
    )
    assert len(analysis.jit_specialisations["tile_add"]) == 1  # the small one fails


def test_the_driver_reads_the_projects_table(tmp_path: Path) -> None:
    write_project(tmp_path, f'tile_add = ["{BIG}"]')
    path = tmp_path / "kernels.py"
    analysis = driver.analyze(KERNEL, str(path))
    (program,) = analysis.programs
    assert program.functions[0].params[2].type.short() == "Tensor[[128, 128], FP32]"


def test_comments_the_table_then_the_calls_give_the_specialisations_in_order() -> None:
    comment = "# ptoc: specialise a=[64, 64]:FP16 b=[64, 64]:FP16 c=[64, 64]:FP16"
    text = KERNEL.replace("@pl.jit\n", f"{comment}\n@pl.jit\n")
    text += 'if __name__ == "__main__":\n    a = torch.zeros((96, 64))\n    tile_add(a, a, a)\n'
    analysis = analyze_source(text, "k.py", edition=CHOSEN, jit_specs={"tile_add": (BIG,)})
    assert analysis.diagnostics == []
    titles = [label.split(": a:")[0] for label in analysis.jit_labels["tile_add"]]
    assert titles == [
        f"# ptoc: specialise (line {where(text, comment)[0]})",
        "[tool.ptoc.jit] tile_add #1",
        f"call at line {where(text, 'tile_add(a, a, a)')[0]}",
    ]
