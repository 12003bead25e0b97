"""Start-up cost: each command imports only what it needs (not timed: which modules load).

Black, the language server's libraries and numpy each cost tens of milliseconds to import;
``ptoc check`` and ``ptoc compile`` must not load them, nor package metadata (only
``--version`` reads it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_samples import EXAMPLES

NEVER_ON_CHECK = ("black", "lsprotocol", "pygls", "tree_sitter", "numpy", "importlib.metadata")

# Runs the command in-process, then prints the top-level names of every loaded module.
PROBE = """
import contextlib, io, json, sys
from ptoc.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_modules(*args: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    return report["code"], set(report["modules"])


def heavy(modules: set[str]) -> list[str]:
    return sorted(
        name
        for name in NEVER_ON_CHECK
        if any(m == name or m.startswith(name + ".") for m in modules)
    )


def test_check_imports_neither_the_formatter_nor_the_server_libraries() -> None:
    code, modules = loaded_modules("check", str(EXAMPLES / "simple_add.py"))
    assert code == 0
    assert heavy(modules) == []
    # Nor a code generator (check runs the passes for E401/E402, no further), nor the
    # formatter behind `fmt`.
    unneeded = ("ptoc.codegen", "ptoc.fmt.formatter", "ptoc.fmt.config")
    assert sorted(m for m in modules if m.startswith(unneeded)) == []


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_compile_imports_no_formatter(target: str) -> None:
    code, modules = loaded_modules("compile", "--target", target, str(EXAMPLES / "simple_add.py"))
    assert code == 0
    assert heavy(modules) == []
    assert f"ptoc.codegen.{target}" in modules  # the probe really compiled
