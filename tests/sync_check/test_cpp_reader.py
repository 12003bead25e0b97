"""The reader of PTOAS's C++ (``passes/sync_check/cpp_*``) on small kernels written in the
form PTOAS emits: tiles by address, loops with a trip count, if / else, core sections,
views by TRESHAPE, and PTOAS's rule for long vector chains."""

from __future__ import annotations

import pytest

from ptoc.diagnostics import Diagnostic
from ptoc.ir.span import Span
from ptoc.ops.registry import PipeType
from ptoc.passes.sync_check.cpp_check import verify_cpp
from ptoc.passes.sync_check.cpp_stream import CppStreamReader, cores_of
from ptoc.passes.sync_check.cpp_syntax import kernel_functions
from ptoc.passes.sync_check.cpp_values import Known, Value, evaluate
from ptoc.passes.sync_check.stream import Branch, Loop, OpInstr, Region, WaitInstr

SPAN = Span("k.py", 3, 4, 9, 0)


def tile(name: str, rows: int, address: int, dtype: str = "float") -> str:
    kind = f"Tile<TileType::Vec, {dtype}, {rows}, 64, BLayout::RowMajor, {rows}, 64, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>"  # noqa: E501
    return (
        f"  {kind} {name}_;\n  {kind} {name} = {name}_;\n"
        f"  uint64_t {name}_at = (uint64_t) {address};\n  TASSIGN({name}, {name}_at);\n"
    )


def kernel(body: str) -> str:
    tensor = "GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>"  # noqa: E501
    return (
        '#include "pto/pto-inst.hpp"\n'
        'extern "C" __global__ AICORE void k(__gm__ float* v1, __gm__ float* v2) {\n'
        "  const int64_t c0 = 0;\n  const int64_t c1 = 1;\n  const int64_t c4 = 4;\n"
        f"  {tensor} g1 = {tensor}(v1 + c0, s, t);\n"
        f"  {tensor} g2 = {tensor}(v2, s, t);\n"
        f"{body}"
        "  ptoas_auto_sync_tail(PTOAutoSyncTailMode::kBarrierAll);\n  return;\n}\n"
    )


def check(body: str) -> list[Diagnostic]:
    return verify_cpp(kernel(body), "", [], {"k": SPAN})


def read(body: str, core: str | None = None) -> CppStreamReader:
    [function] = kernel_functions(kernel(body))
    return CppStreamReader(function, core, lambda _: SPAN)


def test_tiles_are_their_address_ranges_and_tensors_their_parameter() -> None:
    reader = read(tile("a", 16, 0) + tile("b", 16, 4096) + "  TLOAD(a, g1);\n  TADD(b, a, a);\n")
    load, add = reader.nodes[:2]
    assert isinstance(load, OpInstr) and isinstance(add, OpInstr)
    assert load.pipe is PipeType.MTE2 and add.pipe is PipeType.V
    assert load.access.writes == (Region("Vec", 0, 4096),)
    assert load.access.reads == (Region("GM#v1", 0, 1),)
    assert add.access == ((Region("Vec", 0, 4096),), (Region("Vec", 4096, 8192),))
    assert reader.unknown == []


def test_a_loop_has_its_trip_count_and_an_if_its_branches() -> None:
    body = (
        tile("a", 16, 0)
        + "  for (int64_t i = c1; i < c4; i += c1) {\n    TLOAD(a, g1);\n  }\n"
        + "  for (int64_t j = c0; j < n; j += c1) {\n    TLOAD(a, g1);\n  }\n"
        + "  if (n > c0) {\n    TLOAD(a, g1);\n  } else {\n    TSTORE(g2, a);\n  }\n"
    )
    loop, unknown_loop, branch = read(body).nodes[:3]
    assert isinstance(loop, Loop) and loop.trips == 3
    assert isinstance(unknown_loop, Loop) and unknown_loop.trips is None
    assert isinstance(branch, Branch)
    [store] = branch.orelse
    assert isinstance(store, OpInstr) and store.pipe is PipeType.MTE3


