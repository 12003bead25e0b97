"""``@pl.jit`` kernels (spec §2, §3.3): each entry (``@pl.jit``, ``@pl.jit.host``) and the JIT
functions it calls by bare name become one program. A bare ``pl.Tensor`` parameter has no shape
or dtype before a call gives it one: the kernel is checked for every shape (an unknown tensor,
on which the type rules stay silent), and again for each call in the file whose arguments can be
read (``jit_calls``); that specialisation is the program print and compile see."""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, DiagnosticBag, Related, Severity
from ..ir.dsl_enums import Level, Role
from ..ir.expr import Call, GlobalVar
from ..ir.function import Function, FunctionType, ParamDirection, Program
from ..ir.span import Span
from ..ir.types import TensorType, Type
from ..ir.walk import direct_exprs, walk_stmts
from ..records import record, replace
from .analysis import FunctionInfo, Occurrence, OccurrenceKind
from .context import FunctionSignature, ParamInfo
from .jit_calls import CallSite, bare_tensor, read_call_sites
from .jit_comments import comment_sites, config_sites
from .jit_kinds import jit_decorator, jit_kind
from .jit_shapes import (
    ANY_TENSOR,
    call_needs,
    dtype_variables,
    every_shape,
    graph_shapes,
    symbolic_shapes,
)
from .jit_types import check_types, runtime_params
from .lower import LoweredFunction
from .names import attribute_chain
from .signatures import Definition, ReadSignature, SignatureReader, decorator_keyword

if TYPE_CHECKING:
    from .module import ModuleAnalyzer

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENTRY_KINDS = ("jit", "host")
_TYPES = {
    "jit": FunctionType.Orchestration,
    "incore": FunctionType.InCore,
    "opaque": FunctionType.Opaque,
    "inline": FunctionType.Inline,
    "host": FunctionType.Opaque,
    "extern": FunctionType.InCore,
}


class JitSignatureReader(SignatureReader):
    """A JIT function's signature: its bare tensors take the types a call gave (or none)."""

    def __init__(self, analyzer: ModuleAnalyzer, shapes: dict[str, Type]) -> None:
        super().__init__(analyzer.env)
        self.shapes = shapes
        self.read_params: list[ParamInfo] = []

    def params(self, fn: ast.FunctionDef, is_method: bool, typed: bool = True) -> list[ParamInfo]:
        self.read_params = super().params(fn, is_method, typed)
        return self.read_params

    def returns(self, fn: ast.FunctionDef) -> tuple[list[Type] | None, Span | None]:
        """Without an annotation, a JIT function returns the parameters it returns."""
        if fn.returns is not None:
            return super().returns(fn)
        return returned_params(fn, self.read_params), None

    def param(self, arg: ast.arg, typed: bool = True) -> ParamInfo:
        direction = bare_tensor(arg.annotation)
        if direction is None or arg.annotation is None:
            return super().param(arg, typed)
        span = self.source.span(arg)
        name_span = Span(span.file, span.line, span.column, span.line, span.column + len(arg.arg))
        annotation_span = self.source.span(arg.annotation)
        param_type = self.shapes.get(arg.arg, ANY_TENSOR)
        self.index.add(Occurrence(annotation_span, arg.arg, OccurrenceKind.TYPE, param_type))
        return ParamInfo(arg.arg, param_type, direction, span, name_span, annotation_span)


@record
class JitDef:
    fn: ast.FunctionDef
    decorator: ast.expr
    kind: str


def bare_callees(fn: ast.FunctionDef, known: dict[str, JitDef]) -> list[str]:
    found: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in known and name != fn.name and name not in found:
                found.append(name)
    return found


def reachable(entry: JitDef, known: dict[str, JitDef]) -> list[JitDef]:
    """The entry and the JIT functions it calls by bare name, transitively (inline ones are
    expanded where they are called, as ``@pl.inline``)."""
    order, todo = [entry], [entry]
    while todo:
        for name in bare_callees(todo.pop().fn, known):
            found = known[name]
            if found not in order and found.kind != "inline":
                order.append(found)
                todo.append(found)
    return order


