"""The release build: an sdist and a wheel PyPI would take, with complete metadata, the
generated docs, and nothing of the tests, benchmarks or the VS Code extension."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

from conftest import ROOT

import ptoc


def test_twine_accepts_sdist_and_wheel(sdist: Path, wheel: Path):
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_wheel_metadata_is_complete(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        metadata = Parser().parsestr(
            archive.read(f"ptoc-{ptoc.__version__}.dist-info/METADATA").decode()
        )
        names = archive.namelist()
    assert metadata["Name"] == "ptoc"
    assert metadata["Version"] == ptoc.__version__
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"
    classifiers = metadata.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Topic :: Software Development :: Compilers" in classifiers
    # No repository is published yet: no address that does not exist.
    assert metadata.get_all("Project-URL") is None and metadata["Home-page"] is None
    assert f"ptoc-{ptoc.__version__}.dist-info/licenses/LICENSE" in names
    entry_points = [n for n in names if n.endswith("entry_points.txt")]
    assert len(entry_points) == 1


def test_wheel_holds_the_two_packages_and_nothing_else(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
        names = archive.namelist()
    assert tops == {"ptoc", "ptols", f"ptoc-{ptoc.__version__}.dist-info"}
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".marshal"))]
    assert "ptoc/py.typed" in names and "ptols/py.typed" in names


def test_sdist_has_the_generated_docs_and_no_tests(sdist: Path):
    prefix = f"ptoc-{ptoc.__version__}/"
    with tarfile.open(sdist) as archive:
        members = {m.name.removeprefix(prefix): m for m in archive.getmembers()}
        for generated in ("docs/diagnostics.md", "docs/operators.md"):
            extracted = archive.extractfile(members[generated])
            assert extracted is not None
            assert extracted.read() == (ROOT / generated).read_bytes()
    tops = {name.split("/")[0] for name in members}
    assert {"compiler", "server", "docs", "LICENSE", "CHANGELOG.md", "pyproject.toml"} <= tops
    assert not tops & {"tests", "benchmarks", "vscode-extension", "scripts", ".ci"}


def test_extension_shares_the_package_version():
    manifest = json.loads((ROOT / "vscode-extension" / "package.json").read_text())
    assert manifest["version"] == ptoc.__version__
