"""Builder functions: plain functions that define ``@pl.program`` classes and ``@pl.function``
functions from their parameters (``def build(n=16): @pl.program class P ...``). Their values
are known only when they run, so they are symbolic sizes while the definitions are analysed."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ..records import record
from .consteval import DynDim, NotConstant, parameter_defaults
from .context import FunctionSignature
from .signatures import Definition, decorator_name

if TYPE_CHECKING:
    from .module import ModuleAnalyzer


def builder_definitions(fn: ast.FunctionDef) -> list[ast.ClassDef | ast.FunctionDef]:
    """The @pl.program classes and @pl.function functions a plain (builder) function defines
    at the top of its body."""
    if any(decorator_name(d) in ("function", "inline", "program") for d in fn.decorator_list):
        return []
    found: list[ast.ClassDef | ast.FunctionDef] = []
    for node in fn.body:
        if isinstance(node, ast.ClassDef) and any(
            decorator_name(d) == "program" for d in node.decorator_list
        ):
            found.append(node)
        elif isinstance(node, ast.FunctionDef) and any(
            decorator_name(d) == "function" for d in node.decorator_list
        ):
            found.append(node)
    return found


def function_decorator(fn: ast.FunctionDef) -> ast.expr | None:
    """The `@pl.function` decorator of a definition, if it has one."""
    return next((d for d in fn.decorator_list if decorator_name(d) == "function"), None)


def lower_builder(
    analyzer: ModuleAnalyzer,
    builder: ast.FunctionDef,
    factories: dict[str, ast.FunctionDef] | None = None,
) -> None:
    """The programs and functions a builder function defines. Its parameters and non-constant
    locals, known only when it runs, are symbolic dimensions while they are analysed; the
    functions it defines, and those it has other builders make (``k = make_kernel(n)``,
    ``factories``), are callable by name from its programs, as at module level."""
    consts, env = analyzer.env.consts, analyzer.env
    saved = (
        dict(consts.values),
        dict(consts.definitions),
        analyzer.consts_fingerprint,
        analyzer.module_fingerprint,
        dict(env.external_functions),
        dict(env.function_aliases),
    )
    try:
        bind_builder_locals(analyzer, builder)
        made = made_functions(analyzer, builder, factories or {})
        env.build_symbols = frozenset(
            value.var
            for value in consts.values.values()
            if isinstance(value, DynDim) and value not in saved[0].values()
        )
        analyzer.fingerprint_constants()
        definitions = builder_definitions(builder)
        sigs = {
            definition.name: analyzer.signature(
                Definition(definition, function_decorator(definition))
            )
            for definition in definitions
            if isinstance(definition, ast.FunctionDef)
        }
        env.external_functions.update(made)
        env.external_functions.update(sigs)
        analyzer.fingerprint_module()
        for definition in definitions:
            if isinstance(definition, ast.ClassDef):
                analyzer.lower_program_class(definition)
                analyzer.result.built.add(definition.name)
                continue
            sig = sigs[definition.name]
            function = analyzer.lower(sig, {sig.name: sig})
            if function is not None:
                analyzer.result.functions.append(function)
                analyzer.result.built.add(function.name)
    finally:
        env.build_symbols = frozenset()
        consts.values, consts.definitions = saved[0], saved[1]
        analyzer.consts_fingerprint, analyzer.module_fingerprint = saved[2], saved[3]
        env.external_functions, env.function_aliases = saved[4], saved[5]


def parameters(builder: ast.FunctionDef) -> list[ast.arg]:
    arguments = builder.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def bind_builder_locals(
    analyzer: ModuleAnalyzer, builder: ast.FunctionDef, *, occurrences: bool = True
) -> None:
    """A builder's parameters and simple local assignments (``n = 2 * m``, ``a, b =
    shape_of(n)``), as constants or symbols. With ``builder_defaults``, a parameter takes
    the value its first call in the module passes, where that is constant (a literal, a
    module constant, a constant local of the caller), else its default; a value the call
    passes that is not constant keeps it symbolic."""
    consts = analyzer.env.consts
    defaults = parameter_defaults(builder) if analyzer.builder_defaults else {}
    call = analyzer.builder_calls.get(builder.name) if occurrences else None
    given = call_values(analyzer, builder, call) if call is not None else {}
    for arg in parameters(builder):
        span = analyzer.source.span(arg)
        if arg.arg in analyzer.sizes:
            consts.bind_value(arg.arg, analyzer.sizes[arg.arg], span)
            continue
        if arg.arg in given:
            value = given[arg.arg]
            if value is PASSED_UNKNOWN:
                consts.bind_symbolic(arg.arg, span)
            else:
                consts.bind_value(arg.arg, value, span)
            continue
        if arg.arg in defaults:
            consts.bind(arg.arg, defaults[arg.arg], span)
        if arg.arg not in consts.values or (occurrences and arg.arg not in defaults):
            consts.bind_symbolic(arg.arg, span)
    for node in builder.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            consts.bind(target.id, value, analyzer.source.span(target))
            names = [target]
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            consts.bind_targets(target, value, analyzer.source.span)
            names = [e for e in target.elts if isinstance(e, ast.Name)]
        else:
            continue
        for name in names:
            span = analyzer.source.span(name)
            if name.id in analyzer.sizes and name.id not in consts.values:
                consts.bind_value(name.id, analyzer.sizes[name.id], span)  # (a call's result)
            elif name.id not in consts.values:
                consts.bind_symbolic(name.id, span)
            if occurrences:
                analyzer.constant_occurrence(name.id, span)


#: A parameter the builder's call passes a value of that is not constant.
PASSED_UNKNOWN = object()


@record
class BuilderCall:
    """A builder's first call in the module, and the simple assignments before it in the
    function (or ``if __name__ == "__main__":`` block) around it."""

    call: ast.Call
    before: list[ast.Assign | ast.AnnAssign]


def builder_calls(tree: ast.Module, names: set[str]) -> dict[str, BuilderCall]:
    """The first call (in source order, outside the builders) of each named builder:
    ``build(n=8)``, not one through another name (``for b in (build,): b()`` takes the
    defaults)."""
    found: dict[str, BuilderCall] = {}
    for top in tree.body:
        if isinstance(top, ast.FunctionDef) and top.name in names:
            continue  # (a builder calling another passes its own symbols: ``made_functions``)
        assignments = [
            node
            for node in ast.walk(top)
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
        ]
        for node in ast.walk(top):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in names
                and node.func.id not in found
            ):
                continue
            before = [a for a in assignments if (a.lineno, a.col_offset) < _position(node)]
            before.sort(key=_position)
            found[node.func.id] = BuilderCall(node, before)
    return found


def _position(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def call_values(
    analyzer: ModuleAnalyzer, builder: ast.FunctionDef, found: BuilderCall
) -> dict[str, Any]:
    """The value the call passes each parameter (PASSED_UNKNOWN: not constant), read with
    the constant evaluator after the caller's simple assignments (never run)."""
    call = found.call
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return {}  # (``*args`` / ``**kwargs``: which parameter gets what is not read here)
    consts = analyzer.env.consts
    positional = [*builder.args.posonlyargs, *builder.args.args]
    given: dict[str, ast.expr] = {a.arg: v for a, v in zip(positional, call.args, strict=False)}
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    saved = dict(consts.values), dict(consts.definitions)
    values: dict[str, Any] = {}
    try:
        for assignment in found.before:
            if isinstance(assignment, ast.Assign) and len(assignment.targets) != 1:
                continue
            target = (
                assignment.targets[0] if isinstance(assignment, ast.Assign) else assignment.target
            )
            assert assignment.value is not None
            if isinstance(target, ast.Name | ast.Tuple | ast.List):
                consts.bind_targets(target, assignment.value, analyzer.source.span)
        for name, argument in given.items():
            try:
                value = consts.evaluate(argument)
            except NotConstant:
                value = PASSED_UNKNOWN
            values[name] = PASSED_UNKNOWN if isinstance(value, DynDim) else value
    finally:
        consts.values, consts.definitions = saved
    return values


