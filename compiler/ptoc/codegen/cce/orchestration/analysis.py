"""What the host code needs to know before it emits: which tensor each variable names (a
parameter or a created tensor, through aliases, loops and kernel results), which created
tensors the caller provides because they are returned, and which kernels are launched."""

from __future__ import annotations

from ....diagnostics import DiagnosticBag
from ....ir import expr as ex
from ....ir import stmt as st
from ....ir.function import Function, Program
from ....ir.span import Span
from ....ops.registry import PipeType
from ....passes.irutil import final_yield, walk_stmts
from ....passes.op_info import op_def, stored_into
from ....records import record
from ...common import CodegenError


@record
class Kernel:
    """A kernel the orchestration launches: its id (order of first launch) and core."""

    name: str
    func_id: int
    core: str  # "aiv" (vector core) or "aic" (cube core)


def core_of(kernel: Function) -> str:
    """A kernel that uses the cube (pipe M) runs on an AIC core, any other on an AIV core."""
    for stmt in walk_stmts(kernel.body):
        value = _called(stmt)
        if isinstance(value, ex.Call):
            op = op_def(value)
            if op is not None and op.pipe is PipeType.M:
                return "aic"
    return "aiv"


def _called(stmt: st.Stmt) -> ex.Expr | None:
    """The value a statement computes: an assignment's, or an expression statement's."""
    if isinstance(stmt, st.AssignStmt):
        return as_call(stmt.value)
    return as_call(stmt.expr) if isinstance(stmt, st.EvalStmt) else None


def as_call(value: ex.Expr) -> ex.Expr:
    """A submit's kernel call (its task); any other value as it is."""
    if isinstance(value, ex.Submit):
        return ex.Call(value.type, callee=value.kernel, args=value.args, span=value.span)
    return value


def returned_param(kernel: Function, index: int) -> int | None:
    """Which parameter the kernel's ``index``-th result is (a stored Out / InOut tensor);
    a result an if / else chooses is one when both branches give the same parameter."""
    definitions: dict[ex.Var, ex.Expr] = {}
    chosen: dict[ex.Var, tuple[ex.Expr, ex.Expr]] = {}  # an if's result: each branch's
    returned: ex.Expr | None = None
    for stmt in walk_stmts(kernel.body):
        if isinstance(stmt, st.AssignStmt):
            definitions[stmt.var] = stmt.value
        elif isinstance(stmt, st.IfStmt):
            then, other = final_yield(stmt.then_body), final_yield(stmt.else_body)
            for k, var in enumerate(stmt.return_vars):
                if (
                    then is not None
                    and other is not None
                    and k < min(len(then.values), len(other.values))
                ):
                    chosen[var] = (then.values[k], other.values[k])
        elif isinstance(stmt, st.ForStmt | st.WhileStmt):
            last = final_yield(stmt.body)
            for k, var in enumerate(stmt.return_vars):
                if k < len(stmt.iter_args):
                    definitions[var] = stmt.iter_args[k]
                elif last is not None and k < len(last.values):
                    definitions[var] = last.values[k]
        elif isinstance(stmt, st.ReturnStmt) and index < len(stmt.values):
            returned = stmt.values[index]
    return _param_of(kernel, returned, definitions, chosen, set())


def _param_of(
    kernel: Function,
    returned: ex.Expr | None,
    definitions: dict[ex.Var, ex.Expr],
    chosen: dict[ex.Var, tuple[ex.Expr, ex.Expr]],
    seen: set[int],
) -> int | None:
    """The parameter a value is, through assignments, loops and agreeing if / else branches
    (followed in a loop; a branch point recurses, as deep as ifs nest)."""
    while isinstance(returned, ex.Var) and id(returned) not in seen:
        seen.add(id(returned))
        if returned in kernel.params:
            return kernel.params.index(returned)
        if returned in chosen:
            then, other = chosen[returned]
            found = _param_of(kernel, then, definitions, chosen, set(seen))
            agreed = found == _param_of(kernel, other, definitions, chosen, set(seen))
            return found if agreed else None
        if isinstance(returned, ex.IterArg) and returned not in definitions:
            returned = returned.init_value
            continue
        value = definitions.get(returned)
        if isinstance(value, ex.Call):
            value = stored_into(value)
        returned = value
    return None


