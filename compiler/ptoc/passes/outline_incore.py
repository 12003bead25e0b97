"""OutlineIncoreScopes: every ``with pl.incore():`` scope becomes an InCore function.

In an Opaque or Orchestration function (SSA form), the body of each InCore scope moves into
a new function ``<function>_incore_<n>`` (n counts the scopes of that function from 0):

* its parameters are the variables the body reads but does not define, in order of first
  use, each ``In``;
* it returns the variables the body defines that the rest of the function reads, in
  definition order;
* the scope is replaced by a call of it: ``y = self.f_incore_0(a, b)`` for one result, a
  ``_tuple_tmp`` and one ``tmp[i]`` per result for several, a bare call for none; a region
  that waits for tasks (``pl.at(..., deps=[t1])``) or names its TaskId (``pl.at(...) as
  tid``) is a ``pl.submit`` of it with those deps instead, its TaskId the submit's.

A scope whose vector work reads its cube work's product is first split into a cube scope and
a vector scope (``mixed_scopes.py``), each outlined as a kernel of its own; so is a call of
such an InCore function, inlined as a scope (``mixed_functions.py``).

An Opaque function that had a scope outlined becomes an Orchestration function: what is
left of it runs on the host and launches the kernels. InCore functions are left alone.
"""

from __future__ import annotations

from collections import Counter

from ..ir import stmt as st
from ..ir.expr import Call, Expr, GlobalVar, IterArg, Submit, TupleGetItem, Var
from ..ir.function import Function, FunctionType, ParamDirection, Program
from ..ir.types import TASK_ID_TYPE, UNKNOWN, TupleType, Type
from ..ir.visitor import IRMutator, with_fields
from . import irutil
from .base import Pass, PassContext
from .function_names import FunctionNames
from .mixed_functions import mixed_functions, unreferenced
from .mixed_scopes import split_mixed_scopes
from .rewriter import StmtRewriter

_OUTLINED_FROM = (FunctionType.Opaque, FunctionType.Orchestration)


def _reads(stmt: st.Stmt) -> list[Var]:
    """Variables a statement and its nested bodies read, in order, while conditions too."""
    return list(irutil.stmt_reads(stmt))


def _defines(stmt: st.Stmt) -> list[Var]:
    return irutil.stmt_definitions(stmt)


def _copy(var: Var) -> Var:
    return Var(var.type, name=var.name, span=var.span)


class _Parameters(IRMutator):
    """The scope's inputs -> the new function's parameters, in its statements and in the types
    that name them, of variables and of calls (a tile loaded with ``valid_shape=[64, vlen]``
    has ``vlen`` in its type: left as the caller's variable, code generation found it
    undefined in the kernel)."""

    def mutate_Var(self, var: Var) -> Var:
        if var in self.var_map:
            return self.var_map[var]
        new_type = irutil.substitute_in_type(var.type, self)
        if new_type is var.type:
            return var
        new = with_fields(var, type=new_type)
        self.var_map[var] = new
        return new

    def mutate_Call(self, call: Call) -> Expr:
        new = self.generic_mutate(call)  # a call's own type too: code generation reads it
        new_type = irutil.substitute_in_type(new.type, self)
        return new if new_type is new.type else with_fields(new, type=new_type)

    def mutate_IterArg(self, var: IterArg) -> Var:
        new = super().mutate_IterArg(var)
        new_type = irutil.substitute_in_type(new.type, self)
        if new_type is new.type:
            return new
        self.var_map[var] = with_fields(new, type=new_type)
        return self.var_map[var]


