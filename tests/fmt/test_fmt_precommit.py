"""The hooks of ``.pre-commit-hooks.yaml`` under the real ``pre-commit try-repo``.

``try-repo`` on a checkout only carries tracked files (``git add -u``), so the test snapshots
this working tree (tracked and untracked, minus ignored files) into a temporary repository and
tries that one. pre-commit pip-installs the snapshot into its own environment (about 10 s).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fmt_support import EXAMPLES, REPO

from ptoc.fmt import format_source
from ptoc.frontend import analyze_source
from ptoc.printer import print_program

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
GIT_IDENTITY = ("-c", "user.name=ptoc tests", "-c", "user.email=tests@ptoc.invalid")

CLEAN_KERNEL = (
    "import pypto.language as pl\n"
    "\n"
    "\n"
    "@pl.function\n"
    "def double(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
    "    b: pl.Tensor[[64, 64], pl.FP32] = pl.add(a, a)\n"
    "    return b\n"
)
TYPE_ERROR_KERNEL = CLEAN_KERNEL.replace("pl.add(a, a)", "pl.add(a, c)")
PLAIN_MESSY = "x = [1,2,\n  3]\n"


def test_the_hook_definitions() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [(h["id"], h["entry"], h["language"], h["types"]) for h in hooks] == [
        ("ptoc-fmt", "ptoc fmt --pypto-only", "python", ["python"]),
        ("ptoc-check", "ptoc check", "python", ["python"]),
    ]


def test_the_documented_config_names_the_hooks() -> None:
    docs = (REPO / "docs" / "formatting.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"```yaml\n(repos:.*?)```", docs, flags=re.S)
    (repo,) = yaml.safe_load(snippet)["repos"]
    assert set(repo) == {"repo", "rev", "hooks"}
    assert [h["id"] for h in repo["hooks"]] == ["ptoc-fmt", "ptoc-check"]


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", *GIT_IDENTITY, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return result.stdout


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed copy of this working tree (what try-repo would see after a commit)."""
    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs a git checkout of the repository and git")
    snapshot = tmp_path_factory.mktemp("hooks-repo")
    listing = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for relative in filter(None, listing.split("\0")):
        source = REPO / relative
        if source.is_file():  # tracked files deleted in the working tree are skipped
            target = snapshot / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git(snapshot, "init", "-q")
    git(snapshot, "add", "-A")
    git(snapshot, "commit", "-q", "-m", "snapshot")
    return snapshot


def badly_formatted_printed_ir() -> tuple[str, str]:
    """(messy text, formatted text) of the printed IR of an example program."""
    path = EXAMPLES / "simple_add.py"
    (program,) = analyze_source(path.read_text(encoding="utf-8"), str(path)).all_programs()
    printed = print_program(program)
    messy = printed.replace(", ", ",").replace(": pl.", ":pl.").replace("\n\n\n", "\n")
    assert format_source(messy, "printed_ir.py").text == printed
    return messy, printed


def try_hook(hooks_repo: Path, user_repo: Path, hook: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(hooks_repo), hook, "--all-files", "--color", "never"],
        cwd=user_repo,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pre_commit_hooks(hooks_repo: Path, tmp_path: Path) -> None:
    messy_ir, formatted_ir = badly_formatted_printed_ir()
    user = tmp_path / "user"
    user.mkdir()
    files = {
        "printed_ir.py": messy_ir,
        "kernels/clean_kernel.py": CLEAN_KERNEL,
        "kernels/type_error.py": TYPE_ERROR_KERNEL,
        "scripts/plain.py": PLAIN_MESSY,
    }
    for name, text in files.items():
        (user / name).parent.mkdir(parents=True, exist_ok=True)
        (user / name).write_text(text, encoding="utf-8")
    git(user, "init", "-q")
    git(user, "add", "-A")

    fmt = try_hook(hooks_repo, user, "ptoc-fmt")
    output = fmt.stdout + fmt.stderr
    assert fmt.returncode == 1, output
    assert "files were modified by this hook" in output
    assert "reformatted printed_ir.py" in output
    assert "1 file reformatted, 2 unchanged" in output
    assert (user / "printed_ir.py").read_text(encoding="utf-8") == formatted_ir
    for name in ("kernels/clean_kernel.py", "kernels/type_error.py", "scripts/plain.py"):
        assert (user / name).read_text(encoding="utf-8") == files[name], name

    git(user, "add", "-A")
    check = try_hook(hooks_repo, user, "ptoc-check")
    output = check.stdout + check.stderr
    assert check.returncode == 1, output
    (error,) = analyze_source(TYPE_ERROR_KERNEL, "kernels/type_error.py").diagnostics
    assert error.code == "E200"
    assert error.format() in output
    assert "kernels/type_error.py:6:49: error[E200]" in output
    assert "1 error, 0 warnings in 4 files" in output