class Tensors:
    """The definitions of an orchestration function's variables, read once (``collect``)."""

    def __init__(self, program: Program | None, func: Function, bag: DiagnosticBag) -> None:
        self.program = program
        self.func = func
        self.bag = bag
        self.kernels: dict[str, Kernel] = {}
        self.defs: dict[ex.Var, ex.Expr] = {}
        self.external: dict[ex.Var, str] = {}  # created tensors the caller provides (returned)
        # A loop's result -> its carried value and what the body yields for it.
        self.yielded: dict[ex.Var, tuple[ex.IterArg, ex.Expr]] = {}
        self._results: dict[tuple[str, int], int | None] = {}  # see ``returned_param``
        self._functions: dict[str, Function] | None = None  # the program's, by name

    def function(self, name: str) -> Function | None:
        """``Program.function``, from an index made on first use (it is asked per call)."""
        if self.program is None:
            return None
        if self._functions is None:  # reversed: the first of a name wins, as there
            self._functions = {fn.name: fn for fn in reversed(self.program.functions)}
        return self._functions.get(name)

    def kernel(self, name: str, span: Span) -> Function:
        found = self.function(name)
        if found is None:
            raise CodegenError("E203", f"no function named '{name}' in the program to launch", span)
        return found

    def root(self, var: ex.Expr) -> ex.Expr:
        """The tensor a variable stands for: a parameter or a created tensor."""
        seen: set[int] = set()
        while isinstance(var, ex.Var) and id(var) not in seen:
            seen.add(id(var))
            value = self.defs.get(var)
            if value is None and isinstance(var, ex.IterArg):
                value = var.init_value
            if isinstance(value, ex.TupleGetItem):
                value = self.result_arg(value.tuple_value, value.index)
            elif isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
                value = self.result_arg(value, 0)
            if value is None or not isinstance(value, ex.Var):
                return var
            var = value
        return var

    def step(self, var: ex.Var) -> ex.Expr | None:
        """What a variable is defined as, one step towards the tensor it names."""
        value = self.defs.get(var)
        if isinstance(value, ex.TupleGetItem):
            return self.result_arg(value.tuple_value, value.index)
        if isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
            return self.result_arg(value, 0)
        return value

    def check_carried_return(self, returned: ex.Expr, span: Span) -> None:
        """W011 when a returned tensor is, after a loop, one the loop body made: the host
        code names it, but nothing writes it into the caller's buffer."""
        seen: set[int] = set()
        var: ex.Expr | None = returned
        while isinstance(var, ex.Var) and id(var) not in seen:
            seen.add(id(var))
            if var in self.yielded:
                carried, value = self.yielded[var]
                inner: ex.Expr | None = value
                while isinstance(inner, ex.Var) and inner is not carried and inner in self.defs:
                    inner = self.step(inner)
                if inner is not carried:
                    name = returned.name if isinstance(returned, ex.Var) else "the result"
                    self.bag.error(
                        "W011",
                        f"'{name}' is returned after a loop whose body yields a tensor it "
                        "made (a kernel's output created in the loop): the host code has no "
                        "copy into the caller's buffer, so the caller does not get it (the "
                        "original's neither); create the tensor before the loop and let the "
                        "kernel update it (an InOut parameter) instead",
                        span,
                    )
                    return
                var = carried.init_value
                continue
            var = self.step(var) if var in self.defs else None

    def result_arg(self, value: ex.Expr, index: int) -> ex.Expr | None:
        call = self.defs.get(value) if isinstance(value, ex.Var) else value
        if isinstance(call, ex.Submit):  # out, tid = pl.submit(...): out is the call's result
            call = as_call(call) if index == 0 else None
            index = 0
        if not (isinstance(call, ex.Call) and isinstance(call.callee, ex.GlobalVar)):
            return None
        kernel = self.function(call.callee.name)
        if kernel is None:
            return None
        key = (kernel.name, index)
        if key not in self._results:  # a kernel called in a loop is asked again and again
            self._results[key] = returned_param(kernel, index)
        param = self._results[key]
        return call.args[param] if param is not None and param < len(call.args) else None

    def collect(self) -> None:
        for stmt in walk_stmts(self.func.body):
            if isinstance(stmt, st.AssignStmt):
                self.defs[stmt.var] = stmt.value
            elif isinstance(stmt, st.ForStmt | st.WhileStmt):
                self._loop(stmt)
            elif isinstance(stmt, st.ReturnStmt):
                for returned in stmt.values:
                    self._returned(returned, stmt.span)
            value = _called(stmt)
            if isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
                name = value.callee.name
                if name not in self.kernels:
                    kernel = self.kernel(name, value.span)
                    self.kernels[name] = Kernel(name, len(self.kernels), core_of(kernel))

    def _loop(self, stmt: st.ForStmt | st.WhileStmt) -> None:
        for var, arg in zip(stmt.return_vars, stmt.iter_args, strict=False):
            self.defs[var] = arg
        last = final_yield(stmt.body)
        for k, var in enumerate(stmt.return_vars):
            if last is not None and k < len(last.values) and k < len(stmt.iter_args):
                self.yielded[var] = (stmt.iter_args[k], last.values[k])

    def _returned(self, returned: ex.Expr, span: Span) -> None:
        """A returned tensor the function creates is provided by the caller instead."""
        self.check_carried_return(returned, span)
        root = self.root(returned)
        if (
            isinstance(root, ex.Var)
            and isinstance(returned, ex.Var)
            and root not in self.func.params
            and root not in self.external
        ):
            self.external[root] = returned.name
