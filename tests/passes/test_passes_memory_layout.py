"""InitMemRef (buffers, spaces, sizes, ids) and AllocateMemoryAddr (addresses, capacity)."""

from __future__ import annotations

import passes_ir as P

from ptoc.diagnostics import Severity
from ptoc.ir import (
    Call,
    ForStmt,
    Function,
    IterArg,
    MemorySpace,
    MemRef,
    Span,
    TileType,
    Var,
    YieldStmt,
)
from ptoc.passes import DEFAULT_TARGET, PipelineResult, Target, run_pipeline

DEFAULT_PIPELINE = [
    "ConvertToSSA",
    "FlattenCalls",
    "Verifier",
    "InitMemRef",
    "MemoryReuse",
    "InsertSync",
    "AllocateMemoryAddr",
]


def run(fn: Function, passes: list[str], target: Target | None = None) -> PipelineResult:
    return run_pipeline(P.program(fn), passes, target=target)


def laid_out(fn: Function, passes: list[str] | None = None) -> list[str]:
    result = run(fn, passes or ["InitMemRef", "AllocateMemoryAddr"])
    assert result.diagnostics == []
    return P.lines(result.program.functions[0], memrefs=True)


# --- InitMemRef ----------------------------------------------------------------------------


def test_simple_add_buffers() -> None:
    result = run(P.simple_add(), ["InitMemRef"])
    assert result.diagnostics == []
    fn = result.program.functions[0]
    assert [p.type.memref for p in fn.params] == [  # type: ignore[attr-defined]
        MemRef(MemorySpace.DDR, None, 32768, 0),
        MemRef(MemorySpace.DDR, None, 32768, 1),
        MemRef(MemorySpace.DDR, None, 32768, 2),
    ]
    assert P.lines(fn, memrefs=True) == [
        "tile_x[Vec#3] = block.load(x, [0, 0], [128, 64])",
        "tile_y[Vec#4] = block.load(y, [0, 0], [128, 64])",
        "tile_z[Vec#5] = block.add(tile_x, tile_y)",
        # A store's result is the tensor it writes.
        "result[DDR#2] = block.store(tile_z, [0, 0], [128, 64], output)",
        "return result",
    ]


def test_every_use_sees_the_new_buffer() -> None:
    fn = run(P.simple_add(), ["InitMemRef"]).program.functions[0]
    stmts = fn.body.stmts  # type: ignore[attr-defined]
    add = stmts[2].value
    assert isinstance(add, Call)
    assert add.args[0] is stmts[0].var and add.args[1] is stmts[1].var
    assert add.args[0].type.memref == MemRef(MemorySpace.Vec, None, 32768, 3)
    assert stmts[4].values[0] is stmts[3].var
    # The store call's own type follows its destination.
    assert stmts[3].value.type.memref == MemRef(MemorySpace.DDR, None, 32768, 2)


def test_memory_space_comes_from_the_op() -> None:
    a = P.var("a", P.tensor_t(64, 32, dtype=P.FP16))
    b = P.var("b", P.tensor_t(32, 16, dtype=P.FP16))
    mat_a = P.assign(
        "mat_a", P.op("block.load", a, P.ints(0, 0), P.ints(64, 32), target_memory=MemorySpace.Mat)
    )
    mat_b = P.assign(
        "mat_b", P.op("block.load", b, P.ints(0, 0), P.ints(32, 16), target_memory=MemorySpace.Mat)
    )
    left = P.assign("left", P.op("block.move", mat_a.var, target_memory=MemorySpace.Left))
    right = P.assign("right", P.op("block.move", mat_b.var, target_memory=MemorySpace.Right))
    prod = P.assign("prod", P.op("block.matmul", left.var, right.var))
    made = P.assign(
        "made", P.op("block.create_tile", P.ints(8, 8), dtype=P.FP16, target_memory=MemorySpace.Mat)
    )
    fn = P.function("mm", [a, b], [mat_a, mat_b, left, right, prod, made])
    assert laid_out(fn, ["InitMemRef"]) == [
        "mat_a[Mat#2] = block.load(a, [0, 0], [64, 32], target_memory=Mat)",
        "mat_b[Mat#3] = block.load(b, [0, 0], [32, 16], target_memory=Mat)",
        "left[Left#4] = block.move(mat_a, target_memory=Left)",
        "right[Right#5] = block.move(mat_b, target_memory=Right)",
        "prod[Acc#6] = block.matmul(left, right)",
        "made[Mat#7] = block.create_tile([8, 8], dtype=FP16, target_memory=Mat)",
    ]
    fn = run(fn, ["InitMemRef"]).program.functions[0]
    sizes = [s.var.type.memref.size for s in fn.body.stmts]  # type: ignore[attr-defined]
    # FP16 64x32, 32x16, the moves alike, FP32 64x16 product, FP16 8x8
    assert sizes == [4096, 1024, 4096, 1024, 4096, 128]