def test_each_core_section_is_a_stream_of_its_own() -> None:
    body = (
        tile("a", 16, 0)
        + "  #if defined(__DAV_VEC__)\n  TLOAD(a, g1);\n  #endif // __DAV_VEC__\n"
        + "  #if defined(__DAV_CUBE__)\n  TSTORE(g2, a);\n  #endif // __DAV_CUBE__\n"
    )
    [function] = kernel_functions(kernel(body))
    assert cores_of(function) == ["__DAV_VEC__", "__DAV_CUBE__"]
    vector = [n for n in read(body, "__DAV_VEC__").nodes if isinstance(n, OpInstr)]
    cube = [n for n in read(body, "__DAV_CUBE__").nodes if isinstance(n, OpInstr)]
    assert [n.pipe for n in vector] == [PipeType.MTE2]
    assert [n.pipe for n in cube] == [PipeType.MTE3]
    # the two cores' statements never race: no set/wait between them, no finding
    assert check(body) == []


def test_a_missing_wait_is_a_race_and_a_reshaped_view_shares_the_bytes() -> None:
    view = (
        "  Tile<TileType::Vec, float, 64, 16, BLayout::RowMajor, 64, 16, SLayout::NoneBox, "
        "512, PadValue::Null, CompactMode::Null> r;\n  TRESHAPE(r, a);\n"
    )
    synced = (
        tile("a", 16, 0)
        + tile("b", 16, 4096)
        + view
        + "  TLOAD(a, g1);\n  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
        + "  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n  TEXP(b, r);\n"
    )
    assert check(synced) == []
    racy = synced.replace("  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", "")
    codes = sorted(d.code for d in check(racy))
    assert codes == ["E410", "E412"]


def test_ptoas_long_vector_chains_need_no_barrier_short_ones_do() -> None:
    # 16 rows of 64 floats: 16 repeats of 256 bytes, PTOAS's threshold; 8 rows: 8 repeats
    def chain(rows: int) -> str:
        return (
            tile("a", rows, 0)
            + tile("b", rows, 8192)
            + "  TLOAD(a, g1);\n  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
            + "  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n  TEXP(b, a);\n  TADDS(b, b, c1);\n"
        )

    assert check(chain(16)) == []
    [finding] = check(chain(8))
    assert finding.code == "E411"
    assert finding.message.startswith("V overwrites Vec [0x2000, 0x2800), which V wrote at")
    assert finding.message.endswith("with no pipe_barrier(PIPE_V) between them (write after write)")
    barrier = chain(8).replace("  TADDS(", "  pipe_barrier(PIPE_V);\n  TADDS(")
    assert check(barrier) == []


def test_else_if_chains_and_while_loops_are_structure() -> None:
    body = (
        tile("a", 16, 0)
        + "  if (n > c0) {\n    TLOAD(a, g1);\n  } else if (n > c1) {\n    TSTORE(g2, a);\n"
        + "  } else {\n    TEXP(a, a);\n  }\n"
        + "  while (n > c0) {\n    TLOAD(a, g1);\n  }\n"
    )
    reader = read(body)
    branch, loop = reader.nodes[:2]
    assert isinstance(branch, Branch) and isinstance(loop, Loop)
    [inner] = branch.orelse
    assert isinstance(inner, Branch)
    assert [type(n) for n in inner.then + inner.orelse] == [OpInstr, OpInstr]
    assert loop.trips is None and reader.unknown == []


def test_an_operand_of_no_known_buffer_is_not_understood() -> None:
    body = tile("a", 16, 0) + "  TLOAD(a, g1);\n  TADD(a, a, mystery);\n"
    [warning] = check(body)
    assert warning.code == "W410"
    assert "`TADD(a, a, mystery)` (its operand mystery is unknown)" in warning.message


SET = "  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID{n});\n"
WAIT = "  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID{n});\n"


