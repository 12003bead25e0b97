"""Calls of registered operators (``pl.add``, ``pl.block.load``, ...): resolve the op, bind
and lower its arguments, and type the call with the op's rule."""

from __future__ import annotations

import ast
from enum import Enum

from ...diagnostics import Fix, Related, TextEdit, replacement_fixes
from ...ir.dtype import DTYPE_BY_NAME
from ...ir.expr import AttrValue, Call, Expr, Op, Var, make_tuple
from ...ir.function import FunctionType
from ...ir.span import Span
from ...ir.types import UNKNOWN, ScalarType, Type
from ...language import HELPER_NAMES, TYPE_NAMES
from ...ops import (
    REGISTRY,
    Category,
    EditionForm,
    OpDef,
    OpError,
    Param,
    ParamKind,
    Resolution,
    resolve_op,
)
from ...ops.renames import gone, meaning
from ...records import record
from ..analysis import Occurrence, OccurrenceKind
from ..consteval import NotConstant, dsl_enum_value
from .attributes import attr_value
from .core import Lowerer, error_value
from .helpers import lower_get_byte, lower_helper_call
from .names import constant_subscript
from .operators import lower_scalar_cast, scalar_binary

_OP_NAMESPACES = (
    (),
    ("block",),
    ("tile",),
    ("tensor",),
    ("op", "block"),
    ("op", "tensor"),
    ("system",),
    ("array",),
    ("prefetch",),
    ("op",),
)


def lower_dsl_call(lw: Lowerer, node: ast.Call, path: tuple[str, ...]) -> Expr:
    span = lw.span(node)
    head = path[-1]
    if len(path) == 1 and head in HELPER_NAMES:
        return lower_helper_call(lw, node, head)
    if path[0] == "pld":
        from .distributed import lower_pld_call  # (it imports this module)

        return lower_pld_call(lw, node, path)
    if len(path) == 2 and head == "get_byte" and path[0] in DTYPE_BY_NAME:
        return lower_get_byte(lw, node, path[0])
    if len(path) == 1 and head in TYPE_NAMES:
        lw.error("E011", f"pl.{head}(...) is a type, not a value", node.func)
        return error_value(span)
    namespace = path[:-1]
    if namespace not in _OP_NAMESPACES:
        lw.error("E300", f"Unknown operation namespace `{'.'.join(path[:-1])}`", node.func)
        return error_value(span)
    if namespace == ("op",):
        namespace = ()
    resolution = resolve_call(lw, node, namespace, head)
    name_span = (
        lw.env.source.attr_name_span(node.func)
        if isinstance(node.func, ast.Attribute)
        else lw.span(node.func)
    )
    if resolution.scalar_binary is not None:
        if len(node.args) != 2 or node.keywords:
            lw.error("E302", f"pl.{head} on scalars takes exactly two arguments", node)
            return error_value(span)
        lhs, rhs = lw.lower_expr(node.args[0]), lw.lower_expr(node.args[1])
        return scalar_binary(
            lw, resolution.scalar_binary, lhs, rhs, node, node.args[1], left_node=node.args[0]
        )
    if resolution.scalar_unary is not None:
        return lower_scalar_cast(lw, node)
    op = resolution.op
    if op is None:
        if resolution.code:
            fixes = replacement_fixes(name_span, resolution.suggestions)
            message = resolution.message or f"Unknown operation '{head}'"
            at = name_span if resolution.code == "E300" else node
            lw.error(resolution.code, message, at, fixes=fixes)
        for arg in node.args:
            peek_type(lw, arg)
        return error_value(span)
    if resolution.legacy and isinstance(node.func, ast.Attribute):
        # pl.op.block.X -> pl.block.X
        spelled = lw.env.source.segment(node.func)
        new = f"{spelled.split('.')[0]}.{op.namespace}.{head}"
        legacy_spelling(lw, f"legacy namespace `{spelled}`", lw.span(node.func), new)
    if not op.dsl_visible and not resolution.meant:
        lw.error("E301", f"'{op.name}' is internal and cannot be called from the DSL", name_span)
        return error_value(span)
    result = lower_op_call(lw, node, op, name_span)
    lw.occurrence(
        Occurrence(lw.span(node.func), head, OccurrenceKind.OP, result.type, op_name=op.name)
    )
    return result


