"""InsertSync on deeply nested control flow: linear in loop depth, and loop summaries (which
make it so) never change the sync it places."""

from __future__ import annotations

import random

import passes_ir as P

from ptoc.frontend import analyze_source
from ptoc.ir import Function
from ptoc.passes import PassContext, run_pipeline
from ptoc.passes.insert_sync import plan_sync

BEFORE_SYNC = ["ConvertToSSA", "FlattenCalls", "Verifier", "InitMemRef", "MemoryReuse"]
TILE = "pl.Tile[[32, 64], pl.FP32]"
HEADER = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[32, 64], pl.FP32],
        h: pl.Tensor[[32, 32], pl.FP16],
        o: pl.Tensor[[32, 32], pl.FP32],
        out: pl.Tensor[[32, 64], pl.FP32],
        n: pl.Scalar[pl.INT64],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
"""


def before_sync(body: list[str]) -> Function:
    text = HEADER + "".join(f"        {line}\n" for line in [*body, "return out"])
    analysis = analyze_source(text, "kernel.py")
    assert not analysis.has_errors, [d.format() for d in analysis.diagnostics]
    result = run_pipeline(analysis.all_programs()[0], BEFORE_SYNC)
    assert result.diagnostics == []
    return result.program.functions[0]


def nested(depth: int) -> list[str]:
    """Load, add and store inside ``depth`` nested loops."""
    body = [f"{'    ' * k}for i{k} in pl.range(2):" for k in range(depth)]
    indent = "    " * depth
    return [
        *body,
        f"{indent}tx: {TILE} = pl.load(a, [0, 0], [32, 64])",
        f"{indent}tz: {TILE} = pl.add(tx, tx)",
        f"{indent}r: pl.Tensor[[32, 64], pl.FP32] = pl.store(tz, [0, 0], [32, 64], out)",
    ]


def visits(depth: int) -> int:
    return plan_sync(before_sync(nested(depth)), PassContext())[1]


def test_statements_walked_grow_linearly_with_loop_depth() -> None:
    # Each extra level costs the same; re-solving inner loops per outer pass doubled it.
    assert visits(8) - visits(4) == visits(12) - visits(8) == visits(16) - visits(12)


def statements_but_loops(depth: int) -> list[str]:
    fn, _ = plan_sync(before_sync(nested(depth)), PassContext())
    lines = [line.strip() for line in P.lines(fn)]
    return [line for line in lines if not line.startswith("for ")]


def test_64_nested_loops_get_the_same_sync_as_one() -> None:
    deep = statements_but_loops(64)
    assert deep == statements_but_loops(1)
    assert [line.split("(")[0] for line in deep if "sync" in line] == ["sync_src", "sync_dst"] * 4


MATMUL = [
    "{m} = pl.load(h, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)",
    "{l} = pl.move({m}, target_memory=pl.MemorySpace.Left)",
    "{r} = pl.move({m}, target_memory=pl.MemorySpace.Right)",
    "{p} = pl.matmul({l}, {r})",
    "{s} = pl.l0c_store({p}, [0, 0], [32, 32], o)",
]


class RandomKernel:
    """Random nests of for (plain and carrying a tile), if (with and without a yielded tile)
    and while loops around loads, vector ops, stores and a matmul chain."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.count = 0
        self.lines: list[str] = []

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, indent: str, *lines: str) -> None:
        self.lines.extend(indent + line for line in lines)

    def block(self, indent: str, scope: list[str], depth: int, size: int) -> list[str]:
        scope, inner, pick = list(scope), indent + "    ", self.rng.choice
        for _ in range(size):
            kinds = ["load", "op", "store", "matmul"] + ["for", "if", "while"] * (depth > 0)
            kind = pick(kinds) if scope else "load"
            if kind in ("load", "op"):
                call = (
                    "pl.load(a, [0, 0], [32, 64])"
                    if kind == "load"
                    else f"pl.{pick(['add', 'mul'])}({pick(scope)}, {pick(scope)})"
                )
                scope.append(self.name("t"))
                self.emit(indent, f"{scope[-1]}: {TILE} = {call}")
            elif kind == "store":
                stored = pick(scope)
                self.emit(indent, f"{self.name('r')} = pl.store({stored}, [0, 0], [32, 64], out)")
            elif kind == "matmul":
                names = {key: self.name(key) for key in "mlrps"}
                self.emit(indent, *(line.format(**names) for line in MATMUL))
            elif kind == "for":
                i, acc = self.name("i"), self.name("acc")
                first = pick(scope)
                self.emit(indent, f"for {i}, ({acc},) in pl.range(2, init_values=({first},)):")
                body = self.block(inner, [*scope, acc], depth - 1, 2)
                scope.append(self.name("t"))
                self.emit(inner, f"{scope[-1]} = pl.yield_({pick(body)})")
            elif kind == "if":
                picked = self.name("t")
                self.emit(indent, f"if n > {self.rng.randint(0, 3)}:")
                then = self.block(inner, scope, depth - 1, 2)
                self.emit(inner, f"{picked}: {TILE} = pl.yield_({pick(then)})")
                self.emit(indent, "else:")
                other = self.block(inner, scope, depth - 1, 2)
                self.emit(inner, f"{picked}: {TILE} = pl.yield_({pick(other)})")
                scope.append(picked)
            else:
                c, start = self.name("c"), self.name("k")
                self.emit(
                    indent,
                    f"{start}: pl.Scalar[pl.INT64] = 0",
                    f"for ({c},) in pl.while_(init_values=({start},)):",
                )
                self.emit(inner, f"pl.cond({c} < n)")
                self.block(inner, scope, depth - 1, 2)
                self.emit(inner, f"{self.name('c')} = pl.yield_({c} + 1)")
        return scope


def test_loop_summaries_change_nothing() -> None:
    walked = {True: 0, False: 0}
    for seed in range(16):
        kernel = RandomKernel(seed)
        kernel.block("", [], depth=4, size=5)
        fn = before_sync(kernel.lines)
        results = {}
        for remember in (True, False):
            results[remember], visits = plan_sync(fn, PassContext(), remember=remember)
            walked[remember] += visits
        assert P.lines(results[True]) == P.lines(results[False]), seed
    # Some loops were entered again in an equivalent state and replayed.
    assert walked[True] < walked[False]
