"""The release build, made once per session: the sdist and the wheel from `python -m build`,
and the wheel installed into a fresh venv (its dependencies from the package index)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The bare-bytes LSP client of the server tests drives the installed ptols too.
sys.path.insert(0, str(ROOT / "tests" / "server"))


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="session")
def wheel(dist: Path) -> Path:
    [found] = dist.glob("*.whl")
    return found


@pytest.fixture(scope="session")
def sdist(dist: Path) -> Path:
    [found] = dist.glob("*.tar.gz")
    return found


@pytest.fixture(scope="session")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no access to this checkout or the test venv) with the wheel installed:
    its bin directory."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env, with_pip=True)
    pip = [str(env / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", str(wheel)], check=True, capture_output=True)
    return env / "bin"
