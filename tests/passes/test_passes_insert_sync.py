"""InsertSync: exact placement of sync pairs and barriers."""

from __future__ import annotations

import passes_ir as P

from ptoc.ir import (
    UNKNOWN,
    Call,
    ConstFloat,
    DataType,
    EvalStmt,
    ForStmt,
    Function,
    MemorySpace,
    Op,
    ReturnStmt,
    ScalarType,
)
from ptoc.ops import PipeType
from ptoc.passes import InsertSync, PassContext, Target, run_pipeline

ONE = ConstFloat(ScalarType(DataType.FP32), value=1.0)
BEFORE_SYNC = ["ConvertToSSA", "FlattenCalls", "Verifier", "InitMemRef", "MemoryReuse"]


def synced(fn: Function, target: Target | None = None) -> Function:
    result = run_pipeline(P.program(fn), [*BEFORE_SYNC, "InsertSync"], target=target)
    assert result.diagnostics == []
    return result.program.functions[0]


def test_simple_add_matches_the_seed() -> None:
    # TLOAD x; TLOAD y; sync(MTE2->V); TADD; sync(V->MTE3); TSTORE
    assert P.lines(synced(P.simple_add())) == [
        "tile_x = block.load(x, [0, 0], [128, 64])",
        "tile_y = block.load(y, [0, 0], [128, 64])",
        "sync_src(MTE2->V, event=0)",
        "sync_dst(MTE2->V, event=0)",
        "tile_z = block.add(tile_x, tile_y)",
        "sync_src(V->MTE3, event=0)",
        "sync_dst(V->MTE3, event=0)",
        "result = block.store(tile_z, [0, 0], [128, 64], output)",
        "return result",
    ]


def test_sync_statements_have_the_contract_shape() -> None:
    fn = synced(P.simple_add())
    stmts = fn.body.stmts  # type: ignore[attr-defined]
    src, dst = stmts[2], stmts[3]
    assert isinstance(src, EvalStmt) and isinstance(dst, EvalStmt)
    for stmt, name in ((src, "system.sync_src"), (dst, "system.sync_dst")):
        call = stmt.expr
        assert isinstance(call, Call)
        assert call.callee == Op(name)
        assert call.type is UNKNOWN
        assert call.args == ()
        assert call.kwargs == (
            ("set_pipe", PipeType.MTE2),
            ("wait_pipe", PipeType.V),
            ("event_id", 0),
        )
        # The pair takes the span of the statement it protects (the add).
        assert stmt.span == stmts[4].span and call.span == stmts[4].span


def test_loop_gets_back_edge_pairs_at_the_top_of_the_body() -> None:
    assert P.lines(synced(P.loop_kernel())) == [
        "for i in 0..4 carry(acc=out) -> result:",
        # Iteration i+1's load overwrites tx/ty, which iteration i's add read.
        "  sync_src(V->MTE2, event=0)",
        "  sync_dst(V->MTE2, event=0)",
        "  tx = block.load(x, [i * 128, 0], [128, 64])",
        "  ty = block.load(y, [i * 128, 0], [128, 64])",
        "  sync_src(MTE2->V, event=0)",
        "  sync_dst(MTE2->V, event=0)",
        # The add overwrites tz, which iteration i's store still reads.
        "  sync_src(MTE3->V, event=0)",
        "  sync_dst(MTE3->V, event=0)",
        "  tz = block.add(tx, ty)",
        "  sync_src(V->MTE3, event=0)",
        "  sync_dst(V->MTE3, event=0)",
        "  stored = block.store(tz, [i * 128, 0], [128, 64], acc)",
        "  yield stored",
        "return result",
    ]


