"""Programs in today's language (2026-08) for the storm and the hostile-input suite (issue #33):
``@pl.jit`` kernels called with odd torch constructors, huge JIT signatures, task graphs,
distributed programs and deep ``pl.at`` nesting, generated from a seed; the upstream examples
read in place (../shared/pypto-2026-08/examples, never copied); and the project's 2026-03
examples."""

from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "pypto-2026-08" / "examples"
HEAD = "import pypto.language as pl\nimport torch\nfrom pypto.runtime import RunConfig\n\n"
OPS = ("add", "mul", "sub", "maximum", "minimum")
SIZES = (16, 32, 64, 128)


def upstream_examples() -> list[str]:
    """The upstream example files, read in place (none when they are not beside the repo)."""
    if not UPSTREAM.is_dir():
        return []
    return [
        path.read_text(encoding="utf-8")
        for path in sorted(UPSTREAM.rglob("*.py"))
        if path.name != "__init__.py"
    ]


def classic_examples() -> list[str]:
    """The project's own 2026-03 examples."""
    return [path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples").glob("*.py"))]


def torch_value(rng: random.Random, rows: int, cols: int, name: str) -> str:
    """A torch constructor call as people write them, the odd spellings included."""
    dtype = rng.choice(["torch.float32", "torch.float16", "torch.bfloat16", "torch.int32"])
    forms = [
        f"torch.zeros(({rows}, {cols}), dtype={dtype})",
        f"torch.zeros({rows}, {cols}, dtype={dtype})",
        f"torch.randn(*[{rows}, {cols}], dtype={dtype})",
        f"torch.full(size=({rows}, {cols}), fill_value=2.0, dtype={dtype})",
        f"torch.ones(size=[{rows}, {cols}]).to({dtype})",
        f"torch.arange({rows * cols}).reshape({rows}, {cols}).to(dtype={dtype})",
        f"torch.empty_like(torch.zeros({rows}, {cols}))",
        f"torch.tensor([[1.0] * {cols}] * {rows}, dtype={dtype})",
        f"torch.randn({rows}, {cols}, device='cpu', requires_grad=False).contiguous()",
        f"torch.zeros(torch.Size([{rows}, {cols}]), dtype={dtype})",
        f"torch.rand(({rows},) + ({cols},))",
        f"{name}_base.clone()",
    ]
    return rng.choice(forms)


def jit_kernel(rng: random.Random, name: str, depth: int = 1) -> tuple[str, int, int]:
    """A ``@pl.jit`` kernel (text, rows, cols) whose body sits ``depth`` ``pl.at`` deep."""
    rows, cols = rng.choice(SIZES), rng.choice(SIZES)
    lines = [
        "@pl.jit",
        f"def {name}(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):",
    ]
    indent = "    "
    for level in range(depth):
        hint = f', name_hint="s{level}"' if rng.random() < 0.5 else ""
        where = "HOST" if rng.random() < 0.1 else "CORE_GROUP"
        lines.append(f"{indent}with pl.at(level=pl.Level.{where}{hint}):")
        indent += "    "
    op = rng.choice(OPS)
    if rng.random() < 0.5:
        lines += [
            f"{indent}tile_a = pl.load(a, [0, 0], [{rows}, {cols}])",
            f"{indent}tile_b = pl.load(b, [0, 0], [{rows}, {cols}])",
            f"{indent}pl.store(pl.{op}(tile_a, tile_b), [0, 0], c)",
        ]
    else:
        lines += [
            f"{indent}for i in pl.range({rng.randint(1, 4)}):",
            f"{indent}    t = pl.load(a, [0, 0], [{rows}, {cols}])",
            f"{indent}    pl.store(pl.{op}(t, t), [0, 0], c)",
        ]
    lines.append("    return c")
    return "\n".join(lines) + "\n", rows, cols


def call_site(rng: random.Random, name: str, rows: int, cols: int) -> str:
    values = [f"    {arg} = {torch_value(rng, rows, cols, arg)}" for arg in ("a", "b", "c")]
    base = [f"    {arg}_base = torch.zeros({rows}, {cols})" for arg in ("a", "b", "c")]
    config = rng.choice(["", ", config=cfg", ", config=RunConfig(platform='a2a3sim')"])
    return "\n".join([*base, *values, f"    {name}(a, b, c{config})"]) + "\n"


def jit_program(rng: random.Random, kernels: int = 3, depth: int = 1) -> str:
    parts, calls = [HEAD], []
    for index in range(kernels):
        name = f"kernel_{index}"
        text, rows, cols = jit_kernel(rng, name, depth)
        parts.append("\n" + text + "\n")
        calls.append(call_site(rng, name, rows, cols))
    return "".join(parts) + '\nif __name__ == "__main__":\n    cfg = RunConfig()\n' + "".join(calls)


def huge_signature(count: int) -> str:
    """One ``@pl.jit`` kernel with ``count`` tensor parameters, and its call."""
    names = [f"p{i}" for i in range(count)]
    params = ",\n    ".join(f"{n}: pl.Tensor" for n in names)
    body = (
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = pl.load(p0, [0, 0], [16, 16])\n"
        "        pl.store(t, [0, 0], out)\n"
        "    return out\n"
    )
    values = "".join(f"    {n} = torch.zeros(16, 16)\n" for n in names)
    call = ", ".join(names)
    return (
        HEAD
        + f"@pl.jit\ndef wide(\n    {params},\n    out: pl.Out[pl.Tensor],\n):\n{body}\n\n"
        + f'if __name__ == "__main__":\n{values}    out = torch.zeros(16, 16)\n'
        + f"    wide({call}, out)\n"
    )


def task_graph(rng: random.Random, stages: int = 4) -> str:
    lines = [
        "@pl.jit",
        "def graph(x: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):",
    ]
    for stage in range(stages):
        deps = f", deps=[t{stage - 1}]" if stage and rng.random() < 0.6 else ""
        lines.append(
            f'    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage{stage}"{deps}) '
            f"as t{stage}:"
        )
        source, target = ("x", "scratch") if stage % 2 == 0 else ("scratch", "out")
        lines.append(f"        {target}[:] = pl.{rng.choice(OPS)}({source}, {source})")
    lines.append("    return scratch, out")
    call = (
        '\nif __name__ == "__main__":\n    x = torch.randn(128, 128)\n'
        "    s, o = torch.zeros_like(x), torch.zeros_like(x)\n    graph(x, s, o)\n"
    )
    return HEAD + "\n".join(lines) + "\n" + call


def distributed(rng: random.Random) -> str:
    rows, cols = rng.choice(SIZES[:2]), rng.choice(SIZES[:2])
    return (
        HEAD
        + "import pypto.language.distributed as pld\n\n"
        + f"ROWS = {rows}\nCOLS = {cols}\n\n\n"
        + "@pl.jit.incore\n"
        "def scale(x: pl.Tensor[[ROWS, COLS], pl.FP32], "
        "y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], rank: pl.Scalar[pl.INT32]):\n"
        "    tile = pl.load(x, [0, 0], [ROWS, COLS])\n"
        "    factor = pl.cast(rank, target_type=pl.FP32)\n"
        "    y = pl.store(pl.mul(tile, factor), [0, 0], y)\n"
        "    return y\n\n\n"
        "@pl.jit\n"
        "def device(x: pl.Tensor[[ROWS, COLS], pl.FP32], "
        "y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], rank: pl.Scalar[pl.INT32]):\n"
        "    y = scale(x, y, rank)\n"
        "    return y\n\n\n"
        "@pl.jit.host\n"
        "def host(x: pl.Tensor[[ROWS, COLS], pl.FP32], "
        "y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):\n"
        "    for r in pl.range(pld.world_size()):\n"
        "        y = device(x, y, r)\n"
        "    return y\n"
    )


def deep_at(depth: int) -> str:
    """One kernel whose body sits ``depth`` ``pl.at`` regions deep."""
    text, _, _ = jit_kernel(random.Random(depth), "deep", depth)
    return HEAD + text


SUBMIT_KERNELS = """import pypto.language as pl


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
        u: pl.Tile[[64, 64], pl.FP32] = pl.{op}(t, t)
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


def submit_lines(rng: random.Random, tasks: int) -> list[str]:
    """A manual scope of ``tasks`` ``pl.submit``s (spec §7): a gate, a chain whose deps are
    earlier TaskIds, ``None`` and TaskId arrays, predicated SPMD launches, a ``task_dummy``
    join and fire-and-forget calls, each line indented for main's body."""
    lines = [
        "with pl.manual_scope():",
        "    flags, t0 = pl.submit(self.gate, x, flags)",
        f"    tids = pl.array.create({max(2, tasks // 4)}, pl.TASK_ID)",
    ]
    for task in range(1, tasks):
        earlier = [f"t{i}" for i in rng.sample(range(task), min(task, rng.randint(1, 3)))]
        roll = rng.random()
        if roll < 0.15:
            earlier.append(rng.choice(["None", "tids"]))
        deps = ", ".join(earlier)
        if roll < 0.3:
            lines.append(
                f"    out, t{task} = pl.spmd_submit(self.scale, x, out, "
                f"core_num={rng.choice([2, 4, 8])}, deps=[{deps}, t0], "
                "predicate=(flags[0, 0] > 0))"
            )
        elif roll < 0.4:
            lines.append(f"    t{task} = pl.system.task_dummy(deps=[{deps}])")
        else:
            lines.append(f"    out, t{task} = pl.submit(self.scale, x, out, deps=[{deps}])")
        if rng.random() < 0.2:
            lines.append(f"    tids[{task % max(2, tasks // 4)}] = t{task}")
        if rng.random() < 0.1:
            lines.append("    self.scale(pl.no_dep(x), out)")
    return [*lines, "return out"]


def submit_graph(rng: random.Random, tasks: int = 6) -> str:
    """A program whose orchestration is a task graph of ``tasks`` submits."""
    body = submit_lines(rng, tasks)
    return SUBMIT_KERNELS.replace("{op}", rng.choice(OPS)) + "".join(
        f"        {line}\n" for line in body
    )


def window_ring(rng: random.Random, ranks: int) -> str:
    """A ``pld`` ring over window buffers (spec §12) on ``ranks`` devices, the per-rank
    orchestrator dispatched with ``device=r``, its DistributedConfig naming every device."""
    size = rng.choice(SIZES)
    devices = ", ".join(str(d) for d in range(ranks))
    return (
        "import pypto.language as pl\nimport pypto.language.distributed as pld\nimport torch\n"
        "from pypto.ir.distributed_compiled_program import DistributedConfig\n"
        "from pypto.runtime import RunConfig\n\n"
        f'SIZE = {size}\nNR = pl.dynamic("NR")\n\n\n'
        "@pl.jit.incore\n"
        "def step(\n"
        "    x: pl.Tensor[[1, SIZE], pl.FP32],\n"
        "    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],\n"
        "    src: pld.DistributedTensor[[1, SIZE], pl.FP32],\n"
        "    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],\n"
        "):\n"
        "    ctx = pld.get_comm_ctx(src)\n"
        "    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)\n"
        "    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)\n"
        "    pld.tensor.put(dst, peer=peer, src=src, atomic=pld.AtomicType.None_)\n"
        "    y = pl.store(pl.load(dst, [0, 0], [1, SIZE]), [0, 0], y)\n"
        "    return y\n\n\n"
        "@pl.jit\n"
        "def per_rank(\n"
        "    x: pl.Tensor[[1, SIZE], pl.FP32],\n"
        "    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],\n"
        "    src: pld.DistributedTensor[[1, SIZE], pl.FP32],\n"
        "    dst: pld.DistributedTensor[[1, SIZE], pl.FP32],\n"
        "):\n"
        "    return step(x, y, src, dst)\n\n\n"
        "@pl.jit.host\n"
        "def ring(\n"
        "    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],\n"
        "    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],\n"
        "):\n"
        "    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)\n"
        "    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)\n"
        "    for r in pl.range(pld.world_size()):\n"
        "        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)\n"
        "        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)\n"
        "        per_rank(x[r], y[r], src, dst, device=r)\n\n\n"
        'if __name__ == "__main__":\n'
        f"    devices = [{devices}]\n"
        "    x = torch.randn((len(devices), 1, SIZE), dtype=torch.float32)\n"
        "    y = torch.zeros((len(devices), 1, SIZE), dtype=torch.float32)\n"
        "    config = RunConfig(distributed_config=DistributedConfig(device_ids=devices))\n"
        "    ring.compile(x, y, config=config)\n"
    )


def strings_at(rng: random.Random, depth: int) -> str:
    """A kernel ``depth`` ``pl.at`` deep whose name hints are odd strings (escapes, Unicode,
    an f-string, a triple-quoted one)."""
    hints = ['"s\\"q"', "'é\\u00e9'", 'f"s{0}"', '"""tri"""', "r'\\d'", '"😀"', "'a' 'b'"]
    lines = ["@pl.jit", "def hinted(a: pl.Tensor, c: pl.Out[pl.Tensor]):"]
    indent = "    "
    for _ in range(depth):
        lines.append(
            f"{indent}with pl.at(level=pl.Level.CORE_GROUP, name_hint={rng.choice(hints)}):"
        )
        indent += "    "
    lines += [f"{indent}t = pl.load(a, [0, 0], [16, 16])", f"{indent}pl.store(t, [0, 0], c)"]
    return HEAD + "\n".join(lines) + "\n    return c\n"


def generated(rng: random.Random) -> str:
    """One of today's programs, chosen by ``rng``."""
    roll = rng.random()
    if roll < 0.3:
        return jit_program(rng, rng.randint(1, 4), rng.choice([1, 1, 2, 3]))
    if roll < 0.42:
        return task_graph(rng, rng.randint(2, 6))
    if roll < 0.54:
        return submit_graph(rng, rng.randint(3, 12))
    if roll < 0.62:
        return distributed(rng)
    if roll < 0.7:
        return window_ring(rng, rng.randint(2, 16))
    if roll < 0.8:
        return deep_at(rng.randint(4, 14))
    if roll < 0.88:
        return strings_at(rng, rng.randint(1, 5))
    return huge_signature(rng.choice([20, 60, 200]))
