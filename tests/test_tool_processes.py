"""Every outside tool ptoc and ptols start (PTOAS, the C++ compiler, the simulated kernel,
``ptoc run``) runs without a shell, with a time limit, in a private temporary folder (mode
0700, also its TMPDIR) that is gone afterwards."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest


class Spy:
    """Stands for subprocess.run: records how each tool was started, and fails it."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, command: Any, **options: Any) -> subprocess.CompletedProcess[str]:
        cwd = Path(options["cwd"])
        self.calls.append(
            {
                "argv": isinstance(command, list) and all(isinstance(a, str) for a in command),
                "shell": options.get("shell", False),
                "timeout": options.get("timeout"),
                "cwd": cwd,
                "mode": cwd.stat().st_mode & 0o777,
                "tmpdir": Path((options.get("env") or {}).get("TMPDIR", "/nowhere")),
            }
        )
        return subprocess.CompletedProcess(command, 1, "", "error: refused by the spy\n")

    def check(self, limit: float) -> None:
        assert len(self.calls) == 1
        call = self.calls[0]
        assert call["argv"] and call["shell"] is False
        assert call["timeout"] == limit
        assert call["mode"] == 0o700
        assert call["tmpdir"] == call["cwd"]
        assert not call["cwd"].exists()  # removed afterwards


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    found = Spy()
    monkeypatch.setattr(subprocess, "run", found)
    return found


def test_ptoas_runs_in_a_private_folder(spy: Spy, tmp_path: Path):
    from ptoc.codegen.pto import ptoas

    result = ptoas.run_ptoas("module {}\n", tmp_path / "ptoas")
    assert not result.ok
    spy.check(ptoas.TIMEOUT_SECONDS)


def test_the_cpp_compiler_runs_in_a_private_folder(spy: Spy, tmp_path: Path):
    from ptoc.run import simulator
    from ptoc.run.toolchain import Compiler

    compiler = Compiler("g++", "gcc", 13, "g++ (GCC) 13.2.0")
    toolchain = simulator.Toolchain(compiler, tmp_path / "pto-isa", tmp_path / "cache")
    (tmp_path / "pto-isa" / "include").mkdir(parents=True)
    with pytest.raises(simulator.BuildFailed):
        simulator.build(toolchain, "int main() {}\n")
    spy.check(simulator.BUILD_TIMEOUT)
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700  # it holds what is run


def test_the_simulated_kernel_runs_in_the_private_folder_it_is_given(spy: Spy, tmp_path: Path):
    from ptoc.run import simulator
    from ptoc.scratch import private_folder

    with private_folder("ptoc-run-") as workdir:
        run = simulator.run(tmp_path / "exe", 0, [simulator.SimArgument(b"\0" * 4)], 0, workdir)
    assert run.returncode == 1
    spy.check(simulator.RUN_TIMEOUT)


def test_ptols_runs_ptoc_in_a_private_folder(spy: Spy):
    from ptols.features import run

    result = run.run_function("x = 1\n", "/home/user/k.py", "kernel")
    assert not result.ok
    spy.check(run.TIMEOUT)


def test_a_private_folder_is_private_and_removed():
    from ptoc.scratch import private_folder, tool_environment

    previous = os.umask(0)  # even with a permissive umask
    try:
        with private_folder("ptoc-test-") as folder:
            assert folder.stat().st_mode & 0o777 == 0o700
            assert tool_environment(folder, X="1")["TMPDIR"] == str(folder)
    finally:
        os.umask(previous)
    assert not folder.exists()


def test_the_compiler_probe_runs_in_a_private_folder(spy: Spy):
    from ptoc.run import toolchain

    assert toolchain.identify("clang++") is None  # the spy's answer names no compiler
    spy.check(toolchain.PROBE_TIMEOUT)


def test_the_ptoas_version_probe_runs_in_a_private_folder(spy: Spy, tmp_path: Path):
    from ptoc.codegen.pto import ptoas_known

    binary = tmp_path / "ptoas"
    binary.write_text("")
    assert ptoas_known.version(binary) is None  # the spy's answer names no version
    spy.check(ptoas_known.VERSION_TIMEOUT)
