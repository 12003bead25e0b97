"""Hand-written mixed InCore functions: an InCore function (2026-08's
``pl.function(type=InCore)``, 2026-03's InCore function) whose vector work reads its matmul's
product, called only as a statement of Opaque / Orchestration functions (``x = self.k(...)``
or ``self.k(...)``), is inlined at each call as an InCore scope (``mixed_functions``,
``inline_call``), which ``mixed_scopes.py`` then splits like one written so: a cube kernel and
a vector kernel, the product handed over in GM. The function goes when no call of it is left.
A function that would not split, or is called otherwise (a ``pl.submit``, from a kernel, as a
program's only function), is left as it is (E400 at the op reading the product).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from .. import records
from ..ir import stmt as st
from ..ir.expr import Call, Expr, GlobalVar, IterArg, Submit, Var
from ..ir.fields import field_nodes, layout
from ..ir.function import Function, FunctionType, Program
from ..ir.visitor import IRMutator
from ..ir.walk import conditions, direct_exprs, stmt_definitions, walk_stmts
from ..mixed_kernels import split_mixed_scope

_CALLERS = (FunctionType.Opaque, FunctionType.Orchestration)


def _body(fn: Function) -> tuple[list[st.Stmt], tuple[Expr, ...]] | None:
    """The function's statements before its one return, at its end, and what it returns."""
    stmts = list(st.body_stmts(fn.body))
    if not stmts or not isinstance(stmts[-1], st.ReturnStmt) or len(fn.return_types) > 1:
        return None
    if any(isinstance(s, st.ReturnStmt) for inner in stmts[:-1] for s in walk_stmts(inner)):
        return None
    values = stmts[-1].values
    if len(values) != len(fn.return_types) or not all(isinstance(v, Var) for v in values):
        return None
    return stmts[:-1], values


def _splits(fn: Function) -> bool:
    found = _body(fn)
    if fn.func_type is not FunctionType.InCore or found is None or not found[0]:
        return False
    scope = st.ScopeStmt(st.SeqStmts(tuple(found[0]), span=fn.span), span=fn.span)
    return split_mixed_scope(scope, ssa=True) is not None


def kernel_references(fn: Function) -> Counter[str]:
    """How many times the function's body names each kernel (a call or a submit)."""
    found: Counter[str] = Counter()
    todo: list[Expr] = []
    for stmt in walk_stmts(fn.body):
        todo += [*direct_exprs(stmt), *conditions(stmt)]
    while todo:
        expr = todo.pop()
        if isinstance(expr, Call) and isinstance(expr.callee, GlobalVar):
            found[expr.callee.name] += 1
        elif isinstance(expr, Submit):
            found[expr.kernel.name] += 1
        todo += [e for e in field_nodes(expr, layout(type(expr)).operands) if isinstance(e, Expr)]
    return found


def mixed_functions(program: Program) -> dict[str, Function]:
    """The InCore functions of ``program`` that split, by name, when some function that
    launches kernels calls one."""
    found = {fn.name: fn for fn in program.functions if _splits(fn)}
    if not found:
        return {}
    called: Counter[str] = Counter()
    for fn in program.functions:
        if fn.func_type in _CALLERS:
            called += kernel_references(fn)
    return {name: fn for name, fn in found.items() if called[name]}


def called_kernel(stmt: st.Stmt, functions: dict[str, Function]) -> Function | None:
    """The mixed function a statement only calls (``x = self.k(...)``, ``self.k(...)``)."""
    value = (
        stmt.value
        if isinstance(stmt, st.AssignStmt)
        else (stmt.expr if isinstance(stmt, st.EvalStmt) else None)
    )
    if not isinstance(value, Call) or not isinstance(value.callee, GlobalVar):
        return None
    fn = functions.get(value.callee.name)
    if fn is None or len(value.args) != len(fn.params):
        return None
    if isinstance(stmt, st.AssignStmt) != bool(fn.return_types):
        return None
    return fn


def inline_call(
    stmt: st.Stmt, fn: Function, fresh: Callable[[str], str]
) -> tuple[list[st.Stmt], st.ScopeStmt, dict[Var, Var]]:
    """The call ``stmt`` of ``fn`` as an InCore scope named after it: the bindings of its
    arguments that are not variables (before the scope), the scope (the body with fresh
    variables, ``fresh`` naming them), and the caller's result variable -> the scope's."""
    found = _body(fn)
    assert found is not None
    stmts, values = found
    value = stmt.value if isinstance(stmt, st.AssignStmt) else stmt.expr  # type: ignore[attr-defined]
    assert isinstance(value, Call)
    span = stmt.span
    rename = IRMutator()
    bindings: list[st.Stmt] = []
    for param, arg in zip(fn.params, value.args, strict=True):
        if isinstance(arg, Var):
            rename.var_map[param] = arg
        else:
            bound = Var(param.type, name=fresh(param.name), span=span)
            bindings.append(st.AssignStmt(bound, arg, span=span))
            rename.var_map[param] = bound
    for s in stmts:
        for var in stmt_definitions(s):
            if isinstance(var, IterArg):
                init = rename.mutate_expr(var.init_value) if var.init_value is not None else None
                copy: Var = records.replace(var, name=fresh(var.name), init_value=init)
            else:
                copy = Var(var.type, name=fresh(var.name), span=var.span)
            rename.var_map[var] = copy
    body = [rename.mutate_stmt(s) for s in stmts]
    scope = st.ScopeStmt(st.SeqStmts(tuple(body), span=span), name_hint=fn.name, span=span)
    results: dict[Var, Var] = {}
    if isinstance(stmt, st.AssignStmt):
        returned = rename.mutate_expr(values[0])
        assert isinstance(returned, Var)
        results[stmt.var] = returned
    return bindings, scope, results


def unreferenced(program_functions: list[Function], inlined: set[str]) -> list[Function]:
    """``program_functions`` without the inlined functions no function names any more."""
    left: Counter[str] = Counter()
    for fn in program_functions:
        left += kernel_references(fn)
    return [fn for fn in program_functions if fn.name not in inlined or left[fn.name]]