def test_if_branches_each_get_their_own_pairs() -> None:
    assert P.lines(synced(P.if_kernel())) == [
        "tx = block.load(x, [0, 0], [128, 64])",
        "if n > 0 -> r:",
        "  sync_src(MTE2->V, event=0)",
        "  sync_dst(MTE2->V, event=0)",
        "  t_sum = block.add(tx, tx)",
        "  sync_src(V->MTE3, event=0)",
        "  sync_dst(V->MTE3, event=0)",
        "  s1 = block.store(t_sum, [0, 0], [128, 64], out)",
        "  yield s1",
        "else:",
        "  sync_src(MTE2->V, event=0)",
        "  sync_dst(MTE2->V, event=0)",
        "  t_prod = block.mul(tx, tx)",
        "  sync_src(V->MTE3, event=0)",
        "  sync_dst(V->MTE3, event=0)",
        "  s2 = block.store(t_prod, [0, 0], [128, 64], out)",
        "  yield s2",
        "return r",
    ]


def test_after_an_if_the_merged_state_needs_a_pair_from_either_branch() -> None:
    # The store after the if reads a tile written by V in one branch and by MTE2 in the other.
    x, out, n = (
        P.var("x", P.tensor_t(64, 64)),
        P.var("out", P.tensor_t(64, 64)),
        P.var("n", P.INDEX),
    )
    loaded = P.assign("loaded", P.op("block.load", x, P.ints(0, 0), P.ints(64, 64)))
    doubled = P.assign("doubled", P.op("block.add", loaded.var, loaded.var))
    picked = P.var("picked", loaded.var.type)
    branch = P.IfStmt(
        P.gt(n, 0),
        P.seq(doubled, P.YieldStmt((doubled.var,), span=P.span())),
        P.seq(P.YieldStmt((loaded.var,), span=P.span())),
        return_vars=(picked,),
        span=P.span(),
    )
    store = P.assign("o", P.op("block.store", picked, P.ints(0, 0), P.ints(64, 64), out))
    fn = P.function("k", [x, out, n], [loaded, branch, store], returns=[])
    assert P.lines(synced(fn))[-5:] == [
        "sync_src(MTE2->MTE3, event=0)",
        "sync_dst(MTE2->MTE3, event=0)",
        "sync_src(V->MTE3, event=0)",
        "sync_dst(V->MTE3, event=0)",
        "o = block.store(picked, [0, 0], [64, 64], out)",
    ]


def test_dependency_on_work_before_a_loop_is_synced_once_before_the_loop() -> None:
    x, out = P.var("x", P.tensor_t(64, 64)), P.var("out", P.tensor_t(64, 64))
    i = P.var("i", P.INDEX)
    scale = P.assign("scale", P.op("block.load", x, P.ints(0, 0), P.ints(64, 64)))
    prod = P.assign("prod", P.op("block.mul", scale.var, scale.var))
    store = P.EvalStmt(
        P.op("block.store", prod.var, P.ints(0, 0), P.ints(64, 64), out), span=P.span()
    )
    loop = ForStmt(
        i, P.const_int(0), P.const_int(4), P.const_int(1), P.seq(prod, store), span=P.span()
    )
    fn = P.function("k", [x, out], [scale, loop], returns=[])
    assert P.lines(synced(fn)) == [
        "scale = block.load(x, [0, 0], [64, 64])",
        "sync_src(MTE2->V, event=0)",
        "sync_dst(MTE2->V, event=0)",
        "for i in 0..4:",
        "  sync_src(MTE3->V, event=0)",
        "  sync_dst(MTE3->V, event=0)",
        "  prod = block.mul(scale, scale)",
        "  sync_src(V->MTE3, event=0)",
        "  sync_dst(V->MTE3, event=0)",
        "  block.store(prod, [0, 0], [64, 64], out)",
    ]


def test_coverage_is_transitive_so_an_in_place_store_needs_no_extra_pair() -> None:
    # Storing into the tensor that was loaded is a WAR on DDR (MTE2 read, MTE3 write), but
    # MTE2 -> V followed by V -> MTE3 already orders the load before the store.
    a, b = P.var("a", P.tensor_t(32, 32)), P.var("b", P.tensor_t(32, 32))
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(32, 32)))
    tb = P.assign("tb", P.op("block.load", b, P.ints(0, 0), P.ints(32, 32)))
    tc = P.assign("tc", P.op("block.mul", ta.var, tb.var))
    store = P.EvalStmt(P.op("block.store", tc.var, P.ints(0, 0), P.ints(32, 32), a), span=P.span())
    fn = P.function("k", [a, b], [ta, tb, tc, store], returns=[])
    assert P.lines(synced(fn)) == [
        "ta = block.load(a, [0, 0], [32, 32])",
        "tb = block.load(b, [0, 0], [32, 32])",
        "sync_src(MTE2->V, event=0)",
        "sync_dst(MTE2->V, event=0)",
        "tc = block.mul(ta, tb)",
        "sync_src(V->MTE3, event=0)",
        "sync_dst(V->MTE3, event=0)",
        "block.store(tc, [0, 0], [32, 32], a)",
    ]