def test_carried_values_and_results_share_the_initial_buffer() -> None:
    lines = laid_out(P.loop_kernel(), ["InitMemRef"])
    assert lines[0] == "for i in 0..4 carry(acc[DDR#2]=out) -> result[DDR#2]:"
    assert lines[4] == "  stored[DDR#2] = block.store(tz, [i * 128, 0], [128, 64], acc)"
    lines = laid_out(P.if_kernel(), ["InitMemRef"])
    assert lines[1] == "if n > 0 -> r[DDR#1]:"


def test_a_carried_tile_shares_its_initial_tile() -> None:
    a = P.var("a", P.tensor_t(16, 16))
    i = P.var("i", P.INDEX)
    init = P.assign("init", P.op("block.load", a, P.ints(0, 0), P.ints(16, 16)))
    acc = IterArg(init.var.type, name="acc", init_value=init.var, span=P.span())
    nxt = P.assign("nxt", P.op("block.add", acc, acc))
    final = Var(init.var.type, name="final", span=P.span())
    loop = ForStmt(
        i,
        P.const_int(0),
        P.const_int(2),
        P.const_int(1),
        P.seq(nxt, YieldStmt((nxt.var,), span=P.span())),
        iter_args=(acc,),
        return_vars=(final,),
        span=P.span(),
    )
    fn = P.function("k", [a], [init, loop])
    assert laid_out(fn, ["InitMemRef"]) == [
        "init[Vec#1] = block.load(a, [0, 0], [16, 16])",
        "for i in 0..2 carry(acc[Vec#1]=init) -> final[Vec#1]:",
        "  nxt[Vec#2] = block.add(acc, acc)",
        "  yield nxt",
    ]


def test_a_dynamic_tile_shape_is_reported_at_its_assignment() -> None:
    n = P.var("N", P.INDEX)
    a = P.var("a", P.tensor_t(64, 64))
    tile = P.assign("t", P.op("block.load", a, P.ints(0, 0), P.ints(n, 64)))
    fn = P.function("k", [a, n], [tile])
    result = run(fn, ["InitMemRef", "AllocateMemoryAddr"])
    assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
        (
            "E401",
            "the window of 'a' has the dynamic shape [N, 64], but a tile needs a static "
            "shape: give the window constant sizes and loop over the dimension in steps of that "
            "size",
            tile.span,
        ),
    ]
    # The pipeline stops after the pass that reported the error.
    assert [name for name, _ in result.snapshots] == ["InitMemRef"]


def test_a_tile_computed_from_a_dynamic_one_is_not_reported_again() -> None:
    n = P.var("N", P.INDEX)
    a = P.var("a", P.tensor_t(64, 64))
    tile = P.assign("t", P.op("block.load", a, P.ints(0, 0), P.ints(n, 64)))
    twice = P.assign("u", P.op("block.add", tile.var, tile.var))
    again = P.assign("v", P.op("block.load", a, P.ints(0, 0), P.ints(n, 64)))
    fn = P.function("k", [a, n], [tile, twice, again])
    result = run(fn, ["InitMemRef"])
    assert [(d.code, d.span) for d in result.diagnostics] == [("E401", tile.span)]


# --- AllocateMemoryAddr ----------------------------------------------------------------------


def test_three_tiles_get_sequential_addresses() -> None:
    assert laid_out(P.simple_add())[:3] == [
        "tile_x[Vec#3@0x0] = block.load(x, [0, 0], [128, 64])",
        "tile_y[Vec#4@0x8000] = block.load(y, [0, 0], [128, 64])",
        "tile_z[Vec#5@0x10000] = block.add(tile_x, tile_y)",
    ]


def test_ddr_buffers_get_no_address() -> None:
    result = run(P.simple_add(), ["InitMemRef", "AllocateMemoryAddr"])
    fn = result.program.functions[0]
    assert all(p.type.memref.addr is None for p in fn.params)  # type: ignore[attr-defined]


def test_addresses_are_32_byte_aligned_and_per_space() -> None:
    a = P.var("a", P.tensor_t(64, 64))
    odd = P.assign("odd", P.op("block.load", a, P.ints(0, 0), P.ints(1, 3)))  # 12 bytes
    nxt = P.assign("nxt", P.op("block.load", a, P.ints(0, 0), P.ints(1, 9)))  # 36 bytes
    mat = P.assign(
        "mat", P.op("block.load", a, P.ints(0, 0), P.ints(4, 4), target_memory=MemorySpace.Mat)
    )
    last = P.assign("last", P.op("block.load", a, P.ints(0, 0), P.ints(2, 2)))
    fn = P.function("k", [a], [odd, nxt, mat, last])
    assert laid_out(fn) == [
        "odd[Vec#1@0x0] = block.load(a, [0, 0], [1, 3])",
        "nxt[Vec#2@0x20] = block.load(a, [0, 0], [1, 9])",
        "mat[Mat#3@0x0] = block.load(a, [0, 0], [4, 4], target_memory=Mat)",
        "last[Vec#4@0x60] = block.load(a, [0, 0], [2, 2])",
    ]


