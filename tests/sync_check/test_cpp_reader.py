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
from ptoc.passes.sync_check.stream import Branch, Loop, OpInstr, Region

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
