"""Which allocations move to their buffer's first use (codegen/pto/lifetimes.py): in a memory
space whose buffers overflow it together, those that a buffer of the same space is dead
before, where PTOAS could reuse its memory."""

from __future__ import annotations

from pto_irb import tile_buf

from ptoc.codegen.pto.emitter import Region
from ptoc.codegen.pto.lifetimes import Allocation, crowded, deferred, place, tile_buf_bytes

KIB = 1024
CAPACITIES = {"vec": 192 * KIB, "left": 64 * KIB, "right": 64 * KIB, "acc": 128 * KIB}


def allocation(name: str, space: str, line: int, size: int = 16 * KIB) -> Allocation:
    return Allocation(name, space, size, line, line + 1)


# The chain of fits_l0c_split_k in short: the K-loop's Right slice %3 (64 KB), then the second
# matmul's Right tile %9 (16 KB); %4 the Acc product (64 KB), read once after the loop, %10
# the second product (32 KB).
CHAIN = [
    allocation("%3", "right", 0, 64 * KIB),
    allocation("%4", "acc", 1, 64 * KIB),
    allocation("%9", "right", 2, 16 * KIB),
    allocation("%10", "acc", 3, 32 * KIB),
]
MENTIONS = [
    {"%3"},  # the first K slice's move
    {"%3", "%4", "%kk"},  # the K-loop
    {"%4", "%6"},  # the converting move Acc -> Mat
    {"%9", "%8"},  # the second matmul's move into Right
    {"%10", "%7", "%9"},  # the second matmul
]


def test_only_a_space_its_buffers_overflow_together_is_crowded() -> None:
    assert crowded(CHAIN, CAPACITIES) == {"right"}  # 80 KB of 64; Acc: 96 KB of 128
    assert crowded(CHAIN, CAPACITIES, [tile_buf(128, 128, "f32", "acc")]) == {"right", "acc"}
    assert crowded(CHAIN[:2], CAPACITIES) == set()


def test_a_buffer_is_allocated_where_a_dead_one_of_its_space_could_give_it_memory() -> None:
    # %3 is dead after the loop (1) when %9 is first used (3); %3 is live from the first
    # statement. Acc is not crowded: %10 keeps its place.
    assert deferred(CHAIN, MENTIONS, {"right"}) == {"%9": 3}
    # %4 is dead after the move (2) when %10 is first used (4)
    assert deferred(CHAIN, MENTIONS, {"right", "acc"}) == {"%9": 3, "%10": 4}


def test_buffers_of_other_spaces_dying_do_not_move_an_allocation() -> None:
    allocations = [allocation("%0", "vec", 0), allocation("%1", "mat", 1)]
    assert deferred(allocations, [{"%0"}, {"%1"}], {"vec", "mat"}) == {}


def test_buffers_live_together_keep_the_seeds_order() -> None:
    # load a, load b, c = a * b, store c (seed 002): nothing is dead before c is written
    allocations = [allocation(f"%{i}", "vec", i) for i in range(3)]
    assert deferred(allocations, [{"%0"}, {"%1"}, {"%0", "%1", "%2"}, {"%2"}], {"vec"}) == {}


def test_an_unused_buffer_stays_with_the_allocations() -> None:
    allocations = [allocation("%0", "vec", 0), allocation("%1", "vec", 1)]
    assert deferred(allocations, [{"%0"}, {"%7"}], {"vec"}) == {}


def test_the_allocation_goes_before_the_statement_after_its_blank_line() -> None:
    allocations_region = Region(4, lines=["%0 = A", "%1 = B"], spans=[None, None])
    body = Region(4, lines=["// One", "use %0", "", "// Two", "use %1"], spans=[None] * 5)
    allocations = [allocation("%0", "vec", 0), allocation("%1", "vec", 1)]
    place(allocations_region, allocations, body, [0, 2], set())  # room for both: no move
    assert allocations_region.lines == ["%0 = A", "%1 = B"]
    place(allocations_region, allocations, body, [0, 2], {"vec"})
    assert allocations_region.lines == ["%0 = A"]
    assert body.lines == ["// One", "use %0", "", "%1 = B", "// Two", "use %1"]
    assert len(body.spans) == len(body.lines)


def test_a_tile_bufs_bytes_are_its_rows_times_its_columns_of_its_dtype() -> None:
    assert tile_buf_bytes(tile_buf(256, 128, "bf16", "right")) == 64 * KIB
    assert tile_buf_bytes(tile_buf(32, 32, "f32")) == 4 * KIB
    assert tile_buf_bytes(tile_buf(32, 32, "i8")) == KIB
    assert tile_buf_bytes(tile_buf(16, 4, "f32")) == 16 * 8 * 4  # rows of whole 32-byte blocks