def made_functions(
    analyzer: ModuleAnalyzer, builder: ast.FunctionDef, factories: dict[str, ast.FunctionDef]
) -> dict[str, FunctionSignature]:
    """``k = make_kernel(q_tile, n)`` in a builder, where ``make_kernel`` is a builder that
    defines a function and returns it: ``k`` calls that function, typed with the factory's
    parameters bound to the call's values (so its shapes are the caller's symbols)."""
    made: dict[str, FunctionSignature] = {}
    for node in builder.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id in factories
        ):
            continue
        factory = factories[node.value.func.id]
        function = returned_function(factory)
        if function is None:
            continue
        sig = made_signature(analyzer, factory, node.value, function)
        if sig is not None:
            made[function.name] = sig
            analyzer.env.function_aliases[node.targets[0].id] = function.name
    return made


def returned_function(factory: ast.FunctionDef) -> ast.FunctionDef | None:
    defined = {d.name: d for d in builder_definitions(factory) if isinstance(d, ast.FunctionDef)}
    for node in factory.body:
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            return defined.get(node.value.id)
    return None


def made_signature(
    analyzer: ModuleAnalyzer, factory: ast.FunctionDef, call: ast.Call, made: ast.FunctionDef
) -> FunctionSignature | None:
    consts = analyzer.env.consts
    names = [arg.arg for arg in parameters(factory)]
    given = dict(zip(names, call.args, strict=False))
    given.update((k.arg, k.value) for k in call.keywords if k.arg in names)
    values: dict[str, Any] = {}
    for name, value in given.items():
        try:
            values[name] = consts.evaluate(value)
        except NotConstant:
            continue
    saved = dict(consts.values), dict(consts.definitions)
    try:
        for name, value in values.items():
            consts.bind_value(name, value, analyzer.source.span(call))
        bind_builder_locals(analyzer, factory, occurrences=False)
        return analyzer.signature(Definition(made, function_decorator(made)))
    finally:
        consts.values, consts.definitions = saved
