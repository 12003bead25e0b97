#!/usr/bin/env bash
# Regenerate the reference pages that come from the code (tests/docs fails when they are stale).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY=.venv/bin/python
[ -x "$PY" ] || PY=python3
"$PY" -m ptoc.docs_gen diagnostics -o docs/diagnostics.md
"$PY" -m ptoc.docs_gen operators -o docs/operators.md
echo "wrote docs/diagnostics.md and docs/operators.md"