@pytest.mark.parametrize(
    ("sync", "code", "message"),
    [
        (
            SET.format(n=0) + SET.format(n=0) + WAIT.format(n=0) + WAIT.format(n=0),
            "E413",
            "set_flag sets MTE2→V event 0 again while it is in flight",
        ),
        (
            "".join(SET.format(n=n % 8) for n in range(9))
            + "".join(WAIT.format(n=n) for n in range(8)),
            "E414",
            "set_flag of MTE2→V event 0 needs a 9th event between MTE2 and V",
        ),
        (WAIT.format(n=1) + SET.format(n=1), "E412", "wait_flag of MTE2→V event 1 comes before"),
        (WAIT.format(n=2), "E415", "wait_flag of MTE2→V event 2 can never be satisfied"),
    ],
)
def test_event_mistakes_in_ptoas_form(sync: str, code: str, message: str) -> None:
    found = check(tile("a", 16, 0) + sync)
    assert any(d.code == code and d.message.startswith(message) for d in found), [
        d.format() for d in found
    ]


# --- PTOAS's dynamic event ids (multi-buffering) ---------------------------------------------

VEC_TILE = "Tile<TileType::Vec, float, 32, 64, BLayout::RowMajor, 32, 64, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>"  # noqa: E501
GM_TENSOR = "GlobalTensor<float, pto::Shape<1, 1, 1, 32, 64>, pto::Stride<2048, 2048, 2048, 64, 1>, pto::Layout::ND>"  # noqa: E501


def double_buffered(stop: str = "v4") -> str:
    """PTOAS v0.57's C++ (``--enable-insert-sync``) of a loop loading into slot ``i % 2`` of a
    two-slot multi-buffer (``pto.alloc_multi_tile`` / ``pto.multi_tile_get %mb[%k]``),
    exponentiating into slot ``i % 2`` of another and storing it: its sync names the event by
    a variable computed from ``i % 2``."""
    return (
        'extern "C" __global__ AICORE void db(__gm__ float* v1, __gm__ float* v2, int64_t n) {\n'
        "  const int64_t v3 = 64;\n  const int64_t v4 = 8;\n  const int64_t v5 = 32;\n"
        "  const int64_t v6 = 2;\n  const int64_t v7 = 1;\n  const int64_t v8 = 0;\n"
        "  const int64_t v9 = 16384;\n  const int64_t v10 = 8192;\n  const int64_t v11 = 24576;\n"
        "  #if defined(__DAV_VEC__)\n"
        "  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);\n"
        "  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);\n  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);\n"
        f"  for (int64_t i12 = v8; i12 < {stop}; i12 += v7) {{\n"
        "    int64_t v13 = (int64_t) ((uint64_t) i12 % (uint64_t) v6);\n"
        "    bool v14 = v13 == v7;\n"
        f"    {VEC_TILE} v15;\n    {VEC_TILE} v16 = v15;\n"
        "    uint64_t v17 = (uint64_t) (v14 ? v9 : v8);\n    TASSIGN(v16, v17);\n"
        f"    {VEC_TILE} v18;\n    {VEC_TILE} v19 = v18;\n"
        "    uint64_t v20 = (uint64_t) (v14 ? v11 : v10);\n    TASSIGN(v19, v20);\n"
        "    int64_t v21 = (int64_t) ((uint64_t) i12 * (uint64_t) v5);\n"
        f"    {GM_TENSOR} v24 = {GM_TENSOR}(v1 + (v8 + v21 * v3), v22, v23);\n"
        "    int64_t v25 = (int64_t) ((uint64_t) v13 % (uint64_t) v6) == v7 ? v7 : v8;\n"
        "    event_t v26 = (event_t) v25;\n"
        "    wait_flag(PIPE_V, PIPE_MTE2, v26);\n"
        "    TLOAD(v16, v24);\n"
        "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
        "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
        "    event_t v27 = (event_t) v25;\n"
        "    wait_flag(PIPE_MTE3, PIPE_V, v27);\n"
        "    pipe_barrier(PIPE_V);\n"
        "    TEXP(v19, v16);\n"
        "    event_t v28 = (event_t) v25;\n"
        "    set_flag(PIPE_V, PIPE_MTE2, v28);\n"
        "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n"
        f"    {GM_TENSOR} v31 = {GM_TENSOR}(v2 + (v8 + v21 * v3), v29, v30);\n"
        "    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n"
        "    pipe_barrier(PIPE_MTE3);\n"
        "    TSTORE(v31, v19);\n"
        "    event_t v32 = (event_t) v25;\n"
        "    set_flag(PIPE_MTE3, PIPE_V, v32);\n"
        "  }\n"
        "  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);\n"
        "  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);\n  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);\n"
        "  #endif // __DAV_VEC__\n"
        "  ptoas_auto_sync_tail(PTOAutoSyncTailMode::kBarrierAll);\n  return;\n}\n"
    )


