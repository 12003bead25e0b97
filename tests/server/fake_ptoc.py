"""A stand-in for ``ptoc`` in ptols/run tests (``PTOLS_PTOC``): prints what ``ptoc run --sim``
prints for a match or a mismatch, as the file named by ``$FAKE_PTOC_VERDICT`` says."""

from __future__ import annotations

import os
import sys
from pathlib import Path

verdict = Path(os.environ["FAKE_PTOC_VERDICT"]).read_text(encoding="utf-8").strip()
function = sys.argv[sys.argv.index("--function") + 1]
print(f"ptoc: building {function} with clang++-19 against pto-isa at /x ...", file=sys.stderr)
if "--edition" in sys.argv:
    print(f"ptoc: edition {sys.argv[sys.argv.index('--edition') + 1]} ...", file=sys.stderr)
print("a (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok")
if verdict == "mismatch":
    print(
        "out (FP32): max abs error 2.5, max rel error 1 (rtol 0.0001, atol 1e-05): "
        "MISMATCH in 7 of 4096, first at [0, 3]"
    )
    print(f"{function}: simulator and reference interpreter DISAGREE")
    sys.exit(1)
print("out (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok")
print(f"{function}: simulator and reference interpreter agree on 2 results")
