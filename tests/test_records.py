"""ptoc.records: record classes behave as the standard dataclasses they replace."""

from __future__ import annotations

import ast
import copy
import dataclasses
import pickle
from pathlib import Path
from typing import ClassVar

import pytest

from ptoc import records
from ptoc.records import FrozenInstanceError, field, record


@record(frozen=True, slots=True, eq=False)
class Node:
    kind: str
    span: int = field(default=-1, kw_only=True)


@record(frozen=True, slots=True, eq=False)
class Leaf(Node):
    value: int = 0
    tags: tuple[str, ...] = ()
    LABEL: ClassVar[str] = "leaf"


@record(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0


@record(frozen=True)
class Version:
    major: int
    minor: int = 0


@record
class Bag:
    name: str
    items: list[int] = field(default_factory=list)
    note: str = field(default="", repr=False)


# The same classes declared with the standard decorator, to compare against.
@dataclasses.dataclass(frozen=True, slots=True)
class StdPoint:
    x: int
    y: int = 0


@dataclasses.dataclass
class StdBag:
    name: str
    items: list[int] = dataclasses.field(default_factory=list)
    note: str = dataclasses.field(default="", repr=False)


def test_defaults_and_keyword_only_fields_follow_the_positional_ones() -> None:
    leaf = Leaf("c", 3, span=7)
    assert (leaf.kind, leaf.value, leaf.tags, leaf.span) == ("c", 3, (), 7)
    assert Leaf("c").span == -1
    with pytest.raises(TypeError, match="positional argument"):
        Leaf("c", 3, (), 7)  # type: ignore[misc]
    assert [f.name for f in records.fields(Leaf)] == ["kind", "span", "value", "tags"]
    assert records.fields(Leaf)[2].type == "int"  # the annotation, as written
    assert Leaf.__match_args__ == ("kind", "value", "tags")


def test_a_default_factory_gives_each_instance_its_own_value() -> None:
    a, b = Bag("a"), Bag("b")
    a.items.append(1)
    assert (a.items, b.items) == ([1], [])
    assert Bag("c", [2]).items == [2]


def test_repr_matches_the_standard_one() -> None:
    assert repr(Point(1, 2)) == repr(StdPoint(1, 2)).replace("StdPoint", "Point")
    assert repr(Bag("a", [1], note="hidden")) == "Bag(name='a', items=[1])"
    assert repr(Bag("a", [1])) == repr(StdBag("a", [1])).replace("StdBag", "Bag")
    assert repr(Leaf("c", 3, span=7)) == "Leaf(kind='c', span=7, value=3, tags=())"


def test_a_class_keeps_its_own_repr_and_a_subclass_gets_the_generated_one() -> None:
    @record(frozen=True, slots=True, eq=False)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    @record(frozen=True, slots=True, eq=False)
    class Tagged(Named):
        tag: str = ""

    assert repr(Named("n")) == "<n>"
    assert repr(Tagged("n", "t")).endswith("<locals>.Tagged(name='n', tag='t')")


def test_a_cycle_in_repr_is_cut() -> None:
    bag = Bag("loop")
    bag.items.append(bag)  # type: ignore[arg-type]
    assert repr(bag) == "Bag(name='loop', items=[...])"


def test_frozen_records_refuse_assignment_and_deletion() -> None:
    point = Point(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'x'"):
        del point.x  # type: ignore[misc]
    version = Version(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'other'"):
        version.other = 2  # type: ignore[attr-defined]
    assert isinstance(FrozenInstanceError(), AttributeError)


def test_slots_records_have_no_instance_dict() -> None:
    assert not hasattr(Point(1), "__dict__")
    assert Point.__slots__ == ("x", "y")
    assert Leaf.__slots__ == ("value", "tags")  # the inherited fields keep the base's slots
    assert Leaf.LABEL == "leaf"


def test_equality_and_hashing() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert hash(Point(1, 2)) == hash(StdPoint(1, 2)) == hash((1, 2))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != StdPoint(1, 2)  # another class: never equal
    assert hash(Version(3)) == hash((3, 0))
    one = Leaf("c")
    assert one != Leaf("c") and one == one  # eq=False: identity
    assert hash(one) == object.__hash__(one)
    assert Bag("a") == Bag("a")
    assert Bag.__hash__ is None  # mutable and compared by value: unhashable
    with pytest.raises(TypeError, match="unhashable"):
        hash(Bag("a"))


def test_a_class_keeps_its_own_eq_and_hash() -> None:
    @record(frozen=True, slots=True)
    class Loose:
        value: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Loose) and abs(self.value - other.value) < 2

        def __hash__(self) -> int:
            return 0

    assert Loose(1) == Loose(2)
    assert hash(Loose(5)) == 0


def test_replace_builds_a_new_record_through_init() -> None:
    point = Point(1, 2)
    moved = records.replace(point, y=5)
    assert (moved, point) == (Point(1, 5), Point(1, 2))
    leaf = records.replace(Leaf("c", 3, span=7), value=4)
    assert (leaf.kind, leaf.value, leaf.span) == ("c", 4, 7)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        records.replace(point, z=1)
    with pytest.raises(TypeError, match="StdPoint is not a record class"):
        records.replace(StdPoint(1))


def test_records_pickle_and_copy() -> None:
    leaf = Leaf("c", 3, ("a",), span=7)
    back = pickle.loads(pickle.dumps(leaf))
    assert (back.kind, back.value, back.tags, back.span) == ("c", 3, ("a",), 7)
    assert pickle.loads(pickle.dumps(Point(1, 2))) == Point(1, 2)
    assert pickle.loads(pickle.dumps(Version(1, 2))) == Version(1, 2)
    assert pickle.loads(pickle.dumps(Bag("a", [1]))) == Bag("a", [1])
    duplicate = copy.copy(leaf)
    assert duplicate is not leaf and duplicate.tags is leaf.tags


def test_class_patterns_match_positional_fields() -> None:
    match Leaf("c", 3):
        case Leaf("c", value):
            assert value == 3
        case _:
            pytest.fail("no match")


def test_a_plain_subclass_inherits_the_record_init() -> None:
    @record(frozen=True, slots=True)
    class Base:
        value: int

    class Plain(Base):
        pass

    assert Plain(4).value == 4  # the first call compiles Base's __init__
    assert Base(5).value == 5


def test_post_init_runs_after_the_fields_are_set() -> None:
    @record
    class Checked:
        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    assert Checked(1).value == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_declaration_errors() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Misordered:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Shared:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="cannot inherit frozen record"):

        @record(frozen=True)
        class Frozen(Bag):
            pass

    with pytest.raises(ValueError, match="both default and default_factory"):
        field(default=1, default_factory=int)


def test_the_compiler_declares_no_standard_dataclass() -> None:
    """What keeps the command line's start-up cheap (and a records class cannot extend a
    dataclass or be extended by one): no module of compiler/ptoc imports dataclasses."""
    root = Path(records.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if "dataclasses" in names:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []


def test_keyword_only_fields_may_be_required_and_names_are_free() -> None:
    @record(frozen=True, slots=True)
    class Odd:
        _setattr: int  # the names init's own code uses are fields like any other
        _f1: str = "x"
        _FACTORY: list[int] = field(default_factory=list)
        needed: int = field(kw_only=True)

    odd = Odd(1, needed=2)
    assert (odd._setattr, odd._f1, odd._FACTORY, odd.needed) == (1, "x", [], 2)
    assert Odd(1, "y", [3], needed=4) == Odd(_setattr=1, _f1="y", _FACTORY=[3], needed=4)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'needed'"):
        Odd(1)  # type: ignore[call-arg]
