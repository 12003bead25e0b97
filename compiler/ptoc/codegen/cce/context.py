"""CodeContext: IR variable -> C++ name, and GlobalTensor name -> raw pointer (seed 000, section 2).

Names are sanitised to C++ identifiers and made unique among the names visible at the point of
declaration: a second, distinct IR variable that sanitises to a name already taken in an
enclosing scope gets a ``_1``, ``_2``... suffix (the front end gives each ``for i`` its own
Var, and sibling loops may both keep ``i`` because their scopes close in between).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from ...diagnostics import DiagnosticBag
from ...ir.expr import Expr, Var
from ...ir.span import Span
from ..common import CodegenError
from ..cpp_names import is_reserved
from .cpp_types import TypeConverter
from .declarations import Declarer, FollowOn
from .emitter import CodeEmitter

_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]")


@lru_cache(maxsize=4096)  # a pure function of the name, asked for every declared name
def sanitize_identifier(name: str) -> str:
    """A valid C++ identifier for ``name``: other characters become ``_``, a leading digit or
    an empty name gets a ``_`` prefix, a keyword or a name the generated code or pto-isa uses
    (``cpp_names.is_reserved``) gets a ``_`` suffix, or a ``v`` prefix when it starts with
    ``_`` (``__gm___`` would still be one of the implementation's names)."""
    text = _NOT_IDENT.sub("_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    if is_reserved(text):
        text = "v" + text if text.startswith("_") else text + "_"
    return text


class CodeContext:
    def __init__(self) -> None:
        self._names: dict[Var, str] = {}  # registered: usable in expressions
        self._chosen: dict[
            Var, str
        ] = {}  # picked by sanitize_name (declared, maybe not yet registered)
        self._pointers: dict[str, frozenset[str]] = {}
        self._scopes: list[set[str]] = [set()]

    # -- names -----------------------------------------------------------------------------

    def _taken(self, name: str) -> bool:
        for scope in self._scopes:
            if name in scope:
                return True
        return False

    def reserve(self, name: str) -> str:
        """Claim ``name`` (made unique) in the current scope, for names not tied to a Var."""
        candidate, n = name, 0
        while self._taken(candidate):
            n += 1
            candidate = f"{name}_{n}"
        self._scopes[-1].add(candidate)
        return candidate

    def sanitize_name(self, var: Var, suffix: str = "") -> str:
        """The C++ name for ``var`` (``SanitizeName``): sanitised, plus ``suffix``, unique in
        scope. Stable: asking again for the same Var gives the same name."""
        if var in self._chosen:
            return self._chosen[var]
        name = self.reserve(sanitize_identifier(var.name) + suffix)
        self._chosen[var] = name
        return name

    def register_var(self, var: Var, cpp_name: str) -> None:
        """Bind ``var`` to ``cpp_name`` (``RegisterVar``). Binding a Var twice is a bug."""
        if var in self._names:
            raise CodegenError(
                "E900",
                f"internal: variable '{var.name}' registered twice "
                f"(as '{self._names[var]}' and '{cpp_name}')",
                var.span,
            )
        self._names[var] = cpp_name
        self._chosen.setdefault(var, cpp_name)

    def is_registered(self, var: Var) -> bool:
        return var in self._names

    def get_var_name(self, var: Var) -> str:
        """The registered C++ name (``GetVarName``)."""
        name = self._names.get(var)
        if name is None:
            raise CodegenError(
                "E900", f"internal: variable '{var.name}' used before it is defined", var.span
            )
        return name

    # -- scopes ----------------------------------------------------------------------------

    def push_scope(self) -> None:
        self._scopes.append(set())

    def pop_scope(self) -> None:
        """Names declared in the closing C++ block become free again."""
        if len(self._scopes) > 1:
            self._scopes.pop()

    # -- pointers --------------------------------------------------------------------------

    def register_pointer(self, tensor_name: str, pointers: str | frozenset[str]) -> None:
        """``tensor_name`` (a GlobalTensor C++ name) addresses memory at raw pointer(s)
        ``pointers`` (``RegisterPointer``). Several pointers: it may alias either tensor."""
        self._pointers[tensor_name] = (
            frozenset({pointers}) if isinstance(pointers, str) else pointers
        )

    def pointers(self, tensor_name: str) -> frozenset[str]:
        return self._pointers.get(tensor_name, frozenset())

    def get_pointer(self, tensor_name: str) -> str | None:
        """The one raw pointer behind ``tensor_name`` (``GetPointer``); None when unknown or
        when it may be either of several."""
        found = self._pointers.get(tensor_name)
        if found is None or len(found) != 1:
            return None
        return next(iter(found))


class FunctionContext:
    """What generating one kernel shares between the function shell, the statements, the op
    lowerings and the expressions (``statements.py``, ``ops.py``, ``expressions.py``).

    ``known_reseated`` lists the raw pointers some load/store moves away from their base (found
    by a first run); ``None``: every access gets its TASSIGN. ``reseated`` collects them during
    this run, ``skipped_seats`` the pointers whose TASSIGN this run left out."""

    def __init__(self, known_reseated: frozenset[str] | None = None) -> None:
        self.out = CodeEmitter()
        self.names = CodeContext()
        self.types = TypeConverter()
        self.declarer = Declarer(self.names, self.types)
        self.bag = DiagnosticBag()
        self.reseated: set[str] = set()
        self.skipped_seats: set[str] = set()  # pointers of the TASSIGNs left out
        self.known_reseated = known_reseated
        self.yields: list[Expr] | None = None  # the yield_buffer_ of the innermost construct
        self.fallback_span: Span | None = None
        self.param_count = 0
        # Loop variables that count up from a non-negative start: // and % need no floor form.
        self.non_negative_vars: set[Var] = set()

    def report(self, error: CodegenError, span: Span | None = None) -> None:
        """Record ``error`` at its own span, else at ``span``, else at the function; the
        output gets a ``// error:`` line at that spot."""
        at = error.span
        for candidate in (span, self.fallback_span):
            if not at.is_known and candidate is not None:
                at = candidate
        if not isinstance(error, FollowOn):
            self.bag.error(error.code, error.message, at)
        self.out.emit_line("// error: " + " ".join(error.message.split()))

    def attempt(self, span: Span, lower: Callable[..., object], *args: Any) -> None:
        """``lower(*args)``, its lines attributed to ``span`` (when known); a CodegenError
        is reported there and generation goes on (``guard`` without a context manager's
        cost, for the statement and declaration loops)."""
        out = self.out
        saved = out.span
        if span.is_known:
            out.span = span
        try:
            lower(*args)
        except CodegenError as error:
            self.report(error, span)
        finally:
            out.span = saved

    @contextmanager
    def guard(self, span: Span) -> Iterator[None]:
        try:
            yield
        except CodegenError as error:
            self.report(error, span)
