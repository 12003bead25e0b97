"""The seeded edit storm of issue #33 at full length, with the server's memory over time.

    .venv/bin/python benchmarks/lsp_storm.py [--edits 6000] [--seed 33] [--edition auto] [--json]
    .venv/bin/python benchmarks/lsp_storm.py --edits 100000          # the soak

tests/server/storm.py does the work (the CI test runs it for seconds): 2026-03, upstream 2026-08
and generated JIT / task-graph / distributed programs, edits that break and repair them, every
request the server registers sent mid-edit, invariants after every edit. Reports every problem
(all must be empty), the RSS samples and the growth per 1,000 edits after the first 1,000 (issue
#33 asks for <= 100 KB). Not a test: run it on demand.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "server"))
from storm import Report, Storm  # noqa: E402


def growth_kb_per_1000(rss: list[tuple[int, float]], after: int = 1000) -> float:
    """Least-squares slope of RSS (KB) per 1,000 edits over the samples after ``after`` edits."""
    points = [(e, mb * 1024) for e, mb in rss if e >= after]
    if len(points) < 2:
        return float("nan")
    mean_e = sum(e for e, _ in points) / len(points)
    mean_r = sum(r for _, r in points) / len(points)
    spread = sum((e - mean_e) ** 2 for e, _ in points)
    slope = sum((e - mean_e) * (r - mean_r) for e, r in points) / spread
    return slope * 1000


def summary(report: Report, seconds: float) -> dict[str, Any]:
    rss = report.rss
    after = [mb for e, mb in rss if e >= 1000]
    return {
        "edits": report.edits,
        "requests": report.requests,
        "methods": len(report.methods),
        "seconds": round(seconds, 1),
        "problems": {k: v[:5] for k, v in report.problems().items()},
        "refused": dict(report.refused),
        "rss_first_mb": round(rss[0][1], 2) if rss else None,
        "rss_at_1000_mb": round(after[0], 2) if after else None,
        "rss_last_mb": round(rss[-1][1], 2) if rss else None,
        "growth_kb_per_1000_after_1000": round(growth_kb_per_1000(rss), 1),
        "rss_every_1000": [(e, round(mb, 2)) for e, mb in rss if e % 1000 < 100],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--edition", choices=["auto", "2026-03", "2026-08"], default="auto")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="take each RSS sample with the same program open and analysed (what is alive then "
        "does not depend on the program the storm pasted last)",
    )
    parser.add_argument("--every", type=int, default=100, help="edits between RSS samples")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ptols-storm-"))
    started = time.monotonic()
    storm = Storm(folder, args.seed, None if args.edition == "auto" else args.edition)
    reference = (ROOT / "examples" / "flash_attention.py").read_text() if args.reference else None
    report = storm.run(edits=args.edits, sample_every=args.every, reference=reference)
    found = summary(report, time.monotonic() - started)
    if args.json:
        print(json.dumps(found))
        return
    for key, value in found.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