class _Outliner(StmtRewriter):
    """Replaces each scope by a call; every other statement only has its bodies rewritten."""

    def __init__(
        self,
        fn: Function,
        taken: set[str],
        ctx: PassContext,
        mixed: dict[str, Function] | None = None,
    ) -> None:
        self.fn = fn
        self.mixed = mixed or {}
        self.ctx = ctx
        self.taken = taken
        self.outlined: list[Function] = []
        self.names = FunctionNames(fn)
        # A variable belongs to one function: the caller gets its own copy of each result.
        self.results: dict[Var, Var] = {}
        # How often the function reads each variable: a scope's result is read outside it
        # when the function reads it more often than the scope does (counted at the first
        # scope: most functions have none).
        self.reads: Counter[Var] | None = None

    def run(self) -> Function:
        split = split_mixed_scopes(self.fn.body, self.ctx, self.names, self.mixed)
        if split is not self.fn.body:
            self.fn = with_fields(self.fn, body=split)
        body = self.rewrite(self.fn.body)
        if not self.outlined:
            return self.fn
        rename = IRMutator()
        rename.var_map = self.results
        body = rename.mutate_stmt(body)
        func_type = self.fn.func_type
        if func_type is FunctionType.Opaque:
            func_type = FunctionType.Orchestration
        return with_fields(self.fn, body=body, func_type=func_type)

    def function_name(self) -> str:
        k = len(self.outlined)
        while f"{self.fn.name}_incore_{k}" in self.taken:
            k += 1
        name = f"{self.fn.name}_incore_{k}"
        self.taken.add(name)
        return name

    def rewrite_ScopeStmt(self, scope: st.ScopeStmt) -> st.Stmt:
        if scope.kind is not st.ScopeKind.InCore:  # a runtime scope: its kernels are outlined
            return with_fields(scope, body=self.rewrite(scope.body))
        self.ctx.at(scope.span)
        body = self.rewrite(scope.body)  # scopes nested in this one stay in it (already InCore)
        inner = set(_defines(body))
        inputs: list[Var] = []
        for var in _reads(body):
            if var not in inner and var not in inputs:
                inputs.append(var)
        inside = Counter(_reads(body))
        if self.reads is None:
            self.reads = Counter(_reads(self.fn.body))
        outputs = [v for v in _defines(body) if self.reads[v] > inside[v]]
        name = self.function_name()
        span = scope.span
        params = _Parameters()
        params.var_map = {v: _copy(v) for v in inputs}
        body = params.mutate_stmt(body)
        returns = st.ReturnStmt(tuple(outputs), span=span)
        function = Function(
            name,
            tuple(params.var_map[v] for v in inputs),
            tuple(v.type for v in outputs),
            irutil.seq([*irutil.flatten_seq([body]), returns], span),
            FunctionType.InCore,
            tuple(ParamDirection.In for _ in inputs),
            span=span,
        )
        self.outlined.append(function)
        # A call of a function without results has no type, as the front end reads it.
        result_type: Type = (
            UNKNOWN
            if not outputs
            else outputs[0].type
            if len(outputs) == 1
            else TupleType(tuple(v.type for v in outputs))
        )
        call = Call(result_type, callee=GlobalVar(name), args=tuple(inputs), span=span)
        self.results.update((v, _copy(v)) for v in outputs)
        if scope.deps or scope.task_id is not None:
            return self.launch(scope, call, outputs)
        if not outputs:
            return st.EvalStmt(call, span=span)
        if len(outputs) == 1:
            return st.AssignStmt(outputs[0], call, span=span)
        tmp = Var(result_type, name=self.names.fresh("_tuple_tmp"), span=span)
        unpack: list[st.Stmt] = [st.AssignStmt(tmp, call, span=span)]
        for i, var in enumerate(outputs):
            item = TupleGetItem(var.type, tuple_value=tmp, index=i, span=span)
            unpack.append(st.AssignStmt(var, item, span=span))
        return st.SeqStmts(tuple(unpack), span=span)

    def launch(self, scope: st.ScopeStmt, call: Call, outputs: list[Var]) -> st.Stmt:
        """A region that waits for tasks (``pl.at(..., deps=[t1])``) or names its TaskId
        (``pl.at(...) as tid:``, for a later ``deps=[tid]``) is a submit of its kernel with
        those deps (maybe none), as ``out, tid = pl.submit(self.k, ..., deps=[t1])``
        writes it: ``_task`` holds the kernel's result and the TaskId, the scope's results
        and TaskId are its items."""
        span = scope.span
        kernel = call.callee
        assert isinstance(kernel, GlobalVar)
        types = (call.type, TASK_ID_TYPE) if outputs else (TASK_ID_TYPE,)
        submit = Submit(
            TupleType(types),
            kernel=kernel,
            args=call.args,
            deps=scope.deps,
            region="at",  # only 2026-08's pl.at writes an InCore region with deps
            span=scope.deps_span if scope.deps_span.is_known else span,
        )
        task = Var(submit.type, name=self.names.temp("_task"), span=span)
        stmts: list[st.Stmt] = [st.AssignStmt(task, submit, span=span)]
        if outputs:
            result = TupleGetItem(call.type, tuple_value=task, index=0, span=span)
            if len(outputs) == 1:
                stmts.append(st.AssignStmt(outputs[0], result, span=span))
            else:
                tmp = Var(call.type, name=self.names.temp("_tuple_tmp"), span=span)
                stmts.append(st.AssignStmt(tmp, result, span=span))
                for i, var in enumerate(outputs):
                    item = TupleGetItem(var.type, tuple_value=tmp, index=i, span=span)
                    stmts.append(st.AssignStmt(var, item, span=span))
        if scope.task_id is not None:
            tid = TupleGetItem(TASK_ID_TYPE, tuple_value=task, index=len(types) - 1, span=span)
            stmts.append(st.AssignStmt(scope.task_id, tid, span=span))
        return st.SeqStmts(tuple(stmts), span=span)


class OutlineIncoreScopes(Pass):
    name = "OutlineIncoreScopes"
    description = (
        "every `with pl.incore():` scope becomes an InCore function called in its "
        "place; an Opaque function with scopes becomes an Orchestration function"
    )

    def run(self, program: Program, ctx: PassContext) -> Program:
        taken = {fn.name for fn in program.functions}
        mixed = mixed_functions(program)
        functions: list[Function] = []
        changed = False
        for fn in program.functions:
            if fn.func_type not in _OUTLINED_FROM:
                functions.append(fn)
                continue
            ctx.at(fn.span)
            outliner = _Outliner(fn, taken, ctx, mixed)
            new = outliner.run()
            # Callees before their caller, as the printer orders them.
            functions.extend(outliner.outlined)
            functions.append(new)
            changed = changed or new is not fn
        if not changed:
            return program
        functions = unreferenced(functions, set(mixed))
        return Program(program.name, tuple(functions), span=program.span)
