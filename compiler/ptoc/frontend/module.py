"""Analysing a whole module: find the DSL, its constants, programs and functions; lower each
function independently (one function's errors never stop another's analysis)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..diagnostics import DiagnosticBag, Related
from ..editions import ChosenEdition, rules_for
from ..filekind import imports_pypto, program_header
from ..graph.build import graph_and_findings
from ..ir.function import Function, FunctionType, Program
from ..ir.span import Span
from ..perf import gc_paused
from ..records import field, record
from .analysis import FunctionInfo, ModuleAnalysis, Occurrence, OccurrenceKind, SymbolIndex
from .builders import (
    BuilderCall,
    builder_calls,
    builder_definitions,
    function_decorator,
    lower_builder,
)
from .cache import AnalysisCache, constants_fingerprint, module_fingerprint
from .checks_pipes import check_module_pipes
from .consteval import ConstEvaluator
from .context import FunctionSignature, ModuleEnv
from .edition import decide
from .jit_kinds import jit_decorator
from .lower import LoweredFunction, lower_function
from .names import DslImports, find_imports
from .other_edition import report_other_edition
from .preprocess import parse_module
from .signatures import Definition, SignatureReader, decorator_name, name_span, strict_flag
from .source import SourceText


@record
class ModuleParts:
    """The top-level definitions of a module, by what they are."""

    programs: list[ast.ClassDef] = field(default_factory=list)
    standalone: list[tuple[ast.FunctionDef, ast.expr]] = field(default_factory=list)
    module_defs: list[ast.FunctionDef] = field(default_factory=list)  # printed IR's functions
    aliases: dict[str, ast.Name] = field(default_factory=dict)  # `aliased = original_fn`
    builders: list[ast.FunctionDef] = field(default_factory=list)
    jit: list[ast.FunctionDef] = field(default_factory=list)  # @pl.jit kernels (jit.py)


Cache = AnalysisCache | None
Chosen = ChosenEdition | None  # the edition a flag, the editor or the project chose


def first_line(source: SourceText) -> Span:
    return Span(source.path, 1, 0, 1, len(source.line(1)))


class ModuleAnalyzer:
    def __init__(self, text: str, path: str, cache: Cache = None, edition: Chosen = None) -> None:
        self.cache = cache
        self.explicit_edition = edition
        self.embedded_text = False  # analysing a pl.parse(...) text of another file
        # Builders' parameters take their default values (to compile a built program) rather
        # than stand for every size (to check it).
        self.builder_defaults = False
        self.sizes: dict[str, int] = {}  # builder parameters / pl.dynamic dims given values
        # With builder_defaults: each builder's first call in the module (its arguments, where
        # constant, are the values its parameters take; the defaults the others').
        self.builder_calls: dict[str, BuilderCall] = {}
        # ``@pl.jit.inline`` functions imported from the files beside this one, and their files
        # (the spans made of their copies' nodes name those files).
        self.imported_functions: dict[str, ast.FunctionDef] = {}
        self.imported_origins: dict[str, str] = {}
        self.jit_specs: dict[str, tuple[str, ...]] = {}  # [tool.ptoc.jit], by kernel name
        self.module_fingerprint = 0
        self.consts_fingerprint = 0
        self.visible: dict[int, int] = {}  # id(signature table) -> hash of what it shows
        self.signatures: list[FunctionSignature] = []  # every function read (the pipe checks)
        self.source = SourceText(text, path)
        self.plain_span = self.source.span
        self.bag = DiagnosticBag()
        self.result = ModuleAnalysis(path=path, text=text)

    def run(self) -> ModuleAnalysis:
        try:
            self._run()
        except RecursionError:
            self.bag.error("E901", "the file nests too deeply to analyse", first_line(self.source))
        except Exception as exc:  # never escape: one diagnostic, the rest of the result stays
            self.bag.error(
                "E900", f"internal error: {type(exc).__name__}: {exc}", first_line(self.source)
            )
        # (what an imported function's copy says is its own file's: checked when opened)
        elsewhere = set(self.imported_origins.values())
        self.result.diagnostics = [d for d in self.bag.sorted() if d.span.file not in elsewhere]
        self.result.index.freeze()
        return self.result

    def _run(self) -> None:
        is_printed, header_name = program_header(self.source.lines)
        parsed = parse_module(self.source, self.cache.segments if self.cache is not None else None)
        tree = parsed.tree
        imports = find_imports(tree) if tree is not None else DslImports()
        # Only an import (or a printed-IR header) makes a file a kernel file: a plain Python file
        # that merely mentions the module, in a docstring say, gets nothing.
        self.result.uses_pypto = (
            is_printed or imports.found or (tree is None and imports_pypto(self.source.text))
        )
        if not self.result.uses_pypto:
            return  # a plain Python file: nothing to say
        for diagnostic in parsed.diagnostics:
            self.bag.add(diagnostic)
        if tree is None:
            return
        if is_printed and not imports.found:
            imports.aliases.add("pl")
        self.result.prefix = imports.prefix
        self.result.distributed = tuple(sorted(imports.distributed))
        in_force = self.result.edition = decide(
            self.source, imports, self.explicit_edition, self.bag
        )
        rules = rules_for(in_force.edition, in_force.source)
        consts = ConstEvaluator(imports, self.source.span, rules.index_dtype, self.sizes)
        env = self.env = ModuleEnv(
            self.source, imports, consts, edition=in_force.edition, rules=rules
        )
        self.blanked = parsed.blanked_lines
        self.collect_module(tree, env, is_printed, header_name)
        if not self.embedded_text and "parse" in self.source.text:  # pl.parse("...") texts
            from .embedded import merge_embedded  # (loaded for the files that have them)

            edition, path = self.explicit_edition, self.source.path
            analyse = lambda text: embedded_analysis(text, path, edition)  # noqa: E731
            merge_embedded(tree, self.source, imports, self.bag, self.result, analyse)
        report_other_edition(self.bag, tree, self.result, imports)

    # --- module level -------------------------------------------------------------------------
    def collect_module(
        self, tree: ast.Module, env: ModuleEnv, is_printed: bool, header_name: str | None
    ) -> None:
        parts = self.scan_module(tree, env, is_printed)
        self.fingerprint_constants()
        # Signatures first, so calls in any order are typed.
        standalone_sigs = [self.signature(Definition(fn, deco)) for fn, deco in parts.standalone]
        for sig in standalone_sigs:
            env.external_functions[sig.name] = sig
        self.resolve_aliases(parts.aliases)
        self.fingerprint_module()
        for sig in standalone_sigs:
            function = self.lower(sig, {sig.name: sig})
            if function is not None:
                self.result.functions.append(function)
        for cls in parts.programs:
            self.lower_program_class(cls)
        factories = {builder.name: builder for builder in parts.builders}
        if self.builder_defaults and parts.builders:
            self.builder_calls = builder_calls(tree, set(factories))
        for builder in parts.builders:
            lower_builder(self, builder, factories)
        if parts.jit or any(map(jit_decorator, self.env.inline_defs.values())):
            from .jit import JitPrograms  # only a file with JIT kernels loads the JIT machinery

            JitPrograms(self, parts.jit).run(tree)
        if parts.module_defs:
            program_name = header_name or "program"
            sigs = [self.signature(Definition(fn, None, program_name)) for fn in parts.module_defs]
            first, last = parts.module_defs[0], parts.module_defs[-1]
            span = self.source.span(first).merge(self.source.span(last))
            self.lower_program(program_name, sigs, span, bare_calls=True)
        check_module_pipes(self.signatures, env, self.bag)

    def scan_module(self, tree: ast.Module, env: ModuleEnv, is_printed: bool) -> ModuleParts:
        """Sort the top-level statements; bind module constants and inline helpers on the way."""
        parts = ModuleParts()
        for node in tree.body:
            scan = _SCANNERS.get(type(node))
            if scan is not None:
                scan(self, node, env, is_printed, parts)
        return parts

    def scan_assign(
        self, node: ast.Assign, env: ModuleEnv, is_printed: bool, parts: ModuleParts
    ) -> None:
        """`N = 64`, `ROWS, COLS = SHAPE`: constants; `aliased = original_fn`: maybe an alias."""
        if len(node.targets) != 1 or not isinstance(
            node.targets[0], ast.Name | ast.Tuple | ast.List
        ):
            return
        for bound in env.consts.bind_targets(node.targets[0], node.value, self.source.span):
            self.constant_occurrence(bound, env.consts.definitions[bound])
            parts.aliases.pop(bound, None)
        if isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name):
            parts.aliases[node.targets[0].id] = node.value

    def scan_annotated(
        self, node: ast.AnnAssign, env: ModuleEnv, is_printed: bool, parts: ModuleParts
    ) -> None:
        if isinstance(node.target, ast.Name) and node.value is not None:
            env.consts.bind(node.target.id, node.value, self.source.span(node.target))
            self.constant_occurrence(node.target.id, self.source.span(node.target))

    def scan_class(
        self, node: ast.ClassDef, env: ModuleEnv, is_printed: bool, parts: ModuleParts
    ) -> None:
        if any(decorator_name(d) == "program" for d in node.decorator_list):
            parts.programs.append(node)

    def scan_function(
        self, node: ast.FunctionDef, env: ModuleEnv, is_printed: bool, parts: ModuleParts
    ) -> None:
        kinds = [decorator_name(d) for d in node.decorator_list]
        if jit_decorator(node) is not None and "inline" not in kinds:
            parts.jit.append(node)
        elif "inline" in kinds:
            env.inline_defs[node.name] = node
        elif "function" in kinds:
            parts.standalone.append((node, node.decorator_list[kinds.index("function")]))
        elif is_printed and not node.decorator_list:
            parts.module_defs.append(node)
        elif not is_printed and builder_definitions(node):
            parts.builders.append(node)
        elif not is_printed and not node.decorator_list:
            env.consts.helpers[node.name] = node  # a constant may call it (``const_helpers``)

    def scan_import_from(
        self, node: ast.ImportFrom, env: ModuleEnv, is_printed: bool, parts: ModuleParts
    ) -> None:
        """``from .config import BATCH``, ``from .kernels.mlp import mlp_block``: constants and
        ``@pl.jit.inline`` functions of the files beside this one, read statically."""
        if node.level and not is_printed:
            from .sibling_imports import bind_import  # (only files with relative imports)

            bind_import(self, node, env)

    def resolve_aliases(self, aliases: dict[str, ast.Name]) -> None:
        """``aliased = original_fn`` names a standalone or inline function: a call of ``aliased``
        calls it (the original resolves the name at decoration time, to the function object)."""
        env = self.env
        for alias, value in aliases.items():
            target, seen = value.id, {alias}
            while target in aliases and target not in seen:
                seen.add(target)
                target = aliases[target].id
            if target in env.external_functions or target in env.inline_defs:
                env.function_aliases[alias] = target
                env.consts.definitions.pop(alias, None)  # a function, not a failed constant
                self.result.index.add(
                    Occurrence(
                        self.source.span(value),
                        target,
                        OccurrenceKind.FUNCTION,
                        None,
                        definition=self.function_span(target),
                    )
                )

    def function_span(self, name: str) -> Span | None:
        sig = self.env.external_functions.get(name)
        if sig is not None:
            return sig.name_span
        node = self.env.inline_defs.get(name)
        return name_span(self.source, node, "def") if node is not None else None

    def constant_occurrence(self, name: str, span: Span) -> None:
        value = self.env.consts.values.get(name)
        self.result.index.add(
            Occurrence(
                span,
                name,
                OccurrenceKind.CONSTANT,
                None,
                definition=span,
                is_definition=True,
                detail=repr(value) if value is not None else "",
            )
        )

    def lower_program_class(self, cls: ast.ClassDef) -> None:
        methods: list[tuple[ast.FunctionDef, ast.expr]] = []
        for node in cls.body:
            if isinstance(node, ast.FunctionDef):
                decorator = function_decorator(node)
                if decorator is not None:
                    methods.append((node, decorator))
        class_span = name_span(self.source, cls, "class")
        program_deco = next(d for d in cls.decorator_list if decorator_name(d) == "program")
        program_strict = strict_flag(program_deco)
        self.result.index.add(
            Occurrence(
                class_span,
                cls.name,
                OccurrenceKind.PROGRAM,
                None,
                definition=class_span,
                is_definition=True,
            )
        )
        if not methods:
            self.bag.error(
                "E012",
                f"@pl.program class '{cls.name}' contains no @pl.function decorated methods",
                class_span,
            )
            return
        sigs = [
            self.signature(Definition(fn, deco, cls.name, True, program_strict))
            for fn, deco in methods
        ]
        self.lower_program(cls.name, sigs, self.source.span(cls), bare_calls=False)

    def lower_program(
        self, name: str, sigs: list[FunctionSignature], span: Span, *, bare_calls: bool
    ) -> None:
        table: dict[str, FunctionSignature] = {}
        for sig in sigs:
            if sig.name in table:
                self.bag.error(
                    "E204",
                    f"function '{sig.name}' is defined twice in program '{name}'",
                    sig.name_span,
                    related=(Related(table[sig.name].name_span, "first definition"),),
                )
                continue
            table[sig.name] = sig
        functions: list[Function] = []
        externals: list[str] = []
        for sig in table.values():
            state_externals: list[str] = []
            function = self.lower(sig, table, bare_calls=bare_calls, externals=state_externals)
            if function is not None:
                functions.append(function)
            for ext in state_externals:
                if ext not in externals:
                    externals.append(ext)
        for ext in externals:
            if ext in table:
                continue
            match = next((f for f in self.result.functions if f.name == ext), None)
            if match is not None:
                functions.append(match)
        program = Program(name, tuple(functions), span=span)
        self.result.programs.append(program)
        self.task_warnings(program)

    def task_warnings(self, program: Program) -> None:
        """W040-W042 from each orchestration function's task graph (spec §7)."""
        for function in program.functions:
            if function.func_type is FunctionType.Orchestration:
                graph, findings = graph_and_findings(program, function)
                self.result.task_graphs.keep(program, function, graph)
                for code, message, span in findings:
                    self.bag.error(code, message, span)

    # --- functions ----------------------------------------------------------------------------
    def signature(self, definition: Definition) -> FunctionSignature:
        """A function's signature, reused while its definition node is (the segment cache keeps
        unchanged nodes) and the module constants and imports its annotations read are the same."""
        key = (definition, self.consts_fingerprint)
        cached = self.cache.signatures.get(key) if self.cache is not None else None
        if self.cache is not None:
            self.cache.used.add(key)
        if cached is None:
            cached = SignatureReader(self.env).read(definition)
            if self.cache is not None:
                self.cache.signatures[key] = cached
        for diagnostic in cached.diagnostics:
            self.bag.add(diagnostic)
        self.result.index.extend(cached.occurrences)
        sig = cached.signature
        self.signatures.append(sig)
        self.result.function_infos.append(
            FunctionInfo(sig.name, sig.span, sig.name_span, definition.program)
        )
        return sig

    def lower(
        self,
        sig: FunctionSignature,
        table: dict[str, FunctionSignature],
        *,
        bare_calls: bool = False,
        externals: list[str] | None = None,
    ) -> Function | None:
        damaged = any(sig.span.line <= line <= sig.span.end_line for line in self.blanked)
        cached: LoweredFunction | None = None
        if self.cache is not None:  # (the key reads the function's text and every signature)
            key = self.cache_key(sig, table, bare_calls)
            cached = self.cache.functions.get(key) if not damaged else None
            self.cache.used.add(key)
        if cached is None:
            cached = self.lower_uncached(sig, table, bare_calls)
            if cached is None:
                return None
            if self.cache is not None and not damaged:
                self.cache.functions[key] = cached
        else:
            self.result.reused_functions += 1
        self.result.index.extend(cached.occurrences)
        if externals is not None:
            externals.extend(cached.calls)
        if damaged:
            return None  # the syntax error explains this function; its other errors would mislead
        for diagnostic in cached.diagnostics:
            self.bag.add(diagnostic)
        return cached.function

    def lower_uncached(
        self, sig: FunctionSignature, table: dict[str, FunctionSignature], bare_calls: bool
    ) -> LoweredFunction | None:
        """Lower one function; an internal failure is one diagnostic on its name (None)."""
        try:
            return lower_function(self.env, sig, table, bare_function_calls=bare_calls)
        except RecursionError:
            self.bag.error("E901", f"'{sig.name}' nests too deeply to analyse", sig.name_span)
        except Exception as exc:
            self.bag.error(
                "E900",
                f"internal error while analysing '{sig.name}': {type(exc).__name__}: {exc}",
                sig.name_span,
            )
        return None

    def cache_key(
        self, sig: FunctionSignature, table: dict[str, FunctionSignature], bare_calls: bool
    ) -> tuple[object, ...]:
        """A function's analysis depends on its own text and position and on what it can see:
        module constants, imports, inline helpers, and the signatures of callable functions."""
        visible = self.visible.get(id(table))
        if visible is None:
            visible = hash(
                tuple(
                    (s.name, s.describe(), s.func_type.name, s.strict_ssa) for s in table.values()
                )
            )
            self.visible[id(table)] = visible
        return (
            self.source.segment(sig.node),
            sig.span,
            sig.func_type,
            sig.strict_ssa,
            bare_calls,
            visible,
            self.module_fingerprint,
        )

    def fingerprint_constants(self) -> None:
        self.consts_fingerprint = constants_fingerprint(self.env)

    def fingerprint_module(self) -> None:
        self.module_fingerprint = module_fingerprint(self.env, self.consts_fingerprint)