def db_findings(cpp: str) -> list[tuple[str, str]]:
    return sorted((d.code, d.message) for d in verify_cpp(cpp, "", [], {"db": SPAN}))


def test_a_dynamic_event_id_stands_for_each_of_its_values() -> None:
    cpp = double_buffered()
    assert db_findings(cpp) == []
    [function] = kernel_functions(cpp)
    reader = CppStreamReader(function, "__DAV_VEC__", lambda _: SPAN)
    assert reader.unknown == []
    [loop] = [n for n in reader.nodes if isinstance(n, Loop)]
    assert loop.trips == 4  # eight iterations: four of the two copies
    waits = [n.key for n in loop.body if isinstance(n, WaitInstr) and n.key.signal is PipeType.V]
    assert [(k.wait, k.event) for k in waits] == [
        (PipeType.MTE2, 0),
        (PipeType.MTE3, 0),
        (PipeType.MTE2, 1),
        (PipeType.MTE3, 0),
    ]
    loads = [n for n in loop.body if isinstance(n, OpInstr) and n.pipe is PipeType.MTE2]
    assert [load.access.writes for load in loads] == [
        (Region("Vec", 0, 8192),),  # slot 0, then slot 1
        (Region("Vec", 16384, 24576),),
    ]


def test_a_trip_count_the_period_does_not_divide_and_an_unknown_one() -> None:
    for stop, full, left in (("v4", 4, 0), ("7", 3, 1), ("1", 0, 1)):
        cpp = double_buffered(stop)
        assert db_findings(cpp) == [], stop
        [function] = kernel_functions(cpp)
        nodes = CppStreamReader(function, "__DAV_VEC__", lambda _: SPAN).nodes
        loops = [n for n in nodes if isinstance(n, Loop)]
        assert [loop.trips for loop in loops] == ([full] if full else []), stop
        after = nodes[nodes.index(loops[0]) + 1 :] if loops else nodes[4:]
        loads = [n for n in after if isinstance(n, OpInstr) and n.pipe is PipeType.MTE2]
        assert len(loads) == left, stop
    unknown = double_buffered("n")
    assert db_findings(unknown) == []
    [function] = kernel_functions(unknown)
    nodes = CppStreamReader(function, "__DAV_VEC__", lambda _: SPAN).nodes
    loop = next(n for n in nodes if isinstance(n, Loop))
    assert loop.trips is None
    stop_after_one = nodes[nodes.index(loop) + 1]  # the iterations may stop after slot 0
    assert isinstance(stop_after_one, Branch) and stop_after_one.orelse == ()


V_MTE2_RACE = (
    "E410",
    "MTE2 overwrites Vec [0x0, 0x2000), which V read at line 3, and no sync orders them "
    "(write after read): a V→MTE2 set/wait pair is missing",
)
MTE3_V_RACE = (
    "E410",
    "V overwrites Vec [0x2000, 0x4000), which MTE3 read at line 3, and no sync orders them "
    "(write after read): a MTE3→V set/wait pair is missing",
)