def callees_first(entry: JitDef, known: dict[str, JitDef]) -> list[str]:
    """The entry's functions, each after the ones it calls (so a printed program parses back
    in order); the entry last."""
    order: list[str] = []
    _place_callees_first(entry, (entry.fn.name,), known, order)
    return order


def _place_callees_first(
    jit: JitDef, path: tuple[str, ...], known: dict[str, JitDef], order: list[str]
) -> None:
    # (a module function: a nested one calling itself is a reference cycle, which kept the
    # kernels' syntax trees alive until the next full collection, issue #33)
    for name in bare_callees(jit.fn, known):
        if name not in order and name not in path:
            _place_callees_first(known[name], (*path, name), known, order)
    if jit.fn.name not in order:
        order.append(jit.fn.name)


class JitPrograms:
    """The JIT kernels of one module, analysed into programs."""

    def __init__(self, analyzer: ModuleAnalyzer, defs: list[ast.FunctionDef]) -> None:
        self.analyzer = analyzer
        self.source = analyzer.source
        self.known: dict[str, JitDef] = {}
        inline = [fn for fn in analyzer.env.inline_defs.values() if jit_decorator(fn)]
        for fn in [*defs, *inline]:
            found = jit_decorator(fn)
            if found is not None:
                self.known[fn.name] = JitDef(fn, found[0], found[1])
        self.tables: list[dict[str, FunctionSignature]] = []  # alive: the cache keys by id
        self.imported: set[str] = set()
        self.recorded: set[str] = set()  # functions whose symbols are in the index

    def find_imports(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("pypto"):
                self.imported.update(alias.asname or alias.name for alias in node.names)

    def run(self, tree: ast.Module) -> None:
        if not self.known:
            return
        self.find_imports(tree)
        for name, jit in self.known.items():
            self.analyzer.result.jit_functions[name] = self.source.span(jit.fn)
        entries = [d for d in self.known.values() if d.kind in ENTRY_KINDS]
        calls = read_call_sites(tree, self.analyzer.env, {d.fn.name: d.fn for d in entries})
        for site in calls.notes:
            self.analyzer.bag.add(site)
        for entry in entries:
            sites = comment_sites(self.source, entry.fn, self.analyzer.bag)
            specs = self.analyzer.jit_specs.get(entry.fn.name, ())
            sites += config_sites(self.source, entry.fn, specs, self.analyzer.bag)
            sites += [c for c in calls.sites if c.kernel == entry.fn.name]
            self.analyse_entry(entry, sites)
        imported = self.analyzer.imported_functions  # (checked in their own files)
        for jit in self.known.values():  # called from no entry here (another file's, maybe)
            if jit.fn.name not in self.recorded | imported.keys() and jit.kind != "extern":
                self.analyse_entry(jit, [])
        for jit in self.known.values():
            if jit.fn.name in imported:
                continue
            check_types(jit.fn, self.source, self.analyzer.bag)
            if jit.kind == "extern":
                self.check_extern(jit)

    def analyse_entry(self, entry: JitDef, sites: list[CallSite]) -> None:
        members = reachable(entry, self.known)
        readable = [site for site in sites if site.readable]
        # Hover and inlay hints show the first call's concrete types; with none, the symbolic
        # ones (each bare tensor of symbolic dims and its own dtype, shown as ``dtype(a)``).
        shapes = symbolic_shapes(entry.fn)
        bag = DiagnosticBag()
        symbolic = self.program(entry, members, {}, bag, record_symbols=not readable and not shapes)
        for diagnostic in bag.items:
            if not self.from_elsewhere(diagnostic):
                self.analyzer.bag.add(diagnostic)
        every: Program | None = None
        if shapes:  # each bare tensor of the rank it is used with, of symbolic dims
            bag = DiagnosticBag()
            unspecialised = not readable
            every = self.program(
                entry,
                members,
                shapes,
                bag,
                record_symbols=unspecialised,
                symbolic=unspecialised,
            )
            for diagnostic in bag.items:
                if every_shape(diagnostic):
                    self.analyzer.bag.add(diagnostic)
        if not readable:  # the program its task graph is drawn from (no call gives shapes)
            drawn = graph_shapes(entry.fn)
            if drawn and drawn.keys() == shapes.keys():
                symbolic = every  # every bare tensor's rank is known: the same program's tasks
            elif drawn:
                symbolic = self.program(
                    entry, members, drawn, DiagnosticBag(), record_symbols=False
                )
            if symbolic is not None:
                self.analyzer.result.jit_symbolic[entry.fn.name] = symbolic
        specialised: list[Program] = []
        labels: list[str] = []
        keys: list[str] = []
        for site in readable:
            bag = DiagnosticBag()
            first = site is readable[0]
            program = self.program(entry, members, site.shapes, bag, record_symbols=first)
            bag.items = [d for d in bag.items if not self.from_elsewhere(d)]
            self.report_specialisation(site, bag)
            if program is not None and not bag.has_errors:  # (a failing one compiles to nothing)
                specialised.append(program)
                labels.append(f"{site.title()}: {site.describe()}")
                keys.append(site.key())
        # The program print and compile see: the first call's (with no call, the kernel has
        # no shapes to generate code for; the symbolic program served the checks).
        self.analyzer.result.jit_specialisations[entry.fn.name] = specialised
        self.analyzer.result.jit_labels[entry.fn.name] = labels
        self.analyzer.result.jit_keys[entry.fn.name] = keys
        if specialised:
            self.analyzer.result.programs.append(specialised[0])

    def from_elsewhere(self, diagnostic: Diagnostic) -> bool:
        """An undefined name or call that another file defines (``from .kernels import mlp``):
        ptoc reads one file, so such a name is unknown here, not wrong."""
        if diagnostic.code not in ("E200", "E301"):
            return False
        span = diagnostic.span
        found = _IDENTIFIER.match(self.source.line(span.line), span.column)
        return found is not None and found.group(0) in self.imported

    def report_specialisation(self, site: CallSite, bag: DiagnosticBag) -> None:
        """What only this call's shapes make wrong is the call's error, pointing at where the
        kernel fails; what is wrong for every shape was reported by the symbolic check."""
        seen = {(d.code, d.span) for d in self.analyzer.bag.items}
        for diagnostic in bag.items:
            if (diagnostic.code, diagnostic.span) in seen:
                continue
            if diagnostic.severity is Severity.WARNING:  # where it is, for this call's shapes
                seen.add((diagnostic.code, diagnostic.span))
                self.analyzer.bag.add(
                    replace(
                        diagnostic,
                        message=f"{diagnostic.message} (with the arguments of the call at line "
                        f"{site.span.line}: {site.describe()})",
                        related=(*diagnostic.related, Related(site.span, "the call")),
                    )
                )
                continue
            if diagnostic.severity is not Severity.ERROR:
                continue
            self.analyzer.bag.error(
                "E209",
                f"with this call's arguments ({site.describe()}) '{site.kernel}' fails: "
                f"{diagnostic.message} [{diagnostic.code}]",
                site.span,
                related=(Related(diagnostic.span, diagnostic.message),),
            )

    def program(
        self,
        entry: JitDef,
        members: list[JitDef],
        shapes: dict[str, Type],
        bag: DiagnosticBag,
        *,
        record_symbols: bool,
        symbolic: bool = False,
    ) -> Program | None:
        """The entry's program for these parameter types. A sub-function's bare tensors take
        the types its calls pass, so it is lowered again until they settle (one round per
        level of calls at most)."""
        given: dict[str, dict[str, Type]] = {entry.fn.name: shapes}
        for _ in range(len(members) + 1):
            round_bag, occurrences = DiagnosticBag(), list[Occurrence]()
            table, functions = self.lower_round(members, given, round_bag, occurrences)
            passed = passed_types(functions, table)
            passed[entry.fn.name] = shapes
            if passed == given:
                break
            given = passed
        for diagnostic in round_bag.items:
            bag.add(diagnostic)
        self.check_outputs(table[entry.fn.name], bag)
        if record_symbols:  # each function once, though several entries may call it
            skipped = self.recorded | self.analyzer.imported_functions.keys()
            fresh = [sig for sig in table.values() if sig.name not in skipped]
            self.recorded.update(sig.name for sig in fresh)
            self.analyzer.result.index.extend(
                self.symbolic_signature(o, entry, {} if symbolic else shapes)
                for o in occurrences
                if any(within(o.span, sig.span) for sig in fresh)
            )
            if symbolic:  # the dtype variables of the values recorded, per function
                names = dtype_variables(shapes)
                for sig in fresh:
                    self.analyzer.result.jit_dtype_variables[sig.name] = names
            for sig in fresh:
                info = FunctionInfo(sig.name, sig.span, sig.name_span, None)
                self.analyzer.result.function_infos.append(info)
        if len(functions) != len(table):
            return None
        order = callees_first(entry, self.known)
        functions.sort(key=lambda f: order.index(f.name) if f.name in order else len(order))
        return Program(entry.fn.name, tuple(functions), span=self.source.span(entry.fn))

    def symbolic_signature(
        self, occurrence: Occurrence, entry: JitDef, shapes: dict[str, Type]
    ) -> Occurrence:
        """A kernel's hover: its signature for every shape, what a call must pass (the rank
        and the least extents its constant load windows need), then the one its first call
        gives."""
        if not (
            occurrence.is_definition
            and occurrence.kind is OccurrenceKind.FUNCTION
            and occurrence.name == entry.fn.name
        ):
            return occurrence
        needs = call_needs(entry.fn, self.analyzer.env.consts)
        notes = {name: f"{name} needs {need}" for name, need in needs.items()}
        notes.update(
            (name, f"{name} is a run-time value (pl.RUNTIME)") for name in runtime_params(entry.fn)
        )
        self.analyzer.result.jit_param_notes[entry.fn.name] = notes
        lines = [self.signature(entry, {}).signature.describe()]
        lines += [f"# {note}" for note in notes.values()]
        if shapes:
            lines += ["# as the first call in this file gives it:", occurrence.detail]
        return replace(occurrence, detail="\n".join(lines))

    def lower_round(
        self,
        members: list[JitDef],
        given: dict[str, dict[str, Type]],
        bag: DiagnosticBag,
        occurrences: list[Occurrence],
    ) -> tuple[dict[str, FunctionSignature], list[Function]]:
        table: dict[str, FunctionSignature] = {}
        for member in members:
            read = self.signature(member, given.get(member.fn.name, {}))
            for diagnostic in read.diagnostics:
                bag.add(diagnostic)
            occurrences.extend(read.occurrences)
            table[read.signature.name] = read.signature
        self.tables.append(table)
        functions: list[Function] = []
        for sig in table.values():
            lowered = self.lower(sig, table)
            if lowered is None:
                continue
            occurrences.extend(lowered.occurrences)
            for diagnostic in lowered.diagnostics:
                bag.add(diagnostic)
            functions.append(lowered.function)
        return table, functions

    def lower(
        self, sig: FunctionSignature, table: dict[str, FunctionSignature]
    ) -> LoweredFunction | None:
        """One function, through the analyzer's cache; None for one a syntax error damaged
        (that error explains it)."""
        analyzer, cache = self.analyzer, self.analyzer.cache
        if any(sig.span.line <= line <= sig.span.end_line for line in analyzer.blanked):
            return None
        if cache is None:
            return analyzer.lower_uncached(sig, table, True)
        key = analyzer.cache_key(sig, table, True)
        cache.used.add(key)
        lowered = cache.functions.get(key)
        if lowered is None:
            lowered = analyzer.lower_uncached(sig, table, True)
            if lowered is not None:
                cache.functions[key] = lowered
        return lowered

    def signature(self, jit: JitDef, shapes: dict[str, Type]) -> ReadSignature:
        reader = JitSignatureReader(self.analyzer, shapes)
        read = reader.read(Definition(jit.fn, jit.decorator))  # (its level=)
        sig = read.signature
        sig.func_type = _TYPES[jit.kind]
        sig.jit = True
        if jit.kind == "host":
            sig.level, sig.role = Level.HOST, Role.Orchestrator
        elif jit.kind == "extern":
            sig.opaque_body = "implemented in the C++ file named by source="
        return read

    def check_outputs(self, sig: FunctionSignature, bag: DiagnosticBag) -> None:
        """An ``Out`` tensor the kernel never writes (no store into it, no assembly, no call
        that receives it) leaves its contents undefined."""
        used: set[str] = set()
        for node in ast.walk(sig.node):
            if isinstance(node, ast.Call):
                name = attribute_chain(node.func)
                is_read = name is not None and name[-1] in ("load", "slice", "view", "read")
                if not is_read:
                    arguments = [*node.args, *(k.value for k in node.keywords)]
                    used.update(
                        n.id for a in arguments for n in ast.walk(a) if isinstance(n, ast.Name)
                    )
            elif isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                used.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        if sig.opaque_body is not None:
            return
        for param in sig.params:
            if param.direction is ParamDirection.Out and param.name not in used:
                bag.error(
                    "W033",
                    f"output '{param.name}' of '{sig.name}' is never written",
                    param.name_span,
                )

    def check_extern(self, jit: JitDef) -> None:
        """``source=`` names the C++ file, relative to this one: it must exist."""
        for key in ("source", "aic_source", "aiv_source"):
            node = decorator_keyword(jit.decorator, key)
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            path = os.path.join(os.path.dirname(self.source.path), node.value)
            if not os.path.isfile(path):  # (os.path: pathlib costs a check's start-up)
                self.analyzer.bag.error(
                    "E208",
                    f"{key}= names '{node.value}', which does not exist next to this file",
                    self.source.span(node),
                )


def passed_types(
    functions: list[Function], table: dict[str, FunctionSignature]
) -> dict[str, dict[str, Type]]:
    """For each function called, the known types of the tensors the first call passes to its
    bare tensor parameters."""
    passed: dict[str, dict[str, Type]] = {}
    for function in functions:
        for stmt in walk_stmts(function.body):
            for expr in direct_exprs(stmt):
                if not isinstance(expr, Call) or not isinstance(expr.callee, GlobalVar):
                    continue
                callee = expr.callee
                if callee.name in passed:
                    continue
                sig = table.get(callee.name)
                if sig is None:
                    continue
                types: dict[str, Type] = {
                    param.name: arg.type
                    for param, arg in zip(sig.params, expr.args, strict=False)
                    if bare_tensor(sig_annotation(sig, param.name)) is not None
                    and isinstance(arg.type, TensorType)
                }
                passed[callee.name] = types
    return {name: types for name, types in passed.items() if types}


def within(inner: Span, outer: Span) -> bool:
    # (the same file: an inlined kernel imported from another file has its own lines)
    return outer.line <= inner.line <= outer.end_line and inner.file == outer.file


def sig_annotation(sig: FunctionSignature, name: str) -> ast.expr | None:
    return next((a.annotation for a in sig.node.args.args if a.arg == name), None)


def returned_params(fn: ast.FunctionDef, params: list[ParamInfo]) -> list[Type] | None:
    """A JIT function without a return annotation returns the parameters it returns."""
    by_name = {p.name: p.type for p in params}
    for node in ast.walk(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            types = [by_name.get(v.id) if isinstance(v, ast.Name) else None for v in values]
            if all(isinstance(t, Type) for t in types):
                return [t for t in types if t is not None]
            return None
    return []


__all__ = ["JitPrograms", "bare_tensor", "jit_decorator", "jit_kind"]
