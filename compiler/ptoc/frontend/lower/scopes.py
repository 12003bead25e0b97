"""``with`` scopes: 2026-03's ``pl.incore()`` and 2026-08's ``pl.at(level=...)``, ``pl.scope``,
``pl.manual_scope``, ``pl.cluster`` and ``pl.spmd``.

An InCore scope (``pl.incore()``, ``pl.at(level=pl.Level.CORE_GROUP)``) becomes a ScopeStmt
that OutlineIncoreScopes turns into a kernel; the other scopes order or group work at run time
and leave their body in place. Whatever the scope, its body is always analysed: a scope that is
not understood is one diagnostic, never a skipped body.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...ir.dsl_enums import Level, Role, ScopeMode
from ...ir.expr import Expr, Var, const_int
from ...ir.span import NO_SPAN, Span
from ...ir.stmt import ScopeKind, ScopeStmt, Stmt
from ...ir.types import TASK_ID_TYPE, UnknownType
from ..analysis import Occurrence, OccurrenceKind
from ..consteval import NotConstant
from .attributes import attr_eval
from .core import Lowerer
from .tasks import is_task_dependency


class ScopeForm:
    """One scope helper: the keywords it takes, how many positionals, whether ``as x`` binds a
    task id, and whether its body is an InCore kernel (``incore`` reads the evaluated keywords)."""

    def __init__(
        self,
        keywords: tuple[str, ...],
        positionals: tuple[str, ...] = (),
        *,
        binds: bool = False,
        incore: Callable[[dict[str, object]], bool] = lambda _: False,
        check: Callable[[Lowerer, ast.Call, dict[str, object]], None] | None = None,
    ) -> None:
        self.keywords = keywords
        self.positionals = positionals
        self.binds = binds
        self.incore = incore
        self.check = check


_AT_KEYWORDS = (
    "level",
    "role",
    "optimizations",
    "name_hint",
    "deps",
    "no_dep_args",
    "dumps",
    "allow_early_resolve",
    "windowize",
)
_SPMD_KEYWORDS = (
    "core_num",
    "sync_start",
    "name_hint",
    "optimizations",
    "deps",
    "allow_early_resolve",
    "predicate",
)


def _check_at(lw: Lowerer, call: ast.Call, values: dict[str, object]) -> None:
    level, role = values.get("level"), values.get("role")
    keyword = {k.arg: k for k in call.keywords}
    if level is Level.CORE_GROUP and "role" in keyword:
        lw.error("E013", "pl.at(level=pl.Level.CORE_GROUP) takes no role=", keyword["role"])
    if "optimizations" in keyword and level is not Level.CORE_GROUP:
        lw.error(
            "E013",
            "optimizations= is only allowed at level=pl.Level.CORE_GROUP",
            keyword["optimizations"],
        )
    if isinstance(level, Level) and level.value >= Level.HOST.value and role is Role.SubWorker:
        lw.error(
            "E013",
            "a pl.at scope at HOST level or above cannot be a SubWorker: write a SubWorker "
            "function (@pl.function(level=..., role=pl.Role.SubWorker)) instead",
            call,
        )


#: The scope helpers by name (``pl.<name>(...)``).
SCOPES: dict[str, ScopeForm] = {
    "incore": ScopeForm((), incore=lambda _: True),
    "at": ScopeForm(
        _AT_KEYWORDS,
        ("level", "role"),
        binds=True,
        incore=lambda values: values.get("level") is Level.CORE_GROUP,
        check=_check_at,
    ),
    "scope": ScopeForm(("mode",), ("mode",)),
    "manual_scope": ScopeForm(()),
    "cluster": ScopeForm(("name_hint",), binds=True),
    "spmd": ScopeForm(_SPMD_KEYWORDS, ("core_num",), binds=True),
}


def lower_with(lw: Lowerer, node: ast.With) -> list[Stmt]:
    if len(node.items) != 1:
        lw.error(
            "E013",
            "Only one context manager is supported in a `with` statement",
            node.items[1].context_expr,
        )
    item = node.items[0]
    expr = item.context_expr
    name = scope_name(lw, expr)
    form = SCOPES.get(name) if name is not None else None
    if form is None or not isinstance(expr, ast.Call):
        known = ", ".join(f"pl.{n}()" for n in SCOPES)
        lw.error("E013", f"Unsupported context manager; the scopes are {known}", expr)
        return [*lower_body(lw, node, False)]
    values = scope_arguments(lw, expr, form, name or "")
    if form.check is not None:
        form.check(lw, expr, values)
    lw.occurrence(Occurrence(lw.span(expr.func), name or "", OccurrenceKind.HELPER, None))
    task_id = None
    if item.optional_vars is not None:
        task_id = bind_task_id(lw, item.optional_vars, form, name or "")
    elif name == "spmd":
        unbound_deps(lw, expr)
    deps = values.get("deps")
    hint = values.get("name_hint")
    written = next((k for k in expr.keywords if k.arg == "deps"), None)
    launch = Launch(
        deps if isinstance(deps, tuple) else (),
        task_id,
        hint if isinstance(hint, str) else "",
        lw.span(written) if written is not None else NO_SPAN,
    )
    if form.incore(values):
        return lower_body(lw, node, True, launch)
    kind = runtime_scope_kind(name or "", values)
    if kind is None:
        return lower_body(lw, node, False)
    core_num = spmd_width(lw, expr, values) if kind is ScopeKind.Spmd else None
    body = lw.lower_block(node.body)
    return [
        ScopeStmt(body, kind, core_num, *launch.fields(kind is ScopeKind.Spmd), span=lw.span(node))
    ]


class Launch:
    """What a ``pl.at`` / ``pl.spmd`` scope says of its launch: ``deps=``, ``as tid``, its name."""

    def __init__(
        self, deps: tuple[Expr, ...], task_id: Var | None, name_hint: str, deps_span: Span
    ) -> None:
        self.deps = deps
        self.task_id = task_id
        self.name_hint = name_hint
        self.deps_span = deps_span  # the ``deps=[...]`` keyword

    #: The fields of a scope that says nothing of its launch.
    NONE: tuple[tuple[Expr, ...], None, str, Span] = ((), None, "", NO_SPAN)

    def fields(self, kept: bool = True) -> tuple[tuple[Expr, ...], Var | None, str, Span]:
        if not kept:
            return Launch.NONE
        return (self.deps, self.task_id, self.name_hint, self.deps_span)


def runtime_scope_kind(name: str, values: dict[str, object]) -> ScopeKind | None:
    """The ScopeStmt kind a non-InCore scope is kept as (None: its body stands in place)."""
    if name == "manual_scope" or (name == "scope" and values.get("mode") is ScopeMode.MANUAL):
        return ScopeKind.Manual
    if name == "scope":
        return ScopeKind.Auto
    return ScopeKind.Spmd if name == "spmd" else None


def spmd_width(lw: Lowerer, call: ast.Call, values: dict[str, object]) -> Expr | None:
    width = values.get("core_num")
    if isinstance(width, int) and not isinstance(width, bool):
        return const_int(width, lw.env.rules.int_literal_dtype, span=lw.span(call))
    node = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == "core_num"), None)
    )
    return lw.lower_expr(node) if node is not None else None


def unbound_deps(lw: Lowerer, call: ast.Call) -> None:
    """Upstream: only ``with pl.spmd(n, deps=[...]) as tid:`` takes deps= (spec §7)."""
    for keyword in call.keywords:
        if keyword.arg == "deps":
            lw.error(
                "E226",
                "pl.spmd() does not accept 'deps=' here: bind the region with `as tid:`",
                keyword,
            )


def scope_name(lw: Lowerer, expr: ast.expr) -> str | None:
    if not isinstance(expr, ast.Call):
        return None
    path = lw.path(expr.func)
    return path[0] if path is not None and len(path) == 1 else None


def scope_arguments(lw: Lowerer, call: ast.Call, form: ScopeForm, name: str) -> dict[str, object]:
    """The keywords (and the positionals, by the names they stand for) evaluated where they are
    compile-time values; an unknown keyword or a surplus positional is an error, as upstream."""
    values: dict[str, object] = {}
    if len(call.args) > len(form.positionals):
        lw.error(
            "E013",
            f"pl.{name}() takes at most {len(form.positionals)} positional argument(s)",
            call.args[len(form.positionals)],
        )
    named = list(zip(form.positionals, call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in form.keywords:
            accepted = ", ".join(form.keywords) or "none"
            lw.error(
                "E013",
                f"pl.{name}() got an unexpected keyword argument '{keyword.arg}' "
                f"(keywords: {accepted})",
                keyword,
            )
            continue
        named.append((keyword.arg, keyword.value))
    for key, value in named:
        values[key] = scope_deps(lw, value) if key == "deps" else scope_value(lw, value)
    if name == "scope" and values.get("mode") not in (None, ScopeMode.AUTO, ScopeMode.MANUAL):
        lw.error("E013", "pl.scope(mode=...) takes pl.ScopeMode.AUTO or MANUAL", call)
    return values


def scope_value(lw: Lowerer, node: ast.expr) -> object:
    """A keyword's compile-time value; the other arguments (task ids in ``deps=``, a core
    count computed at run time, tensors named in ``dumps=``) are lowered as expressions so
    their names are checked and indexed."""
    try:
        return attr_eval(lw, node)
    except NotConstant:
        pass
    elements = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    for element in elements:
        if isinstance(element, ast.expr) and not isinstance(element, ast.Constant):
            if not (isinstance(element, ast.Call) and lw.path(element.func) is not None):
                lw.lower_expr(element)
    return None


def scope_deps(lw: Lowerer, node: ast.expr) -> tuple[Expr, ...]:
    """A scope's ``deps=[t1, None, arr]``: each entry lowered (its name checked and indexed);
    the TaskIds and TaskId arrays are kept for the task graph."""
    elements = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    deps: list[Expr] = []
    for element in elements:
        if isinstance(element, ast.Constant) or isinstance(element, ast.ListComp):
            continue
        value = lw.lower_expr(element)
        if is_task_dependency(value) and not isinstance(value.type, UnknownType):
            deps.append(value)
    return tuple(deps)


def bind_task_id(lw: Lowerer, target: ast.expr, form: ScopeForm, name: str) -> Var | None:
    if not form.binds or not isinstance(target, ast.Name):
        lw.error("E013", f"`with pl.{name}(...)` does not bind a name here", target)
        return None
    span = lw.span(target)
    lw.state.task_origins[span] = f"the TaskId of the `pl.{name}` region at line {span.line}"
    var = Var(TASK_ID_TYPE, name=target.id, span=span)
    lw.define(target.id, var, span, OccurrenceKind.VARIABLE)
    return var


def lower_body(
    lw: Lowerer, node: ast.With, incore: bool, launch: Launch | None = None
) -> list[Stmt]:
    if not incore:
        return [lw.lower_block(node.body)]
    lw.state.incore_scopes += 1
    try:
        body = lw.lower_block(node.body)
    finally:
        lw.state.incore_scopes -= 1
    fields = launch.fields() if launch is not None else Launch.NONE
    return [ScopeStmt(body, ScopeKind.InCore, None, *fields, span=lw.span(node))]
