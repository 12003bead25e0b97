"""The integer value of a scalar expression of PTOAS's C++, as far as the reader knows it.

PTOAS states constants (``const int64_t v6 = 2;``) and computes from them with casts,
``+ - * / %``, comparisons and ``c ? a : b``. Inside a loop the reader unrolls by residue
(``cpp_stream``), the loop variable has a representative value that is right only modulo
the unrolling's period N: what is computed from it with ``+ - *`` is right modulo N too
(``CONGRUENT``), and becomes exact again under ``% M`` for a constant M dividing N (PTOAS's
slot and event selectors: ``(uint64_t) i12 % (uint64_t) v6``). Anything else computed from
it is not known.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import IntEnum

from ...records import record


class Known(IntEnum):
    EXACT = 0
    CONGRUENT = 1  # right modulo the unrolling's period only


@record(frozen=True, slots=True)
class Value:
    number: int
    known: Known = Known.EXACT


#: name -> its value (None: not known).
Lookup = Callable[[str], Value | None]

_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+)[uUlL]*|(?P<name>[A-Za-z_]\w*)|(?P<op>==|!=|<=|>=|[-+*/%()?:<>]))"
)


def tokens(text: str) -> list[str] | None:
    out: list[str] = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None:
            return None
        out.append(found["number"] or found["name"] or found["op"])
        position = found.end()
    return out


def evaluate(text: str, lookup: Lookup, period: int = 0) -> Value | None:
    """The value of ``text`` (None: not known); ``period``: the unrolling's N (0: none)."""
    found = tokens(text)
    if not found:
        return None
    parser = _Parser(found, lookup, period)
    try:
        value = parser.ternary()
    except _Unknown:
        return None
    return value if parser.at_end() else None


class _Unknown(Exception):
    pass


_COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}


class _Parser:
    def __init__(self, items: list[str], lookup: Lookup, period: int) -> None:
        self.items = items
        self.index = 0
        self.lookup = lookup
        self.period = period

    def at_end(self) -> bool:
        return self.index == len(self.items)

    def peek(self, offset: int = 0) -> str | None:
        at = self.index + offset
        return self.items[at] if at < len(self.items) else None

    def take(self, expected: str | None = None) -> str:
        item = self.peek()
        if item is None or (expected is not None and item != expected):
            raise _Unknown
        self.index += 1
        return item

    def ternary(self) -> Value:
        condition = self.comparison()
        if self.peek() != "?":
            return condition
        self.take("?")
        then = self.ternary()
        self.take(":")
        orelse = self.ternary()
        return then if self.exact(condition).number else orelse

    def comparison(self) -> Value:
        left = self.additive()
        while self.peek() in _COMPARISONS:
            compare = _COMPARISONS[self.take()]
            right = self.additive()
            left = Value(int(compare(self.exact(left).number, self.exact(right).number)))
        return left

    def additive(self) -> Value:
        left = self.multiplicative()
        while self.peek() in ("+", "-"):
            sign = self.take()
            right = self.multiplicative()
            number = left.number + right.number if sign == "+" else left.number - right.number
            left = Value(number, max(left.known, right.known))
        return left

    def multiplicative(self) -> Value:
        left = self.unary()
        while self.peek() in ("*", "/", "%"):
            operator = self.take()
            right = self.exact(self.unary()) if operator != "*" else self.unary()
            if operator == "*":
                left = Value(left.number * right.number, max(left.known, right.known))
            elif right.number == 0:
                raise _Unknown
            elif operator == "/":
                left = Value(self.exact(left).number // right.number)
            elif left.known is Known.CONGRUENT and (not self.period or self.period % right.number):
                raise _Unknown  # the residue modulo N does not decide this one
            else:
                left = Value(left.number % right.number)
        return left

    def unary(self) -> Value:
        if self.peek() == "-":
            self.take()
            value = self.unary()
            return Value(-value.number, value.known)
        if self.peek() == "(" and self.is_cast():
            self.index += 3
            return self.unary()
        return self.primary()

    def is_cast(self) -> bool:
        name, close, after = self.peek(1), self.peek(2), self.peek(3)
        return (
            name is not None
            and re.fullmatch(r"[A-Za-z_]\w*", name) is not None
            and close == ")"
            and after is not None
            and (after == "(" or re.fullmatch(r"\w+", after) is not None)
        )

    def primary(self) -> Value:
        item = self.take()
        if item == "(":
            value = self.ternary()
            self.take(")")
            return value
        if item.isdigit():
            return Value(int(item))
        found = self.lookup(item) if re.fullmatch(r"[A-Za-z_]\w*", item) else None
        if found is None:
            raise _Unknown
        return found

    def exact(self, value: Value) -> Value:
        if value.known is not Known.EXACT:
            raise _Unknown
        return value