# What each kind of top-level statement contributes; other statements contribute nothing.
_SCANNERS: dict[
    type[ast.stmt], Callable[[ModuleAnalyzer, Any, ModuleEnv, bool, ModuleParts], None]
] = {
    ast.Assign: ModuleAnalyzer.scan_assign,
    ast.AnnAssign: ModuleAnalyzer.scan_annotated,
    ast.ClassDef: ModuleAnalyzer.scan_class,
    ast.FunctionDef: ModuleAnalyzer.scan_function,
    ast.ImportFrom: ModuleAnalyzer.scan_import_from,
}


def embedded_analysis(text: str, path: str, edition: ChosenEdition | None) -> ModuleAnalysis:
    inner = ModuleAnalyzer(text, path, None, edition)
    inner.embedded_text = True
    return inner.run()


def analyze_module(
    text: str,
    path: str,
    cache: AnalysisCache | None = None,
    edition: ChosenEdition | None = None,
    builder_defaults: bool = False,
    jit_specs: dict[str, tuple[str, ...]] | None = None,
    sizes: dict[str, int] | None = None,
) -> ModuleAnalysis:
    with gc_paused():
        analyzer = ModuleAnalyzer(text, path, cache, edition)
        analyzer.builder_defaults = builder_defaults
        analyzer.sizes = dict(sizes or {})
        analyzer.jit_specs = jit_specs or {}
        result = analyzer.run()
    if cache is not None:
        cache.trim()
    return result


__all__ = ["AnalysisCache", "analyze_module", "SymbolIndex"]
