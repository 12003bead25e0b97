"""ptoc's predicted cycles against pto-isa's cost-model build (issue #30). Not a test.

    .venv/bin/python benchmarks/costmodel_compare.py [--limit N] [--jobs J] [NAME...]

For each InCore kernel of the execution suite (the examples and the matrix), builds the C++
``ptoc compile --target cce`` prints with pto-isa's ``-D__COSTMODEL`` (a patched copy of its
headers made by ``../shared/vendor/pto-isa-costmodel/prepare.py``; see the vendor README's last
section), runs it, reads its total cycles and AIV0 / AIC pipe busy cycles, and prints them
beside ptoc's prediction (``ptoc.timeline``) with the ratio. Kernels the cost model cannot
build (instructions it lacks) are counted, not compared. Builds are cached by source.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from execution import matrix  # noqa: E402

from ptoc import driver  # noqa: E402
from ptoc.cli import analyze  # noqa: E402
from ptoc.ir.function import FunctionType  # noqa: E402
from ptoc.ir.types import ScalarType, TensorType  # noqa: E402
from ptoc.run.execute import cce_kernel  # noqa: E402
from ptoc.run.harness import KERNEL_NAME, kernel_entry  # noqa: E402
from ptoc.run.toolchain import find_compiler, find_pto_isa  # noqa: E402
from ptoc.timeline.schedule import Timeline, predict  # noqa: E402
from ptoc.timeline.tables import CostTables  # noqa: E402

VENDOR = ROOT.parent / "shared" / "vendor"
CACHE = ROOT / ".cache" / "ptoc-costmodel"
FLAGS = ["-D__COSTMODEL", "-D__NPU_ARCH__=2201", "-DPTO_COMM_NOT_SUPPORTED", "-std=c++20"]
FLAGS += ["-include", "stdint.h", "-include", "stddef.h", "-w"]


def kernels() -> list[tuple[str, str, str]]:
    """(name, source, function) of every InCore kernel the execution suite runs."""
    found = [(c.name, c.source, c.function) for c in matrix.all_cases()]
    for path in sorted((ROOT / "examples").rglob("*.py")):
        source = path.read_text("utf-8")
        for program in analyze(source, str(path)).all_programs():
            for fn in program.functions:
                if fn.func_type is not FunctionType.Orchestration:
                    found.append((f"{path.name}::{fn.name}", source, fn.name))
    return found


#: What the harness passes for every scalar parameter (loop bounds and offsets: a small value);
#: ptoc's prediction is given the same values.
SCALAR_ARGUMENT = 4


def harness(text: str, function: object) -> str:
    """The kernel and a main that launches it once under the cost model."""
    slots: list[str] = []
    for param in function.params:  # type: ignore[attr-defined]
        if isinstance(param.type, TensorType):
            slots.append("reinterpret_cast<int64_t>(new uint8_t[1 << 22]())")
        elif isinstance(param.type, ScalarType):
            slots.append(str(SCALAR_ARGUMENT))
    args = ", ".join(slots) or "0"
    return (
        "#include <pto/pto-inst.hpp>\n#include <pto/costmodel/perf_sim/launch.hpp>\n"
        f"using namespace pto;\n{text}\nint main(int argc, char** argv) {{\n"
        f"    static int64_t args[] = {{{args}}};\n"
        "    pto::perf_sim::GetConfig().output_dir = argv[1];\n"
        f"    LAUNCH_KERNEL({kernel_entry(text)}, , (1, nullptr, nullptr), args);\n"
        "    return 0;\n}\n"
    )


def measure(include: Path, source: str) -> dict[str, int] | None:
    """Total and per-pipe busy cycles of the cost-model run (None: it does not build)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:20]
    folder = CACHE / key
    result = folder / "result.csv"
    if not result.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tu.cpp").write_text(source, encoding="utf-8")
        compiler = find_compiler().command
        include_args = ["-I", str(include / "pto/costmodel/stubs"), "-I", str(include)]
        build = subprocess.run(
            [compiler, *FLAGS, *include_args, "tu.cpp", "-o", "tu"],
            cwd=folder,
            capture_output=True,
        )
        if build.returncode != 0:
            result.write_text("nobuild\n")
            return None
        subprocess.run(["./tu", "out"], cwd=folder, capture_output=True, timeout=120)
        summary = next((folder / "out").glob("*_pipeline_summary.csv"), None)
        result.write_text(summary.read_text() if summary else "nobuild\n")
    return read_summary(result.read_text())