def test_loading_what_was_stored_needs_mte3_to_mte2() -> None:
    a, t = P.var("a", P.tensor_t(32, 32)), P.var("t", P.tensor_t(32, 32))
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(32, 32)))
    written = P.assign("written", P.op("block.store", ta.var, P.ints(0, 0), P.ints(32, 32), t))
    back = P.assign("back", P.op("block.load", written.var, P.ints(0, 0), P.ints(32, 32)))
    fn = P.function("k", [a, t], [ta, written, back], returns=[])
    assert P.lines(synced(fn)) == [
        "ta = block.load(a, [0, 0], [32, 32])",
        "sync_src(MTE2->MTE3, event=0)",
        "sync_dst(MTE2->MTE3, event=0)",
        "written = block.store(ta, [0, 0], [32, 32], t)",
        "sync_src(MTE3->MTE2, event=0)",
        "sync_dst(MTE3->MTE2, event=0)",
        "back = block.load(written, [0, 0], [32, 32])",
    ]


def _vector_chain() -> Function:
    a, b, out = (P.var(n, P.tensor_t(32, 128)) for n in ("a", "b", "out"))
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(32, 128)))
    tb = P.assign("tb", P.op("block.load", b, P.ints(0, 0), P.ints(32, 128)))
    s = P.assign("s", P.op("block.add", ta.var, tb.var))
    d = P.assign("d", P.op("block.sub", ta.var, tb.var))  # independent of s
    root = P.assign("root", P.op("block.sqrt", s.var))  # reads what the add wrote
    both = P.assign("both", P.op("block.mul", root.var, d.var))
    store = P.EvalStmt(
        P.op("block.store", both.var, P.ints(0, 0), P.ints(32, 128), out), span=P.span()
    )
    return P.function("k", [a, b, out], [ta, tb, s, d, root, both, store], returns=[])


def test_bar_v_only_between_dependent_vector_ops() -> None:
    assert P.lines(synced(_vector_chain()))[4:11] == [
        "s = block.add(ta, tb)",
        "d = block.sub(ta, tb)",
        "system.bar_v()",
        "root = block.sqrt(s)",
        # both reads root (V) and d (V): the barrier before root already covers d.
        "system.bar_v()",
        "both = block.mul(root, d)",
        "sync_src(V->MTE3, event=0)",
    ]


def test_targets_without_barrier_pipes_get_no_barriers() -> None:
    lines = P.lines(synced(_vector_chain(), Target(barrier_pipes=frozenset())))
    assert not any("bar_v" in line for line in lines)


