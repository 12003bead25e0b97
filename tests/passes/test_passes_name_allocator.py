"""NameAllocator: the names it gives, and the work it does for a name reassigned many times
(a 2,000-``pl.submit`` orchestration reassigns its TaskIds and outputs 2,000 times)."""

from __future__ import annotations

from ptoc.passes.irutil import NameAllocator


class CountingSet(set[str]):
    """A set that counts the membership tests made on it."""

    tests = 0

    def __contains__(self, item: object) -> bool:
        CountingSet.tests += 1
        return super().__contains__(item)


def test_names_skip_taken_and_reserved_ones() -> None:
    names = NameAllocator(["x_1", "_t1"])
    assert [names.fresh("x") for _ in range(4)] == ["x", "x_2", "x_3", "x_4"]
    assert [names.temp() for _ in range(3)] == ["_t0", "_t2", "_t3"]
    names.taken.add("y_1")  # a pass may take a name itself (tensor_to_block does)
    assert [names.fresh("y") for _ in range(3)] == ["y", "y_2", "y_3"]
    names.reserved.add("x_5")  # FunctionNames reserves the function's names on first use
    assert names.fresh("x") == "x_6"
    assert names.fresh("x_6") == "x_6_1"


def test_a_name_given_n_times_costs_linear_work() -> None:
    names = NameAllocator()
    names.taken = CountingSet()
    names.reserved = CountingSet()
    CountingSet.tests = 0
    given = [names.fresh("out") for _ in range(2000)]
    assert given[:3] == ["out", "out_1", "out_2"] and given[-1] == "out_1999"
    assert len(set(given)) == 2000
    # each search starts where the last one for the name ended (it started at _1: ~2,000,000)
    assert CountingSet.tests < 10 * 2000
