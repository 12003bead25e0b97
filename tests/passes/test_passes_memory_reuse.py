"""MemoryReuse: which tiles share a buffer."""

from __future__ import annotations

import passes_ir as P

from ptoc.ir import (
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    MemorySpace,
    ReturnStmt,
    YieldStmt,
)
from ptoc.passes import run_pipeline

THROUGH_REUSE = ["ConvertToSSA", "FlattenCalls", "Verifier", "InitMemRef", "MemoryReuse"]


def store(tile: P.Expr, out: P.Var, rows: int, cols: int) -> P.EvalStmt:
    return P.eval_(P.op("block.store", tile, P.ints(0, 0), P.ints(rows, cols), out))


def reused(fn: Function) -> list[str]:
    result = run_pipeline(P.program(fn), THROUGH_REUSE)
    assert result.diagnostics == []
    return P.lines(result.program.functions[0], memrefs=True)


def test_a_tile_takes_the_buffer_of_one_that_is_dead() -> None:
    a, out = P.var("a", P.tensor_t(32, 128)), P.var("out", P.tensor_t(32, 1))
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(32, 128)))
    sq = P.assign("sq", P.op("block.sqrt", ta.var))
    ex = P.assign("ex", P.op("block.exp", sq.var))
    total = P.assign("total", P.op("block.sum", ex.var, axis=1, keepdim=True))
    st = store(total.var, out, 32, 1)
    fn = P.function("k", [a, out], [ta, sq, ex, total, st], returns=[])
    assert reused(fn) == [
        "ta[Vec#2] = block.load(a, [0, 0], [32, 128])",
        # sq is defined by the statement that last reads ta: no in-place reuse.
        "sq[Vec#3] = block.sqrt(ta)",
        # ta is dead once sq exists.
        "ex[Vec#2] = block.exp(sq)",
        # A smaller tile fits the larger dead buffer.
        "total[Vec#3] = block.sum(ex, axis=1, keepdim=True)",
        "block.store(total, [0, 0], [32, 1], out)",
    ]


def test_live_tiles_keep_their_own_buffers() -> None:
    assert reused(P.simple_add()) == [
        "tile_x[Vec#3] = block.load(x, [0, 0], [128, 64])",
        "tile_y[Vec#4] = block.load(y, [0, 0], [128, 64])",
        "tile_z[Vec#5] = block.add(tile_x, tile_y)",
        "result[DDR#2] = block.store(tile_z, [0, 0], [128, 64], output)",
        "return result",
    ]


def test_a_larger_tile_does_not_take_a_smaller_buffer() -> None:
    a, out = P.var("a", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    small = P.assign("small", P.op("block.load", a, P.ints(0, 0), P.ints(16, 64)))
    once = P.assign("once", P.op("block.exp", small.var))
    big = P.assign("big", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64)))
    st1 = store(once.var, out, 16, 64)
    st2 = store(big.var, out, 64, 64)
    fn = P.function("k", [a, out], [small, once, big, st1, st2], returns=[])
    assert reused(fn)[2] == "big[Vec#4] = block.load(a, [0, 0], [64, 64])"


def test_memory_spaces_are_not_mixed() -> None:
    a, out = P.var("a", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    in_mat = P.assign(
        "in_mat", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64), target_memory=MemorySpace.Mat)
    )
    left = P.assign("left", P.op("block.move", in_mat.var, target_memory=MemorySpace.Left))
    vec = P.assign("vec", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64)))
    st = store(vec.var, out, 64, 64)
    fn = P.function("k", [a, out], [in_mat, left, vec, st], returns=[])
    # in_mat is dead when vec is defined, but Mat and Vec are different memories.
    assert reused(fn)[:3] == [
        "in_mat[Mat#2] = block.load(a, [0, 0], [64, 64], target_memory=Mat)",
        "left[Left#3] = block.move(in_mat, target_memory=Left)",
        "vec[Vec#4] = block.load(a, [0, 0], [64, 64])",
    ]


def test_a_tile_read_inside_a_loop_is_live_for_the_whole_loop() -> None:
    a, out = P.var("a", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    i = P.var("i", P.INDEX)
    before = P.assign("before", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64)))
    use = P.assign("use", P.op("block.exp", before.var))  # last textual use of `before`
    later = P.assign("later", P.op("block.exp", use.var))  # after it, in the same body
    st = store(later.var, out, 64, 64)
    loop = P.for_(i, 2, use, later, st)
    fn = P.function("k", [a, out], [before, loop], returns=[])
    # `later` may not take before's buffer: the next iteration reads `before` again. It may
    # not take use's buffer either (defined by the statement reading it).
    assert reused(fn)[2:4] == [
        "  use[Vec#3] = block.exp(before)",
        "  later[Vec#4] = block.exp(use)",
    ]


