"""Which allocations move to their buffer's first use (codegen/pto/lifetimes.py): those that
a buffer of the same memory space is dead before, where PTOAS could reuse its memory."""

from __future__ import annotations

from ptoc.codegen.pto.emitter import Region
from ptoc.codegen.pto.lifetimes import Allocation, deferred, place


def allocation(name: str, space: str, line: int) -> Allocation:
    return Allocation(name, space, line, line + 1)


# The chain of fits_l0c_split_k in short: the K-loop's Right slice %3, then the second
# matmul's Right tile %9; %4 the Acc product, read once after the loop.
CHAIN = [
    allocation("%3", "right", 0),
    allocation("%4", "acc", 1),
    allocation("%9", "right", 2),
    allocation("%10", "acc", 3),
]
MENTIONS = [
    {"%3"},  # the first K slice's move
    {"%3", "%4", "%kk"},  # the K-loop
    {"%4", "%6"},  # the converting move Acc -> Mat
    {"%9", "%8"},  # the second matmul's move into Right
    {"%10", "%7", "%9"},  # the second matmul
]


def test_a_buffer_is_allocated_where_a_dead_one_of_its_space_could_give_it_memory() -> None:
    # %3 is dead after the loop (1) when %9 is first used (3); %4 is dead after the move
    # (2) when %10 is first used (4); %3 and %4 are live from the first statements.
    assert deferred(CHAIN, MENTIONS) == {"%9": 3, "%10": 4}


def test_buffers_of_other_spaces_dying_do_not_move_an_allocation() -> None:
    allocations = [allocation("%0", "vec", 0), allocation("%1", "mat", 1)]
    assert deferred(allocations, [{"%0"}, {"%1"}]) == {}


def test_buffers_live_together_keep_the_seeds_order() -> None:
    # load a, load b, c = a * b, store c (seed 002): nothing is dead before c is written
    allocations = [allocation(f"%{i}", "vec", i) for i in range(3)]
    assert deferred(allocations, [{"%0"}, {"%1"}, {"%0", "%1", "%2"}, {"%2"}]) == {}


def test_an_unused_buffer_stays_with_the_allocations() -> None:
    allocations = [allocation("%0", "vec", 0), allocation("%1", "vec", 1)]
    assert deferred(allocations, [{"%0"}, {"%7"}]) == {}


def test_the_allocation_goes_before_the_statement_after_its_blank_line() -> None:
    allocations_region = Region(4, lines=["%0 = A", "%1 = B"], spans=[None, None])
    body = Region(4, lines=["// One", "use %0", "", "// Two", "use %1"], spans=[None] * 5)
    place(
        allocations_region, [allocation("%0", "vec", 0), allocation("%1", "vec", 1)], body, [0, 2]
    )
    assert allocations_region.lines == ["%0 = A"]
    assert body.lines == ["// One", "use %0", "", "%1 = B", "// Two", "use %1"]
    assert len(body.spans) == len(body.lines)