def test_a_shared_buffer_is_placed_once() -> None:
    a, out = P.var("a", P.tensor_t(16, 16)), P.var("out", P.tensor_t(16, 16))
    t1 = P.assign("t1", P.op("block.load", a, P.ints(0, 0), P.ints(16, 16)))
    t2 = P.assign("t2", P.op("block.exp", t1.var))
    t3 = P.assign("t3", P.op("block.exp", t2.var))  # takes t1's buffer
    t4 = P.assign("t4", P.op("block.exp", t3.var))  # takes t2's buffer
    st = P.EvalStmt(P.op("block.store", t4.var, P.ints(0, 0), P.ints(16, 16), out), span=P.span())
    fn = P.function("k", [a, out], [t1, t2, t3, t4, st])
    assert laid_out(fn, ["InitMemRef", "MemoryReuse", "AllocateMemoryAddr"])[:4] == [
        "t1[Vec#2@0x0] = block.load(a, [0, 0], [16, 16])",
        "t2[Vec#3@0x400] = block.exp(t1)",
        "t3[Vec#2@0x0] = block.exp(t2)",
        "t4[Vec#3@0x400] = block.exp(t3)",
    ]


def _eight_live_tiles() -> tuple[Function, list[Span]]:
    """Eight 128x64 FP32 tiles (32 KiB each), all loaded before any is stored."""
    a, out = P.var("a", P.tensor_t(1024, 64)), P.var("out", P.tensor_t(1024, 64))
    loads = [
        P.assign(f"t{k}", P.op("block.load", a, P.ints(128 * k, 0), P.ints(128, 64)))
        for k in range(8)
    ]
    stores = [
        P.EvalStmt(
            P.op("block.store", t.var, P.ints(128 * k, 0), P.ints(128, 64), out), span=P.span()
        )
        for k, t in enumerate(loads)
    ]
    return P.function("k", [a, out], [*loads, *stores]), [s.span for s in loads]


def test_capacity_overflow_is_reported_at_the_first_tile_that_does_not_fit() -> None:
    fn, spans = _eight_live_tiles()
    result = run(fn, DEFAULT_PIPELINE)
    assert [(d.code, d.severity, d.message, d.span) for d in result.diagnostics] == [
        (
            "E402",
            Severity.ERROR,
            "tiles live in Vec need 262144 bytes, but the target's Vec capacity is 196608 bytes; "
            "buffers: t0 (32768 B), t1 (32768 B), t2 (32768 B), t3 (32768 B) and 4 more",
            spans[6],
        ),  # six 32 KiB tiles fill the 192 KiB exactly
    ]
    # Addresses are still assigned, so the IR after the pass can be inspected.
    assert (
        P.lines(result.program.functions[0], memrefs=True)[7]
        == "t7[Vec#9@0x38000] = block.load(a, [896, 0], [128, 64])"
    )


def test_capacity_follows_the_target() -> None:
    fn, spans = _eight_live_tiles()
    small = Target(capacities={MemorySpace.Vec: 65536})
    result = run(fn, DEFAULT_PIPELINE, target=small)
    assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
        (
            "E402",
            "tiles live in Vec need 262144 bytes, but the target's Vec capacity is "
            "65536 bytes; buffers: t0 (32768 B), t1 (32768 B), t2 (32768 B), t3 (32768 B) and 4 "
            "more",
            spans[2],
        ),
    ]
    roomy = Target(capacities={MemorySpace.Vec: 262144})
    assert run(fn, DEFAULT_PIPELINE, target=roomy).diagnostics == []


def test_default_target() -> None:
    assert DEFAULT_TARGET.alignment == 32
    assert {s.name: DEFAULT_TARGET.capacity(s) for s in MemorySpace} == {
        "DDR": None,
        "Vec": 196608,
        "Mat": 524288,
        "Left": 65536,
        "Right": 65536,
        "Acc": 131072,
        "Bias": 1024,
    }


def test_tile_type_is_kept_apart_from_the_buffer() -> None:
    fn = run(P.simple_add(), ["InitMemRef", "AllocateMemoryAddr"]).program.functions[0]
    tile = fn.body.stmts[0].var.type  # type: ignore[attr-defined]
    assert isinstance(tile, TileType)
    assert (tile.shape[0].value, tile.shape[1].value, tile.dtype) == (128, 64, P.FP32)  # type: ignore[attr-defined]
    assert tile.memref == MemRef(MemorySpace.Vec, 0, 32768, 3)
