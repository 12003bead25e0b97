"""``ptoc upgrade``: writing, --check, --diff, exit codes, the lines left and why."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ptoc.cli import main

OLD = """import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    t = pl.block.load(a, [0, 0], [64, 64])  # read
    s = pl.block.sum(t, axis=1, keepdim=True)
    out = pl.block.store(t, [0, 0], [64, 64], out)
    return out
"""
NEW = OLD.replace("pl.block.load", "pl.tile.load").replace(
    "pl.block.store(t, [0, 0], [64, 64], out)", "pl.tile.store(t, [0, 0], out)"
)
LEFT = (
    "left `pl.block.sum`: an axis reduction of a tile (`pl.sum/max/min(tile, axis, keepdim)`) "
    "has no 2026-08 spelling of the same arguments: `pl.row_sum/row_max/row_min(tile, tmp)` "
    "or `pl.col_*` need a temporary tile\n"
)


def upgrade(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["upgrade", *(str(a) for a in args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_upgrade_rewrites_the_file_and_says_what_it_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    path.write_text(OLD)
    path.chmod(0o751)
    inode = path.stat().st_ino
    assert upgrade(capsys, path) == (
        0,
        "",
        f"{path}:7:9: {LEFT}upgraded {path} (2 rewrites)\n1 file upgraded, 0 unchanged\n",
    )
    assert path.read_text() == NEW
    assert stat.S_IMODE(path.stat().st_mode) == 0o751 and path.stat().st_ino != inode
    # a second run has nothing to do, and still names the line it leaves
    assert upgrade(capsys, path) == (0, "", f"{path}:7:9: {LEFT}0 files upgraded, 1 unchanged\n")


def test_check_and_diff_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(OLD)
    code, out, err = upgrade(capsys, "--check", path)
    assert (code, out) == (1, f"would upgrade {path}\n")
    assert err.endswith("1 file would be upgraded, 0 unchanged\n")
    code, out, _ = upgrade(capsys, "--diff", path)
    assert code == 0
    assert out.splitlines()[:2] == [f"--- {path} (original)", f"+++ {path} (upgraded)"]
    assert "-    t = pl.block.load(a, [0, 0], [64, 64])  # read" in out.splitlines()
    assert "+    t = pl.tile.load(a, [0, 0], [64, 64])  # read" in out.splitlines()
    assert path.read_text() == OLD


def test_a_directory_is_walked_and_a_missing_path_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "k.py").write_text(OLD)
    (tmp_path / "pkg" / "plain.py").write_text("x = 1\n")
    code, _, err = upgrade(capsys, tmp_path / "pkg")
    assert code == 0 and err.endswith("1 file upgraded, 0 unchanged\n")
    assert (tmp_path / "pkg" / "k.py").read_text() == NEW
    code, _, err = upgrade(capsys, tmp_path / "missing.py")
    assert code == 2 and "cannot read" in err


def test_a_refused_file_exits_1_and_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ptoc.upgrade import upgrader

    monkeypatch.setattr(upgrader, "differences", lambda before, after: {"k": "it differs"})
    path = tmp_path / "k.py"
    path.write_text(OLD)
    code, _, err = upgrade(capsys, path)
    assert code == 1
    assert (
        f"refusing to upgrade {path}: function 'k' means something else in 2026-08 (see the "
        "lines left): it differs\n" in err
    )
    assert path.read_text() == OLD