def read_summary(text: str) -> dict[str, int] | None:
    """Total cycles and each pipe's busy cycles: the AIC row and the AIV0 row (AIV1 repeats
    AIV0; see the vendor README)."""
    if text.startswith("nobuild"):
        return None
    rows = [r for r in csv.DictReader(text.splitlines()) if r["unit"] in ("AIC", "AIV0")]
    out: dict[str, int] = {"total": max(int(r["total_cycles"]) for r in rows)}
    for row in rows:
        for name, value in row.items():
            if name.endswith("_cycles") and not name.startswith(("total", "active", "busy")):
                out[name] = out.get(name, 0) + int(value)
    return out


#: The cost model's pipe columns (AIC and AIV0 summed) by ptoc's pipe names.
PIPE_COLUMNS = {
    "MTE2": ("mte2_aic_cycles", "mte2_aiv_cycles"),
    "MTE1": ("mte1_cycles",),
    "M": ("cube_cycles",),
    "FIX": ("fixp_cycles",),
    "V": ("vec_cycles",),
    "MTE3": ("mte3_cycles",),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    prepared = subprocess.run(
        [
            sys.executable,
            str(VENDOR / "pto-isa-costmodel" / "prepare.py"),
            "--out",
            os.path.join(tempfile.gettempdir(), "ptoc-pto-isa-costmodel"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    include = Path(prepared.stdout.strip().splitlines()[-1])
    tables = CostTables.load(find_pto_isa(None))
    chosen = [k for k in kernels() if not args.names or k[0] in args.names]
    chosen = chosen[: args.limit] if args.limit else chosen
    work: list[tuple[str, str, Timeline]] = []
    for name, source, function in chosen:
        (program,) = analyze(source, name).all_programs()
        text, _ = cce_kernel(program, function)
        lowered = driver.run_pipeline(driver.narrow(program, function), "default").program
        fn = lowered.function(function)
        if text is None or fn is None or not KERNEL_NAME.search(text):
            continue  # no kernel: a function of scalars only
        scalars = {p.name: SCALAR_ARGUMENT for p in fn.params if isinstance(p.type, ScalarType)}
        work.append((name, harness(text, fn), predict(fn, tables, scalars)))
    with ThreadPoolExecutor(args.jobs) as pool:
        measured = list(pool.map(lambda w: measure(include, w[1]), work))
    report([(name, timeline) for name, _, timeline in work], measured)
    return 0


def report(work: list[tuple[str, Timeline]], measured: list[dict[str, int] | None]) -> None:
    """A line per kernel (totals and their ratio), then the totals' and the pipes' errors."""
    errors: list[float] = []
    pipe_errors: list[float] = []
    for (name, timeline), real in zip(work, measured, strict=True):
        if real is None:
            print(f"{name:50} no cost-model build")
            continue
        if not real["total"]:
            print(f"{name:50} no pipe work (scalars only)")
            continue
        ratio = timeline.total / real["total"]
        errors.append(abs(ratio - 1))
        busy = {pipe.name: cycles for pipe, cycles in timeline.busy().items()}
        for pipe, columns in PIPE_COLUMNS.items():
            cycles = sum(real.get(c, 0) for c in columns)
            if cycles:
                pipe_errors.append(abs(busy.get(pipe, 0) / cycles - 1))
        print(f"{name:50} model {real['total']:7} ptoc {timeline.total:7} ratio {ratio:5.2f}")
    if errors:
        print(
            f"{len(errors)} compared, {len(work) - len(errors)} without a build or pipe work: "
            f"total cycles: median |error| {statistics.median(errors):.1%}, max "
            f"{max(errors):.1%}, {sum(e <= 0.25 for e in errors)} within ±25 %; busy cycles of "
            f"{len(pipe_errors)} pipes: median |error| {statistics.median(pipe_errors):.1%}, "
            f"{sum(e <= 0.25 for e in pipe_errors)} within ±25 %"
        )


if __name__ == "__main__":
    sys.exit(main())
