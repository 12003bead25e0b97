"""``ptoc fmt`` killed while writing: SIGTERM removes the temporary at once; after SIGKILL the
next run removes it. A child process is paused deterministically just before the temporary
replaces the file (its ``os.replace`` waits), then signalled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ptoc.cli import main

Write = Callable[[str, str], Path]
MESSY = "import pypto.language as pl\nx = [1,2,\n  3]\n"
CLEAN = "import pypto.language as pl\n\nx = [1, 2, 3]\n"

# Runs `ptoc fmt PATH` with os.replace stalled: says "paused" once the temporary is written.
PAUSED_CHILD = """
import os, sys, time
def stall(source, target):
    print("paused", flush=True)
    time.sleep(60)
os.replace = stall
from ptoc.cli import main
sys.exit(main(["fmt", sys.argv[1]]))
"""


def killed_while_writing(path: Path, signum: int) -> int:
    child = subprocess.Popen(
        [sys.executable, "-c", PAUSED_CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "paused\n"
    child.send_signal(signum)
    return child.wait(timeout=30)


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".ptoc-fmt"))


def test_sigkill_leaves_a_temporary_the_next_run_removes(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = write("k.py", MESSY)
    assert killed_while_writing(kernel, signal.SIGKILL) == -signal.SIGKILL
    (left,) = temporaries(tmp_path)
    assert left.startswith(".k.py.") and kernel.read_text() == MESSY

    # --check writes nothing, not even a deletion.
    assert main(["fmt", "--check", str(kernel)]) == 1
    assert temporaries(tmp_path) == [left]

    assert main(["fmt", str(kernel)]) == 0
    assert temporaries(tmp_path) == [] and kernel.read_text() == CLEAN
    capsys.readouterr()


def test_sigterm_removes_the_temporary_at_once(write: Write, tmp_path: Path) -> None:
    kernel = write("k.py", MESSY)
    assert killed_while_writing(kernel, signal.SIGTERM) == 128 + signal.SIGTERM
    assert temporaries(tmp_path) == [] and kernel.read_text() == MESSY


def test_a_running_writers_temporary_is_kept(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = write("k.py", MESSY)
    ours = write(f".other.py.{os.getpid()}.abc123.ptoc-fmt", "in progress")
    assert main(["fmt", str(kernel)]) == 0
    assert temporaries(tmp_path) == [ours.name]
    capsys.readouterr()
