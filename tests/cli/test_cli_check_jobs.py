"""`ptoc check -j N`: files are checked on several processes, and the output (text, JSON,
problems, summary) and exit code are exactly those of one process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_samples import BROKEN, EXAMPLES, PLAIN, run_ptoc

from ptoc import cli, parallel

Write = Callable[[str, str], Path]

WARNS = """import pypto.language as pl


@pl.function
def f(a: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT64]:
    b: pl.Scalar[pl.INT16] = a + 1
    return a
"""


def tree(write: Write) -> None:
    """Kernels in several folders: clean, broken, warnings only, plain Python, not UTF-8."""
    good = (EXAMPLES / "simple_add.py").read_text(encoding="utf-8")
    for k in range(6):
        write(f"tree/k{k}/good.py", good)
        write(f"tree/k{k}/broken_{k}.py", BROKEN)
        write(f"tree/k{k}/warns.py", WARNS)
        write(f"tree/k{k}/plain.py", PLAIN)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_many_jobs_give_exactly_the_output_of_one(write: Write, tmp_path: Path, fmt: str) -> None:
    tree(write)
    for k in (1, 4):  # problems are reported in file order, whichever worker finishes first
        latin1 = tmp_path / "tree" / f"k{k}" / "latin1.py"
        latin1.write_bytes(b"import pypto.language as pl\n# \xe9\n")
    one = run_ptoc("check", "--format", fmt, "-j", "1", "tree", "absent.py", cwd=tmp_path)
    assert one.returncode == 2  # a file that cannot be read outweighs the errors
    assert one.stderr.endswith("6 errors, 12 warnings in 18 files\n")
    problems = [line.split("'")[1] for line in one.stderr.splitlines() if "cannot read" in line]
    assert problems == ["absent.py", "tree/k1/latin1.py", "tree/k4/latin1.py"]
    for jobs in ("2", "5"):
        many = run_ptoc("check", "--format", fmt, "-j", jobs, "tree", "absent.py", cwd=tmp_path)
        assert (many.returncode, many.stdout, many.stderr) == (2, one.stdout, one.stderr)


def test_errors_exit_1_and_warnings_exit_0_on_many_jobs(write: Write, tmp_path: Path) -> None:
    tree(write)
    assert run_ptoc("check", "-j", "2", "tree", cwd=tmp_path).returncode == 1
    for k in range(6):
        (tmp_path / "tree" / f"k{k}" / f"broken_{k}.py").unlink()
    result = run_ptoc("check", "-j", "2", "tree", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "0 errors, 12 warnings in 12 files\n")


def test_the_default_is_one_process_per_core_and_workers_only_when_they_help(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spreads: list[int] = []
    ordered_map = parallel.ordered_map

    def recording(function: Callable[..., Any], items: Sequence[Any], workers: int) -> Any:
        spreads.append(workers)
        return ordered_map(function, items, workers)

    monkeypatch.setattr(parallel, "ordered_map", recording)
    monkeypatch.setattr(cli, "default_jobs", lambda: 2)
    tree(write)
    assert cli.main(["check", str(tmp_path / "tree")]) == 1
    assert spreads == []  # 24 small files: less source than a worker's start pays back
    small = sum(p.stat().st_size for p in (tmp_path / "tree").rglob("*.py"))
    assert small < cli.WORKERS_MIN_BYTES
    assert cli.main(["check", "-j", "2", str(tmp_path / "tree")]) == 1
    assert spreads == [2]  # asked for
    good = (EXAMPLES / "simple_add.py").read_text(encoding="utf-8")
    for k in range(2):  # 2 x 12 kB
        write(f"big/k{k}.py", good + "\n" + "# a long comment line\n" * 560)
    assert sum(p.stat().st_size for p in (tmp_path / "big").iterdir()) >= cli.WORKERS_MIN_BYTES
    assert cli.main(["check", str(tmp_path / "big")]) == 0
    assert spreads == [2, 2]
    assert cli.main(["check", "-j", "8", str(tmp_path / "tree" / "k0" / "good.py")]) == 0
    assert cli.main(["check", "-j", "1", str(tmp_path / "big")]) == 0
    assert spreads == [2, 2]  # one file, or one job: no workers


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "-j", "0", "x.py"]) == 2
    assert "expected a positive integer, got '0'" in capsys.readouterr().err


def workers_of(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_ends_the_command_and_its_workers_quietly(write: Write, tmp_path: Path) -> None:
    good = (EXAMPLES / "simple_add.py").read_text(encoding="utf-8")
    for k in range(400):
        write(f"many/k{k:03}.py", good)
    process = subprocess.Popen(
        [sys.executable, "-m", "ptoc", "check", "-j", "2", str(tmp_path / "many")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal gives a command
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not workers_of(process.pid):  # the worker is forked once the files are found
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, "", "ptoc: interrupted\n")
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # no worker is left behind