def test_tiles_local_to_one_iteration_share_across_the_body() -> None:
    a, out = P.var("a", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    i = P.var("i", P.INDEX)
    t1 = P.assign("t1", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64)))
    t2 = P.assign("t2", P.op("block.exp", t1.var))
    t3 = P.assign("t3", P.op("block.exp", t2.var))
    st = store(t3.var, out, 64, 64)
    loop = P.for_(i, 2, t1, t2, t3, st)
    fn = P.function("k", [a, out], [loop], returns=[])
    assert reused(fn)[1:4] == [
        "  t1[Vec#2] = block.load(a, [0, 0], [64, 64])",
        "  t2[Vec#3] = block.exp(t1)",
        "  t3[Vec#2] = block.exp(t2)",
    ]


def test_carried_tiles_keep_their_buffers_across_the_loop() -> None:
    a, out = P.var("a", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    i = P.var("i", P.INDEX)
    init = P.assign("init", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64)))
    acc = IterArg(init.var.type, name="acc", init_value=init.var, span=P.span())
    step = P.assign("step", P.op("block.exp", acc))
    scratch = P.assign("scratch", P.op("block.exp", step.var))  # after acc's last use
    final = P.var("final", init.var.type)
    loop = ForStmt(
        i,
        P.const_int(0),
        P.const_int(4),
        P.const_int(1),
        P.seq(step, scratch, YieldStmt((scratch.var,), span=P.span())),
        iter_args=(acc,),
        return_vars=(final,),
        span=P.span(),
    )
    st = store(final, out, 64, 64)
    fn = P.function("k", [a, out], [init, loop, st], returns=[])
    assert reused(fn) == [
        "init[Vec#2] = block.load(a, [0, 0], [64, 64])",
        "for i in 0..4 carry(acc[Vec#2]=init) -> final[Vec#2]:",
        "  step[Vec#3] = block.exp(acc)",
        # Not #2: acc lives in it until the loop ends.
        "  scratch[Vec#4] = block.exp(step)",
        "  yield scratch",
        "block.store(final, [0, 0], [64, 64], out)",
    ]


def test_tiles_of_the_two_branches_of_an_if_share() -> None:
    lines = reused(P.if_kernel())
    assert lines[2] == "  t_sum[Vec#3] = block.add(tx, tx)"
    assert lines[6] == "  t_prod[Vec#3] = block.mul(tx, tx)"


def test_an_if_result_keeps_both_branch_buffers_live() -> None:
    x, out, n = (
        P.var("x", P.tensor_t(64, 64)),
        P.var("out", P.tensor_t(64, 64)),
        P.var("n", P.INDEX),
    )
    a = P.assign("a", P.op("block.load", x, P.ints(0, 0), P.ints(64, 64)))
    b = P.assign("b", P.op("block.exp", a.var))
    c = P.assign("c", P.op("block.sqrt", a.var))
    picked = P.var("picked", a.var.type)
    branch = IfStmt(
        P.gt(n, 0),
        P.seq(b, YieldStmt((b.var,), span=P.span())),
        P.seq(c, YieldStmt((c.var,), span=P.span())),
        return_vars=(picked,),
        span=P.span(),
    )
    fresh = P.assign("fresh", P.op("block.load", x, P.ints(0, 0), P.ints(64, 64)))
    both = P.assign("both", P.op("block.add", picked, fresh.var))
    fn = P.function("k", [x, out, n], [a, branch, fresh, both, ReturnStmt((), span=P.span())])
    # `a` is dead after the if and `fresh` takes its buffer; `picked` may live in b's or in
    # c's buffer, so both stay live until its last use (b and c are not merged either).
    assert reused(fn) == [
        "a[Vec#2] = block.load(x, [0, 0], [64, 64])",
        "if n > 0 -> picked[Vec#3]:",
        "  b[Vec#3] = block.exp(a)",
        "  yield b",
        "else:",
        "  c[Vec#4] = block.sqrt(a)",
        "  yield c",
        "fresh[Vec#2] = block.load(x, [0, 0], [64, 64])",
        "both[Vec#6] = block.add(picked, fresh)",
        "return",
    ]


def test_a_reshape_shares_its_source_buffer_and_keeps_it_live() -> None:
    # TRESHAPE / pto.treshape make the result a view of the source's bytes: a tile loaded
    # while the reshape is live must not take the source's buffer (it did: wrong results).
    a, b, out = (
        P.var(n, P.tensor_t(*s)) for n, s in (("a", (16, 64)), ("b", (64, 16)), ("out", (64, 16)))
    )
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(16, 64)))
    tr = P.assign("tr", P.op("block.reshape", ta.var, P.ints(64, 16)))
    tb = P.assign("tb", P.op("block.load", b, P.ints(0, 0), P.ints(64, 16)))
    tc = P.assign("tc", P.op("block.add", tr.var, tb.var))
    st = store(tc.var, out, 64, 16)
    fn = P.function("k", [a, b, out], [ta, tr, tb, tc, st], returns=[])
    assert reused(fn)[:3] == [
        "ta[Vec#3] = block.load(a, [0, 0], [16, 64])",
        "tr[Vec#3] = block.reshape(ta, [64, 16])",
        "tb[Vec#4] = block.load(b, [0, 0], [64, 16])",
    ]