def test_cube_pipeline_syncs_every_hand_over() -> None:
    a, b, c = (
        P.var("a", P.tensor_t(64, 64, dtype=P.FP16)),
        P.var("b", P.tensor_t(64, 64, dtype=P.FP16)),
        P.var("c", P.tensor_t(64, 64)),
    )
    mat = {"target_memory": MemorySpace.Mat}
    la = P.assign("la", P.op("block.load", a, P.ints(0, 0), P.ints(64, 64), **mat))
    lb = P.assign("lb", P.op("block.load", b, P.ints(0, 0), P.ints(64, 64), **mat))
    left = P.assign("left", P.op("block.move", la.var, target_memory=MemorySpace.Left))
    right = P.assign("right", P.op("block.move", lb.var, target_memory=MemorySpace.Right))
    prod = P.assign("prod", P.op("block.matmul", left.var, right.var))
    acc = P.assign("acc", P.op("block.matmul_acc", prod.var, left.var, right.var))
    out = P.EvalStmt(
        P.op("block.l0c_store", acc.var, P.ints(0, 0), P.ints(64, 64), c), span=P.span()
    )
    fn = P.function("mm", [a, b, c], [la, lb, left, right, prod, acc, out], returns=[])
    assert P.lines(synced(fn)) == [
        "la = block.load(a, [0, 0], [64, 64], target_memory=Mat)",
        "lb = block.load(b, [0, 0], [64, 64], target_memory=Mat)",
        "sync_src(MTE2->MTE1, event=0)",
        "sync_dst(MTE2->MTE1, event=0)",
        "left = block.move(la, target_memory=Left)",
        "right = block.move(lb, target_memory=Right)",
        "sync_src(MTE1->M, event=0)",
        "sync_dst(MTE1->M, event=0)",
        "prod = block.matmul(left, right)",
        "system.bar_m()",
        "acc = block.matmul_acc(prod, left, right)",
        "sync_src(M->FIX, event=0)",
        "sync_dst(M->FIX, event=0)",
        "block.l0c_store(acc, [0, 0], [64, 64], c)",
    ]


def test_scalar_pipe_ops_are_not_tracked() -> None:
    out = P.var("out", P.tensor_t(16, 16))
    tile = P.assign("tile", P.op("block.create_tile", P.ints(16, 16), dtype=P.FP32))
    store = P.EvalStmt(
        P.op("block.store", tile.var, P.ints(0, 0), P.ints(16, 16), out), span=P.span()
    )
    fn = P.function("k", [out], [tile, store], returns=[])
    assert P.lines(synced(fn)) == [
        "tile = block.create_tile([16, 16], dtype=FP32)",
        "block.store(tile, [0, 0], [16, 16], out)",
    ]


def test_running_twice_gives_the_same_program() -> None:
    once = synced(P.loop_kernel())
    twice = InsertSync().run(P.program(once), PassContext()).functions[0]
    assert P.lines(twice) == P.lines(once)


def test_a_function_without_tracked_ops_is_unchanged() -> None:
    n = P.var("n", P.INDEX)
    fn = P.function("f", [n], [ReturnStmt((n,), span=P.span())], returns=[P.INDEX])
    after = InsertSync().run(P.program(fn), PassContext()).functions[0]
    assert P.lines(after) == ["return n"]


def test_bar_v_before_a_vector_write_into_a_buffer_a_vector_op_just_read() -> None:
    # MemoryReuse gives the ones ta's buffer (ta is dead after the add): the V pipe may
    # overlap its instructions, so the fill waits for the add that reads that buffer.
    a, b, out = (P.var(n, P.tensor_t(32, 128)) for n in ("a", "b", "out"))
    ta = P.assign("ta", P.op("block.load", a, P.ints(0, 0), P.ints(32, 128)))
    tb = P.assign("tb", P.op("block.load", b, P.ints(0, 0), P.ints(32, 128)))
    s = P.assign("s", P.op("block.add", ta.var, tb.var))
    ones = P.assign("ones", P.op("block.full", P.ints(32, 128), ONE, dtype=P.FP32))
    both = P.assign("both", P.op("block.mul", s.var, ones.var))
    store = P.EvalStmt(
        P.op("block.store", both.var, P.ints(0, 0), P.ints(32, 128), out), span=P.span()
    )
    fn = P.function("k", [a, b, out], [ta, tb, s, ones, both, store], returns=[])
    assert P.lines(synced(fn), memrefs=True)[:9] == [
        "ta[Vec#3] = block.load(a, [0, 0], [32, 128])",
        "tb[Vec#4] = block.load(b, [0, 0], [32, 128])",
        "sync_src(MTE2->V, event=0)",
        "sync_dst(MTE2->V, event=0)",
        "s[Vec#5] = block.add(ta, tb)",
        "system.bar_v()",
        "ones[Vec#3] = block.full([32, 128], ConstFloat, dtype=FP32)",
        "system.bar_v()",  # the mul reads the ones (and writes tb's buffer, the add's operand)
        "both[Vec#4] = block.mul(s, ones)",
    ]
