#!/usr/bin/env bash
# The one command that installs everything from the repository's own files and runs every test.
# Needs only python3 (3.11+), and node/npm once vscode-extension/ exists; downloads come from
# PyPI and npm only. Set PYTHON to choose the interpreter that creates .venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi

echo "==> installing ptoc and ptols with the test extras"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

if ! command -v nvim >/dev/null 2>&1; then
  # tests/editors drives a real Neovim; install it from the distribution when we can.
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing neovim (apt)"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null 2>&1 || echo "    (neovim could not be installed; its test will be skipped)"
  fi
fi

if ! dpkg -s libllvm19 libz3-4 >/dev/null 2>&1; then
  # tests/ptoas runs PTOAS v0.27 (../shared/vendor/ptoas/ptoas), which links LLVM 19 and Z3;
  # v0.57 (../shared/vendor/ptoas-v0.57/ptoas, the default) is static apart from libstdc++.
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing PTOAS's runtime libraries (apt: libllvm19 libz3-4)"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libllvm19 libz3-4 >/dev/null 2>&1 || echo "    (libllvm19 / libz3-4 could not be installed; PTOAS tests need them)"
  fi
fi
if [ -z "${CXX:-}" ] && ! command -v clang++-19 >/dev/null 2>&1; then
  # tests/execution builds generated kernels against pto-isa's CPU simulator (clang 17+).
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing clang-19 (apt)"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19 >/dev/null 2>&1 || echo "    (clang-19 could not be installed; the execution tests will be skipped, or fail under CI=true)"
  fi
fi
if [ -z "${PTO_ISA_ROOT:-}" ] && [ -d ../shared/vendor/pto-isa ]; then
  # The pto-isa checkout the execution tests build against (see ../shared/vendor/README.md).
  PTO_ISA_ROOT="$(cd ../shared/vendor/pto-isa && pwd)"
  export PTO_ISA_ROOT
fi

if [ -d vscode-extension ]; then
  echo "==> installing the VS Code extension's packages"
  (cd vscode-extension && npm ci --no-audit --no-fund)
fi

echo "==> pytest"
.venv/bin/python -m pytest -q --ignore=tests/release

# The release build (about 30 s): sdist and wheel from `python -m build`, `twine check`, then the
# wheel installed into a fresh venv runs `ptoc check` and an LSP session (not this checkout).
echo "==> release build (tests/release)"
.venv/bin/python -m pytest -q tests/release

echo "==> ruff"
.venv/bin/ruff check compiler server tests benchmarks
.venv/bin/ruff format --check compiler server tests benchmarks

echo "==> mypy"
.venv/bin/mypy

if [ -d vscode-extension ]; then
  echo "==> npm test (vscode-extension: typecheck, lint, unit tests)"
  (cd vscode-extension && npm test)
  echo "==> npm run package (vscode-extension: builds ptoc.vsix)"
  (cd vscode-extension && npm run package)
  if [ "${CI:-}" = "true" ]; then
    # The extension in a real VS Code: installs chromium (apt), Node 24 and code-server (npm,
    # about 600 MB and 80 s, cached in vscode-extension/.e2e-cache), then about 2.5 minutes.
    echo "==> npm run test:e2e (vscode-extension in code-server, driven by Playwright)"
    (cd vscode-extension && npm run test:e2e)
  fi
fi

echo "==> all tests passed"