@pytest.mark.parametrize(
    ("dropped", "expected"),
    [
        (
            "    wait_flag(PIPE_V, PIPE_MTE2, v26);\n",
            [
                V_MTE2_RACE,
                (
                    "E413",
                    "set_flag sets V→MTE2 event 0 again while it is in flight (set at line 3, "
                    "not yet waited for)",
                ),
            ],
        ),
        (
            "    set_flag(PIPE_V, PIPE_MTE2, v28);\n",
            [
                V_MTE2_RACE,
                (
                    "E415",
                    "wait_flag of V→MTE2 event 0 can never be satisfied: no set_flag of it is in "
                    "flight and none follows, so MTE2 waits forever (deadlock)",
                ),
            ],
        ),
        (
            "    wait_flag(PIPE_MTE3, PIPE_V, v27);\n",
            [
                MTE3_V_RACE,
                (
                    "E413",
                    "set_flag sets MTE3→V event 0 again while it is in flight (set at line 3, "
                    "not yet waited for)",
                ),
            ],
        ),
        (
            "  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);\n",
            [
                (
                    "E412",
                    "wait_flag of V→MTE2 event 1 comes before its set_flag: no set of this event "
                    "is in flight here",
                )
            ],
        ),
        (
            "  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);\n",
            [
                (
                    "E412",
                    "set_flag of V→MTE2 event 1 is never waited for: no wait_flag of it follows "
                    "on every path",
                )
            ],
        ),
    ],
)
def test_a_dropped_dynamic_set_or_wait_is_reported(
    dropped: str, expected: list[tuple[str, str]]
) -> None:
    cpp = double_buffered()
    assert cpp.count(dropped) == 1
    assert db_findings(cpp.replace(dropped, "")) == expected


def test_an_event_id_not_decided_by_the_residue_is_not_understood() -> None:
    cpp = double_buffered().replace("event_t v26 = (event_t) v25;", "event_t v26 = (event_t) i12;")
    found = db_findings(cpp)
    assert (
        "W410",
        "the sync check did not understand 1 statement(s) of PTOAS's C++ for 'db': line 31 "
        "`wait_flag(PIPE_V, PIPE_MTE2, v26)` (a wait_flag whose event id v26 is not known); "
        "the rest of it was checked",
    ) in found


def test_scalar_expressions_of_ptoas() -> None:
    constants = {"v6": Value(2), "v7": Value(1), "v8": Value(0), "i": Value(5, Known.CONGRUENT)}

    def value(text: str, period: int = 2) -> Value | None:
        return evaluate(text, constants.get, period)

    assert value("(int64_t) ((uint64_t) i % (uint64_t) v6)") == Value(1)
    assert value("(int64_t) ((uint64_t) i % (uint64_t) v6) == v7 ? v7 : v8") == Value(1)
    assert value("(uint64_t) (v7 == v8 ? 16384 : 8192)") == Value(8192)
    assert value("i * 32 + v7") == Value(161, Known.CONGRUENT)
    assert value("(i * 3 + v7) % v6") == Value(0)  # 16 % 2: the residue decides it
    assert value("i % 3") is None  # 3 does not divide the period
    assert value("i == v7") is None and value("i / v6") is None
    assert value("i % v6", period=0) is None and value("nope + 1") is None
    assert value("v7 +") is None and value("") is None


def test_a_loop_that_may_not_run_keeps_what_its_iterations_ordered() -> None:
    """After a loop of unknown trip count, the wait for the event its last iteration set
    orders that iteration's work: the zero-trip path, which did no such work, does not undo
    it (the paths are joined per pipe: a path that finished all of its V work claims nothing
    about the other's)."""
    body = (
        tile("a", 16, 0)
        + tile("b", 16, 4096)
        + "  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n"
        + "  for (int64_t j = c0; j < n; j += c1) {\n"
        + "    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n    TLOAD(a, g1);\n"
        + "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
        + "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
        + "    TEXP(b, a);\n    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n  }\n"
        + "  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n  TLOAD(a, g1);\n"
    )
    assert check(body) == []
    unordered = body.replace("  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);\n  TLOAD", "  TLOAD")
    assert sorted(d.code for d in check(unordered)) == ["E410", "E412"]
