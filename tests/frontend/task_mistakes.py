"""Mistake sources of the task-graph rules (spec §7): one program, each mistake a different
orchestration body. Each gets exactly one diagnostic; tests/frontend/test_task_rules.py
asserts its code and range."""

from __future__ import annotations

HEAD = """import pypto.language as pl


@pl.program
class Tasks:
    @pl.function(type=pl.FunctionType.InCore)
    def gate(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        flags: pl.Out[pl.Tensor[[64, 64], pl.INT32]],
    ) -> pl.Tensor[[64, 64], pl.INT32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.INT32] = pl.cast(t, target_type=pl.INT32)
        r: pl.Tensor[[64, 64], pl.INT32] = pl.store(c, [0, 0], flags)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32] = pl.add(t, t)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        flags: pl.Out[pl.Tensor[[64, 64], pl.INT32]],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
"""
#: The first line of an orchestration body (HEAD's line count + 1).
BODY_LINE = HEAD.count("\n") + 1


def program(body: str) -> str:
    """HEAD with ``body`` (lines indented by 8) as main's body."""
    return HEAD + "".join(f"        {line}\n" for line in body.strip("\n").splitlines())


#: A clean body: a gate, a task waiting on it, a predicated SPMD task; every rule holds.
CLEAN = """
with pl.manual_scope():
    flags, ft = pl.submit(self.gate, x, flags)
    mid, t1 = pl.submit(self.scale, x, out, deps=[ft])
    out, t2 = pl.spmd_submit(
        self.scale, mid, out, core_num=4, deps=[t1, ft], predicate=(flags[0, 0] > 0)
    )
return out
"""

#: (code, body, (line in the body, column, end line, end column)): 1-based, in the body's text,
#: the end column just past the range.
MISTAKES: list[tuple[str, str, tuple[int, int, int, int]]] = [
    (
        "E220",
        "out, tid = pl.submit(scale, x, out)\nreturn out",
        (1, 22, 1, 27),
    ),
    (
        "E221",
        "out, extra, tid = pl.submit(self.scale, x, out)\nreturn out",
        (1, 1, 1, 16),
    ),
    (
        "E222",
        "out, tid = pl.submit(self.scale, x, out, deps=[x])\nreturn out",
        (1, 48, 1, 49),
    ),
    (
        "E223",
        "flags, ft = pl.submit(self.gate, x, flags)\n"
        "out, t = pl.submit(self.scale, x, out, deps=[ft], predicate=(flags[0, 0] + 1 > 0))\n"
        "return out",
        (2, 62, 2, 81),
    ),
    (
        "E224",
        "flags, ft = pl.submit(self.gate, x, flags)\n"
        "out, t = pl.submit(self.scale, x, out, predicate=(flags[0, 0] > 0))\n"
        "return out",
        (2, 51, 2, 66),
    ),
    (
        "E225",
        "out, tid = pl.spmd_submit(self.scale, x, out)\nreturn out",
        (1, 12, 1, 46),
    ),
    (
        "E226",
        "with pl.spmd(4, deps=[]):\n    out = self.scale(x, out)\nreturn out",
        (1, 17, 1, 24),
    ),
    (
        "E227",
        "out, tid = pl.submit(self.scale, x, out, core_num=4)\nreturn out",
        (1, 42, 1, 52),
    ),
    (
        "E228",
        "y = pl.no_dep(x)\nout = self.scale(y, out)\nreturn out",
        (1, 5, 1, 17),
    ),
]