def resolve_call(lw: Lowerer, node: ast.Call, namespace: tuple[str, ...], head: str) -> Resolution:
    """The op a call means: the spelling's op, or the op it means in the edition in force
    where the editions differ (``ops.renames.MEANINGS``)."""
    meanings = lw.env.rules.meanings
    meant = meaning("", head, True, meanings) if namespace == () else None
    if meant is not None:
        return Resolution(op=REGISTRY.ops[meant], code="", meant=True)
    first_types = [peek_type(lw, a) for a in node.args[:2]]
    resolution = resolve_op(namespace, head, first_types, lw.env.edition)
    op = resolution.op
    why = gone(head, meanings) if namespace == () and op is not None else None
    if why is not None:
        return Resolution(code="E310", message=f"pl.{head} {why}")
    meant = meaning(op.name, head, False, meanings) if op is not None else None
    if meant is not None:
        resolution.op, resolution.meant = REGISTRY.ops[meant], True
    return resolution


def legacy_spelling(lw: Lowerer, what: str, span: Span, new: str) -> None:
    """The W003 note on an older spelling, with the fix that writes the current one."""
    lw.error(
        "W003",
        f"{what}; the current spelling is `{new}`",
        span,
        fixes=(Fix(f"Rewrite as `{new}`", (TextEdit(span, new),), preferred=True),),
    )


