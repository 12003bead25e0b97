"""Start-up cost: each command imports only what it needs (not timed: which modules load).

Black, the language server's libraries and numpy each cost tens of milliseconds to import;
``ptoc check`` and ``ptoc compile`` must not load them, nor package metadata (only
``--version`` reads it)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
from cli_samples import EXAMPLES

NEVER_ON_CHECK = ("black", "lsprotocol", "pygls", "tree_sitter", "numpy", "importlib.metadata")
# The standard dataclasses (and the inspect module it loads) cost ~0.6 ms a class: ptoc's classes
# are ptoc.records classes. A well-formed kernel needs no "did you mean" (difflib), no tokenizer
# (seed `.yield` spellings, linecache).
NEVER_ON_CHECK += ("dataclasses", "inspect", "difflib", "tokenize", "linecache")

# What only `fmt`, `run` or `check --format json` use: a check of one file loads none of them
# (subprocess and tempfile come with `run`'s toolchain, shutil with argparse's help width,
# threading with subprocess; pathlib, which loads urllib and ipaddress, with `run` and PTOAS).
# Nor do the other commands' modules load: only the named command's parser is built.
NOT_ON_PLAIN_CHECK = ("json", "shutil", "subprocess", "tempfile", "ptoc.run.toolchain", "threading")
NOT_ON_PLAIN_CHECK += ("pathlib", "urllib", "ipaddress", "ptoc.fmt.command", "ptoc.run")
# The edition rewrite tables (W031) and pl.parse texts load only for the files that use them.
NOT_ON_PLAIN_CHECK += (
    "ptoc.frontend.upgrades",
    "ptoc.frontend.downgrades",
    "ptoc.frontend.embedded",
)
# The JIT machinery loads only for a file with @pl.jit kernels.
NOT_ON_PLAIN_CHECK += ("ptoc.frontend.jit", "ptoc.frontend.jit_calls", "ptoc.frontend.jit_shapes")

# Runs the command in-process, then prints the names of every loaded module (as a literal:
# the probe itself must load nothing the test looks for).
PROBE = """
import contextlib, io, sys
from ptoc.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(repr({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_modules(*args: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = ast.literal_eval(done.stdout)
    return report["code"], set(report["modules"])


def heavy(modules: set[str], names: tuple[str, ...] = NEVER_ON_CHECK) -> list[str]:
    return sorted(
        name for name in names if any(m == name or m.startswith(name + ".") for m in modules)
    )


def test_check_imports_neither_the_formatter_nor_the_server_libraries() -> None:
    code, modules = loaded_modules("check", str(EXAMPLES / "simple_add.py"))
    assert code == 0
    assert heavy(modules) == []
    # Nor a code generator (check runs the passes for E401/E402, no further), nor the
    # formatter behind `fmt`.
    unneeded = ("ptoc.codegen", "ptoc.fmt.formatter", "ptoc.fmt.config")
    assert sorted(m for m in modules if m.startswith(unneeded)) == []
    assert heavy(modules, NOT_ON_PLAIN_CHECK) == []


def test_check_as_json_loads_json() -> None:
    """The probe sees an import the command makes (so the test above can fail)."""
    code, modules = loaded_modules("check", "--format", "json", str(EXAMPLES / "simple_add.py"))
    assert code == 0
    assert heavy(modules, NOT_ON_PLAIN_CHECK) == ["json"]


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_compile_imports_no_formatter(target: str) -> None:
    code, modules = loaded_modules("compile", "--target", target, str(EXAMPLES / "simple_add.py"))
    assert code == 0
    assert heavy(modules) == []
    if target == "cce":  # (PTO MLIR checks for PTOAS, with pathlib, subprocess and tempfile)
        assert heavy(modules, NOT_ON_PLAIN_CHECK) == []
    assert f"ptoc.codegen.{target}" in modules  # the probe really compiled
