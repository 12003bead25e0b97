"""Structural equality and hashing of IR, ignoring spans and Var identity.

Two Vars are equal when they are bound at the same place of both trees: the first time a Var
is met (walking in ``children`` order, parameters first) it is paired with its counterpart.
With ``names=True`` (the default) variable and function names must match too, which is what
the formatter and the printer round trip need; ``names=False`` gives alpha-equivalence.
With ``index_as_int64=True`` 2026-08's INDEX dtype compares as the INT64 it was in 2026-03
(``ptoc upgrade`` proves a 2026-08 file lowers to the IR of its 2026-03 original).
"""

from __future__ import annotations

from typing import Any

from .dtype import DataType, index_as_int64
from .expr import Expr, Var
from .fields import layout
from .function import Function, Program
from .shape import dims_equal
from .stmt import Stmt
from .types import ScalarType, ShapedType, TileType, TileView, TupleType, Type
from .visitor import Node, children


class _Equal:
    def __init__(self, names: bool, index_as_int64: bool = False) -> None:
        self.names = names
        self.index_as_int64 = index_as_int64
        self.var_map: dict[int, Var] = {}
        self.reverse: dict[int, Var] = {}

    def dtypes(self, a: DataType, b: DataType) -> bool:
        if self.index_as_int64:
            return index_as_int64(a) is index_as_int64(b)
        return a is b

    def types(self, a: Type, b: Type) -> bool:
        if type(a) is not type(b):
            return False
        if isinstance(a, ScalarType) and self.index_as_int64:
            assert isinstance(b, ScalarType)
            return self.dtypes(a.dtype, b.dtype)
        if isinstance(a, ShapedType):
            assert isinstance(b, ShapedType)
            if not self.dtypes(a.dtype, b.dtype) or len(a.shape) != len(b.shape):
                return False
            if not all(self.dim(x, y) for x, y in zip(a.shape, b.shape, strict=True)):
                return False
            if a.memref != b.memref:
                return False
            if isinstance(a, TileType):
                assert isinstance(b, TileType)
                return (a.tile_view or TileView()) == (b.tile_view or TileView())
            return getattr(a, "layout", None) == getattr(b, "layout", None)
        if isinstance(a, TupleType):
            assert isinstance(b, TupleType)
            return len(a.types) == len(b.types) and all(
                self.types(x, y) for x, y in zip(a.types, b.types, strict=True)
            )
        return a == b

    def dim(self, a: Expr, b: Expr) -> bool:
        if isinstance(a, Var) and isinstance(b, Var):
            mapped = self.var_map.get(id(a))
            if mapped is not None:
                return mapped is b
        return dims_equal(a, b)

    def var(self, a: Var, b: Var) -> bool:
        if type(a) is not type(b):
            return False
        mapped = self.var_map.get(id(a))
        if mapped is not None:
            return mapped is b
        if id(b) in self.reverse:
            return False
        if self.names and a.name != b.name:
            return False
        if not self.types(a.type, b.type):
            return False
        self.var_map[id(a)] = b
        self.reverse[id(b)] = a
        return True

    def node(self, a: Node, b: Node) -> bool:
        if type(a) is not type(b):
            return False
        if isinstance(a, Var):
            assert isinstance(b, Var)
            if not self.var(a, b):
                return False
        elif isinstance(a, Expr):
            assert isinstance(b, Expr)
            if not self.types(a.type, b.type) or not self.attrs(a, b):
                return False
        elif isinstance(a, Function):
            assert isinstance(b, Function)
            if (a.name, a.func_type, a.level, a.role) != (b.name, b.func_type, b.level, b.role):
                return False
            if [a.direction(i) for i in range(len(a.params))] != [
                b.direction(i) for i in range(len(b.params))
            ]:
                return False
            if len(a.return_types) != len(b.return_types):
                return False
        elif isinstance(a, Program):
            assert isinstance(b, Program)
            return a.name == b.name and self.functions(a, b)
        elif isinstance(a, Stmt):
            if not self.attrs(a, b):
                return False
        ca, cb = children(a), children(b)
        if len(ca) != len(cb):
            return False
        if not all(self.node(x, y) for x, y in zip(ca, cb, strict=True)):
            return False
        if isinstance(a, Function):
            assert isinstance(b, Function)
            return all(
                self.types(x, y) for x, y in zip(a.return_types, b.return_types, strict=True)
            )
        return True

    def functions(self, a: Program, b: Program) -> bool:
        """A program's functions are a set: their order is the printer's (callees first), not
        a meaning."""
        fa, fb = _by_name(a), _by_name(b)
        return len(fa) == len(fb) and all(self.node(x, y) for x, y in zip(fa, fb, strict=True))

    def attrs(self, a: Any, b: Any) -> bool:
        """The fields that are not children (constants' values, call targets and attributes,
        operators, kinds), as the node's layout lists them."""
        return all(
            self.attr(getattr(a, name), getattr(b, name)) for name in layout(type(a)).attributes
        )

    def attr(self, a: Any, b: Any) -> bool:
        """One attribute (a call's keywords are pairs: a cast's target dtype is one)."""
        if not self.index_as_int64:
            return bool(a == b)
        if isinstance(a, DataType) and isinstance(b, DataType):
            return self.dtypes(a, b)
        if isinstance(a, tuple) and isinstance(b, tuple):
            return len(a) == len(b) and all(self.attr(x, y) for x, y in zip(a, b, strict=True))
        return bool(a == b)


def structural_equal(a: Node, b: Node, *, names: bool = True, index_as_int64: bool = False) -> bool:
    """Whether two trees are the same IR (module docstring); ``index_as_int64``: INDEX and
    INT64 compare equal (the two editions' index dtypes)."""
    return _Equal(names, index_as_int64).node(a, b)


def structural_hash(node: Node, *, names: bool = True) -> int:
    """A hash consistent with ``structural_equal`` (equal trees hash alike)."""
    parts: list[Any] = []
    _hash_parts(node, names, parts)
    return hash(tuple(parts))


def _hash_parts(n: Node, names: bool, parts: list[Any]) -> None:
    # (a module function: a nested one calling itself is a reference cycle, which kept the
    # parts of every hashed function alive until the next full collection, issue #33)
    parts.append(type(n).__name__)
    if isinstance(n, Var):
        parts.append(n.name if names else "")
    elif isinstance(n, Function):
        parts.append(n.name)  # its other attributes compare through normalisation
    elif not isinstance(n, Program):
        parts.extend(getattr(n, name) for name in layout(type(n)).attributes)
    for child in _by_name(n) if isinstance(n, Program) else children(n):
        _hash_parts(child, names, parts)


def _by_name(program: Program) -> list[Function]:
    return sorted(program.functions, key=lambda function: function.name)