def peek_type(lw: Lowerer, node: ast.expr) -> Type:
    """The type of a positional argument for dispatch; attribute-like arguments (dtypes,
    strings, enums) have none and are not lowered as values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return UNKNOWN
    path = lw.path(node) if isinstance(node, ast.Attribute | ast.Name) else None
    if path is not None and dsl_enum_value(path) is not None:
        return UNKNOWN
    if isinstance(node, ast.Name) and node.id not in lw.state.scope and node.id in DTYPE_BY_NAME:
        return UNKNOWN
    if isinstance(node, ast.Subscript) and constant_subscript(lw, node):
        try:  # CFG["dtype"]: an attribute value, not an operand
            value = lw.env.consts.evaluate(node)
        except NotConstant:
            value = None
        if isinstance(value, Enum):  # a dtype, memory space, layout ...
            return UNKNOWN
    return lw.lower_expr(node).type


def bind_arguments(
    node: ast.Call, params: tuple[Param, ...]
) -> tuple[dict[str, ast.expr], list[str]]:
    """Bind call arguments to parameters like Python does. Returns (bound, problems)."""
    bound: dict[str, ast.expr] = {}
    problems: list[str] = []
    if len(node.args) > len(params):
        problems.append("too_many")
    for param, arg in zip(params, node.args, strict=False):
        bound[param.name] = arg
    names = [p.name for p in params]
    for keyword in node.keywords:
        if keyword.arg is None:
            problems.append("starstar")
            continue
        if keyword.arg not in names:
            problems.append(f"unknown:{keyword.arg}")
            continue
        if keyword.arg in bound:
            problems.append(f"dup:{keyword.arg}")
            continue
        bound[keyword.arg] = keyword.value
    for param in params:
        if param.required and param.name not in bound:
            problems.append(f"missing:{param.name}")
    return bound, problems


def report_binding(
    lw: Lowerer,
    node: ast.Call,
    op: OpDef,
    problems: list[str],
    params: tuple[Param, ...] | None = None,
) -> None:
    """E302 for each problem of binding the call to ``params`` (default: the op's own)."""
    params = op.params if params is None else params
    for problem in problems:
        kind, _, key = problem.partition(":")
        if kind == "too_many":
            extra = node.args[len(params)]
            lw.error(
                "E302",
                f"{op.name} takes at most {len(params)} positional argument(s), "
                f"got {len(node.args)}; "
                f"signature: {op.signature()}",
                lw.span(extra).merge(lw.span(node.args[-1])),
            )
        elif kind == "starstar":
            lw.error("E302", "**kwargs is not supported in op calls", node)
        elif kind == "unknown":
            unknown_keyword(lw, node, op, key, params)
        elif kind == "dup":
            keyword = next(k for k in node.keywords if k.arg == key)
            lw.error("E302", f"{op.name} got multiple values for argument '{key}'", keyword)
        elif kind == "missing":
            lw.error(
                "E302",
                f"{op.name} is missing required argument '{key}'; signature: {op.signature()}",
                node,
            )


def unknown_keyword(
    lw: Lowerer, node: ast.Call, op: OpDef, key: str, params: tuple[Param, ...]
) -> None:
    keyword = next(k for k in node.keywords if k.arg == key)
    names = [p.name for p in params]
    import difflib  # only for a misspelt name: not at start-up

    matches = difflib.get_close_matches(key, names, n=1, cutoff=0.5)
    source = lw.env.source
    column = source.char_column(keyword.lineno, keyword.col_offset)
    kw_span = Span(source.path, keyword.lineno, column, keyword.lineno, column + len(key))
    fixes = replacement_fixes(kw_span, matches)
    hint = f"; did you mean '{matches[0]}'?" if matches else f"; parameters: {', '.join(names)}"
    lw.error(
        "E302",
        f"{op.name} got an unexpected keyword argument '{key}'{hint}",
        kw_span,
        fixes=fixes,
    )


def lower_op_call(lw: Lowerer, node: ast.Call, op: OpDef, name_span: Span) -> Expr:
    span = lw.span(node)
    if (
        op.category is Category.BLOCK
        and lw.signature.func_type is FunctionType.Orchestration
        and not lw.state.incore_scopes
    ):
        lw.error(
            "W024",
            f"{op.name} in the Orchestration function '{lw.signature.name}' is "
            "not executed: code generation emits block ops only in InCore code; move it "
            "into an InCore function or a `with pl.incore():` block",
            name_span,
        )
    chosen = choose_form(lw, node, op)
    if chosen.problems:
        report_binding(lw, node, op, chosen.problems, chosen.params)
        for arg in node.args:
            peek_type(lw, arg)
        return error_value(span)
    lowered = lower_arguments(lw, op, chosen.params, chosen.bound)
    if lowered is None:
        return error_value(span)
    arg_nodes, exprs, attrs = lowered
    if chosen.legacy and op.legacy is not None:
        exprs = op.legacy.convert(exprs)
        legacy_call_note(lw, node, op)
    form = chosen.form
    if form is not None:
        edition_meaning_note(lw, form, chosen.bound)
        exprs = form.convert(exprs)
        op = REGISTRY.ops[form.op_for(exprs)] if form.op_for is not None else op
        unmodelled_attributes(lw, node, op, form, attrs)
        unmodelled_values(lw, op, form, chosen.bound, attrs)
        attrs = with_form_defaults(op, form, attrs)
    return typed_call(lw, op, arg_nodes, exprs, attrs, span)


def with_form_defaults(
    op: OpDef, form: EditionForm, attrs: dict[str, AttrValue]
) -> dict[str, AttrValue]:
    """An attribute the call leaves out takes its form's default where the edition's default
    is not the op's (2026-08's ``fillpad`` pads with zeros; 2026-03's with the tile view's
    pad)."""
    filled = dict(attrs)
    for param in form.params:
        if param.kind is not ParamKind.ATTR or param.required or param.name in filled:
            continue
        own = op.param(param.name)
        if own is not None and own.kind is ParamKind.ATTR and own.default != param.default:
            filled[param.name] = param.default
    return filled


@record
class ChosenForm:
    """The parameters a call binds: the op's own, an edition's form or its legacy form."""

    params: tuple[Param, ...]
    bound: dict[str, ast.expr]
    problems: list[str]
    form: EditionForm | None = None
    legacy: bool = False


def choose_form(lw: Lowerer, node: ast.Call, op: OpDef) -> ChosenForm:
    """The first form the call's arguments fit: the edition in force's own forms, the op's
    parameters, the other edition's forms, the legacy form. Without one, the op's parameters
    and what is wrong with the call by them."""
    edition = lw.env.rules.meanings
    head = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    forms = [f for f in op.edition_forms if form_spelled_as(op, f, head)]
    own = [f for f in forms if f.edition is edition]
    other = [f for f in forms if f.edition is not edition]
    canonical: ChosenForm | None = None
    exclusive = any(f.exclusive for f in own)
    for form in (*own, None, *other):
        if exclusive and (form is None or form not in own):
            break
        params = op.params if form is None else form.params
        bound, problems = bind_arguments(node, params)
        chosen = ChosenForm(params, bound, problems, form)
        if form is None or (exclusive and canonical is None):
            canonical = chosen
        if not problems and fits(bound, params):
            return chosen
    if op.legacy is not None:
        bound, problems = bind_arguments(node, op.legacy.params)
        if not problems:
            return ChosenForm(op.legacy.params, bound, [], legacy=True)
    assert canonical is not None
    return canonical


def form_spelled_as(op: OpDef, form: EditionForm, head: str) -> bool:
    """Whether a call spelled ``head`` may take ``form``: a form named for a spelling takes
    that one; another is the op's own name's, not a name its edition gave the op (2026-08's
    ``slice`` is 2026-03's window ``view``, while its ``view`` reinterprets), as the printer
    reads them."""
    if form.spelled is not None:
        return form.spelled == head
    return (head, form.edition) not in op.edition_names


def fits(bound: dict[str, ast.expr], params: tuple[Param, ...]) -> bool:
    """A list literal where a form wants a tensor or a tile is the other form's shape list
    (2026-03's ``store(tile, offsets, shapes, out)`` against 2026-08's ``store(tile,
    offsets, out)``); a number where it wants a list is another form's scalar."""
    for param in params:
        node = bound.get(param.name)
        if node is None:
            continue
        if param.accepts in (("tensor",), ("tile",)) and isinstance(node, ast.List | ast.Tuple):
            return False
        if param.accepts == ("shape",) and isinstance(node, ast.Constant):
            return False  # seed 004's positional window (row, col, height, width)
    return True


def edition_meaning_note(lw: Lowerer, form: EditionForm, bound: dict[str, ast.expr]) -> None:
    """W032 where an argument of the form means something else than in the other edition
    (2026-08's third argument of ``pl.tensor.view`` is a valid shape, not an offset)."""
    if form.meaning_note is None:
        return
    param, message = form.meaning_note
    node = bound.get(param)
    if node is not None:
        lw.error("W032", f"{message} ({form.edition.label} is in force)", node)


def unmodelled_attributes(
    lw: Lowerer, node: ast.Call, op: OpDef, form: EditionForm, attrs: dict[str, AttrValue]
) -> None:
    """An edition's form may take attributes the op does not model yet: said once, here (not
    for a value that is the form's default)."""
    defaults = {p.name: p.default for p in form.params}
    for name, value in attrs.items():
        param = op.param(name)
        keyword = next((k for k in node.keywords if k.arg == name), None)
        if value == defaults.get(name):
            continue
        if param is None and keyword is not None and value not in (None, False):
            lw.error(
                "W004",
                f"{op.name}: '{name}' is accepted but not modelled by ptoc: the IR, the "
                "interpreter and the generated code ignore it",
                keyword,
            )


def unmodelled_values(
    lw: Lowerer, op: OpDef, form: EditionForm, bound: dict[str, ast.expr], attrs: dict
) -> None:
    """Value arguments of an edition's form that ptoc reads but does not model (2026-08's
    ``slice(..., valid_shape=...)``): checked, then said once, here."""
    for name in form.unmodelled:
        given = bound.get(name)
        if name in attrs or given is None:
            continue
        if isinstance(given, ast.Constant) and given.value is None:
            continue
        window = bound.get("shapes") or bound.get("shape")
        if name == "valid_shape" and window is not None and ast.dump(window) == ast.dump(given):
            continue  # the whole window is valid: nothing is left out
        lw.error(
            "W004",
            f"{op.name}: '{name}' is accepted but not modelled by ptoc: the IR, the "
            "interpreter and the generated code ignore it",
            given,
        )


def lower_arguments(
    lw: Lowerer, op: OpDef, params: tuple[Param, ...], bound: dict[str, ast.expr]
) -> tuple[dict[str, ast.expr], dict[str, Expr], dict[str, AttrValue]] | None:
    """Values lowered as expressions, attributes evaluated at compile time (None: one failed)."""
    arg_nodes: dict[str, ast.expr] = {}
    exprs: dict[str, Expr] = {}
    attrs: dict[str, AttrValue] = {}
    failed = False
    for param in params:
        if param.name not in bound:
            continue
        arg_node = bound[param.name]
        arg_nodes[param.name] = arg_node
        if param.kind is ParamKind.ATTR:
            ok, value = attr_value(lw, arg_node, param, op)
            if not ok:
                failed = True
                continue
            attrs[param.name] = value
        else:
            lowered = lw.lower_expr(arg_node)
            if param.accepts == ("shape",) and isinstance(lowered, Var):
                lowered = lw.state.lists.get(lowered, lowered)  # `offs = [...]` read through
            if param.one_index and isinstance(lowered.type, ScalarType):
                lowered = make_tuple((lowered,), span=lowered.span)
            exprs[param.name] = lowered
    return None if failed else (arg_nodes, exprs, attrs)


def typed_call(
    lw: Lowerer,
    op: OpDef,
    arg_nodes: dict[str, ast.expr],
    exprs: dict[str, Expr],
    attrs: dict[str, AttrValue],
    span: Span,
) -> Call:
    warnings: list[OpError] = []
    try:
        result_type = op.deduce(
            exprs,
            attrs,
            warnings,
            lw.state.loop_ranges,
            lw.env.rules.meanings,
            symbols=lw.env.build_symbols,
        )
    except OpError as error:
        report_op_error(lw, error, arg_nodes, exprs, span)
        result_type = UNKNOWN
    for warning in warnings:
        report_op_error(lw, warning, arg_nodes, exprs, span)
    args = tuple(exprs[name] for name in op.expr_names if name in exprs)
    kwargs = op.canonical_kwargs(attrs)
    return Call(result_type, callee=Op(op.name), args=args, kwargs=kwargs, span=span)


def report_op_error(
    lw: Lowerer,
    error: OpError,
    arg_nodes: dict[str, ast.expr],
    exprs: dict[str, Expr],
    span: Span,
) -> None:
    """A type rule's error or warning, on the argument it names, with where that argument's
    value was defined."""
    at_node = arg_nodes.get(error.at) if error.at else None
    target: ast.AST | Span = at_node if at_node is not None else span
    related: tuple[Related, ...] = ()
    if at_node is not None:
        source_value = exprs.get(error.at or "")
        if (
            isinstance(source_value, Var)
            and source_value.span.is_known
            and source_value.span != lw.span(at_node)
        ):
            related = (
                Related(
                    source_value.span,
                    f"'{source_value.name}' is defined here as {source_value.type.short()}",
                ),
            )
    fixes: tuple[Fix, ...] = ()
    if at_node is not None and error.cast is not None:
        new = f"{lw.prefix}.cast({lw.env.source.segment(at_node)}, {lw.prefix}.{error.cast.name})"
        fixes = (Fix(f"Convert with `{new}`", (TextEdit(lw.span(at_node), new),)),)
    lw.error(error.code, error.message, target, related=related, fixes=fixes)


def legacy_call_note(lw: Lowerer, node: ast.Call, op: OpDef) -> None:
    """An op's legacy positional form (seed 004's load/store): suggest the current form,
    regrouping the arguments as the op's ``LegacyForm.regroup`` says."""
    seg = lw.env.source.segment
    args = list(node.args)
    legacy = op.legacy
    if legacy is None or not legacy.regroup or len(args) != len(legacy.params):
        return
    groups = [
        seg(args[g]) if isinstance(g, int) else "[" + ", ".join(seg(args[i]) for i in g) + "]"
        for g in legacy.regroup
    ]
    new_args = ", ".join(groups)
    arg_span = lw.span(args[0]).merge(lw.span(args[-1]))
    lw.error(
        "W003",
        f"legacy positional form of {op.name}; the current form is `({new_args})`",
        arg_span,
        fixes=(
            Fix(
                "Rewrite with offset and shape lists",
                (TextEdit(arg_span, new_args),),
                preferred=True,
            ),
        ),
    )
