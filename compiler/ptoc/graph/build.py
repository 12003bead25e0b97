"""Building the task graph of one function from its IR (as the front end makes it, before the
passes): one task per kernel launch site, in program order. Loops are not unrolled: a task in
a loop is one node that names its loops. Edges: each ``deps=`` entry (a TaskId, an array of
them, a ``task_dummy`` join) and, outside manual scopes, each tensor a task reads that an
earlier task wrote (the runtime's automatic tracking)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..ir import expr as ex
from ..ir import stmt as st
from ..ir.function import Function, ParamDirection, Program
from ..ir.shape import constant_value, static_value
from ..ir.span import Span
from ..ir.types import TASK_ID_TYPE, ArrayType, TensorType
from ..ir.walk import direct_exprs, expr_vars, walk_stmts
from ..mixed_kernels import split_scope
from ..ops import REGISTRY
from .loops import (
    MAX_ITERATIONS,
    MAX_TASKS,
    bounds_text,
    is_spmd_loop,
    jumps,
    launches,
    loop_note,
    trip_count,
)
from .model import Edge, LoopCluster, Task, TaskGraph

#: A warning found while building: (code, message, span).
Finding = tuple[str, str, Span]


class GraphBuilder:
    def __init__(self, program: Program | None, function: Function) -> None:
        self.program = program
        self.function = function
        self.graph = TaskGraph(function.name, function.span)
        self.findings: list[Finding] = []
        self.roots: dict[str, str] = {}  # a tensor variable -> the buffer it names
        self.writer: dict[str, int] = {}  # a buffer -> the last task that wrote it
        self.created: set[str] = set()  # buffers the function creates
        self.tids: dict[str, set[int]] = {}  # a TaskId (or array of them) -> its tasks
        self.temps: dict[str, int] = {}  # a submit's tuple -> its task
        self.bound: dict[int, list[str]] = {}  # a submit's task -> the names it binds
        self.loops: list[str] = []
        self.open: list[int] = []  # the clusters of the loops drawn once around here
        self.scopes: list[str] = []
        self.widths: list[str] = []
        self.scope_deps: list[tuple[ex.Expr, ...]] = []  # an enclosing pl.spmd's deps=
        self.outside: dict[int, set[str]] = {}  # a region -> the names read outside it
        self.halves: dict[int, tuple[st.ScopeStmt, ...]] = {}  # see ``regions``
        self.reads: Counter[str] | None = None  # how often the function reads each name
        self.writes: dict[str, frozenset[str]] = {}  # a kernel -> the parameters it stores to

    def build(self) -> TaskGraph:
        self.stmt(self.function.body)
        return self.graph

    # --- statements ---------------------------------------------------------------------------
    def stmt(self, stmt: st.Stmt | None) -> None:
        if isinstance(stmt, st.SeqStmts):
            for inner in stmt.stmts:
                self.stmt(inner)
        elif isinstance(stmt, st.AssignStmt):
            self.assign(stmt.var, stmt.value)
        elif isinstance(stmt, st.EvalStmt):
            if isinstance(stmt.expr, ex.Call | ex.Submit):
                self.launch(stmt.expr)
        elif isinstance(stmt, st.ForStmt | st.WhileStmt):
            self.loop(stmt)
        elif isinstance(stmt, st.IfStmt):
            self.stmt(stmt.then_body)
            self.stmt(stmt.else_body)
            self.results(stmt.return_vars, stmt.then_body)
        elif isinstance(stmt, st.ScopeStmt):
            self.scope(stmt)

    def loop(self, stmt: st.ForStmt | st.WhileStmt) -> None:
        for arg in stmt.iter_args:
            if arg.init_value is not None:
                self.alias(arg.name, arg.init_value)
        if isinstance(stmt, st.ForStmt):
            label = f"{stmt.kind.value}({bounds_text(stmt)})"
            if self.unrolls(stmt):
                self.unroll(stmt, label)
                return
        else:
            label = "while"
        self.loops.append(label)
        clustered = self.open_cluster(stmt, label)
        self.stmt(stmt.body)
        if clustered:
            self.open.pop()
        self.loops.pop()
        self.results(stmt.return_vars, stmt.body)

    def open_cluster(self, stmt: st.ForStmt | st.WhileStmt, label: str) -> bool:
        """A loop drawn once that launches tasks: a cluster of them, noting how often it
        runs (an SPMD loop is one launch of its blocks, not a loop of tasks)."""
        if launches(stmt.body) == 0 or (isinstance(stmt, st.ForStmt) and is_spmd_loop(stmt)):
            return False
        variable = stmt.loop_var.name if isinstance(stmt, st.ForStmt) else ""
        cluster = LoopCluster(
            len(self.graph.clusters),
            label,
            variable,
            loop_note(stmt),
            stmt.span,
            self.open[-1] if self.open else -1,
        )
        self.graph.clusters.append(cluster)
        self.open.append(cluster.index)
        return True

    def unrolls(self, stmt: st.ForStmt) -> bool:
        """Whether the graph draws each iteration of a loop that launches tasks: constant
        bounds, at most MAX_ITERATIONS of them, the graph within MAX_TASKS (W043 else)."""
        per_trip = launches(stmt.body)
        if per_trip == 0 or is_spmd_loop(stmt) or jumps(stmt):
            return False
        trips = trip_count(stmt)
        if trips is None:
            return False
        total = len(self.graph.tasks) + per_trip * trips
        if trips <= MAX_ITERATIONS and total <= MAX_TASKS:
            return True
        self.findings.append(
            (
                "W043",
                f"the task graph keeps this loop of {trips} iterations ({per_trip * trips} "
                f"tasks) as one node per launch: it unrolls loops of at most {MAX_ITERATIONS} "
                f"iterations into graphs of at most {MAX_TASKS} tasks",
                stmt.loop_var.span,
            )
        )
        return False

    def unroll(self, stmt: st.ForStmt, label: str) -> None:
        """Each iteration in turn, its carried values the previous iteration's yields."""
        start, step = constant_value(stmt.start) or 0, constant_value(stmt.step) or 1
        body = st.body_stmts(stmt.body)
        last = body[-1] if body and isinstance(body[-1], st.YieldStmt) else None
        for trip in range(trip_count(stmt) or 0):
            if trip and last is not None:
                for arg, value in zip(stmt.iter_args, last.values, strict=False):
                    self.alias(arg.name, value)
            self.loops.append(f"{label} {stmt.loop_var.name}={start + trip * step}")
            self.stmt(stmt.body)
            self.loops.pop()
        self.results(stmt.return_vars, stmt.body)

    def results(self, return_vars: tuple[ex.Var, ...], body: st.Stmt | None) -> None:
        last = st.body_stmts(body)[-1] if st.body_stmts(body) else None
        if isinstance(last, st.YieldStmt):
            for var, value in zip(return_vars, last.values, strict=False):
                self.alias(var.name, value)

    def scope(self, stmt: st.ScopeStmt) -> None:
        if stmt.kind is st.ScopeKind.InCore:
            for region in regions(self.halves, stmt):
                self.region(region)
            return
        if stmt.kind is st.ScopeKind.Spmd:
            width = static_value(stmt.core_num) if stmt.core_num is not None else None
            self.widths.append(str(width) if width is not None else "n")
            first = len(self.graph.tasks)
            self.scope_deps.append(stmt.deps)
            self.stmt(stmt.body)
            self.scope_deps.pop()
            self.widths.pop()
            if stmt.task_id is not None:  # the launch's TaskId stands for what it launched
                self.tids[stmt.task_id.name] = set(range(first, len(self.graph.tasks)))
            return
        self.scopes.append("manual" if stmt.kind is st.ScopeKind.Manual else "auto")
        self.stmt(stmt.body)
        self.scopes.pop()

    # --- values -------------------------------------------------------------------------------
    def assign(self, var: ex.Var, value: ex.Expr) -> None:
        if isinstance(value, ex.Submit):
            self.temps[var.name] = self.launch(value)
            return
        if isinstance(value, ex.TupleGetItem):
            self.unpacked(var, value)
            return
        if isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
            task = self.launch(value)
            self.temps[var.name] = task
            self.result_of(var, task)
            return
        if isinstance(value, ex.Call):
            self.op_value(var, value)
            return
        self.alias(var.name, value)

    def unpacked(self, var: ex.Var, value: ex.TupleGetItem) -> None:
        path: list[int] = []
        base: ex.Expr = value
        while isinstance(base, ex.TupleGetItem):
            path.insert(0, base.index)
            base = base.tuple_value
        task = self.temps.get(base.name) if isinstance(base, ex.Var) else None
        if task is None:
            return
        self.bound.setdefault(task, []).append(var.name)
        if var.type == TASK_ID_TYPE:
            self.tids[var.name] = {task}
            self.graph.tasks[task].task_id = var.name
            return
        submitted = self.graph.tasks[task].kind != "call"
        index = (path[1] if len(path) > 1 else 0) if submitted else path[0]
        self.result_of(var, task, index)

    def result_of(self, var: ex.Var, task: int, index: int = 0) -> None:
        writes = self.graph.tasks[task].writes
        root = writes[index] if len(writes) > index else var.name
        self.roots[var.name] = root
        self.writer.setdefault(root, task)

    def op_value(self, var: ex.Var, call: ex.Call) -> None:
        if var.type == TASK_ID_TYPE or isinstance(var.type, ArrayType):
            # A TaskId (or an array of them) made by an op stands for the tasks its arguments
            # stand for: none for a new array or an invalid id, all of them for a join.
            # A name the op reads and rebinds (``tids[i] = t``) grows in place: copying its
            # tasks at each store was quadratic in a graph of thousands of submits.
            used = [v.name for arg in call.args for v in expr_vars(arg)]
            joined = self.tids.get(var.name, set()) if var.name in used else set()
            for name in used:
                if name != var.name:
                    joined |= self.tids.get(name, set())
            self.tids[var.name] = joined
        elif isinstance(var.type, TensorType) and not any(
            isinstance(v.type, TensorType) for arg in call.args for v in expr_vars(arg)
        ):
            self.created.add(var.name)  # a tensor made from no tensor is a new buffer
            self.roots[var.name] = var.name
        elif isinstance(var.type, TensorType) and call.args:
            self.alias(var.name, call.args[0])  # a view of a tensor names its buffer

    def alias(self, name: str, value: ex.Expr) -> None:
        if isinstance(value, ex.Var):
            if value.name in self.tids:
                self.tids[name] = set(self.tids[value.name])
            self.roots[name] = self.root(value.name)

    def root(self, name: str) -> str:
        return self.roots.get(name, name)

    # --- tasks --------------------------------------------------------------------------------
    def launch(self, call: ex.Call | ex.Submit) -> int:
        if isinstance(call, ex.Call) and not isinstance(call.callee, ex.GlobalVar):
            return -1
        kernel = call.kernel if isinstance(call, ex.Submit) else call.callee
        assert isinstance(kernel, ex.GlobalVar)
        fn = self.program.function(kernel.name) if self.program is not None else None
        reads, writes, inputs = self.directions(call.args, fn)
        task = Task(
            len(self.graph.tasks),
            kernel.name,
            self.kind(call),
            call.span,
            fn.span if fn is not None else None,
            self.width(call),
            scope=self.scopes[-1] if self.scopes else "",
            loops=tuple(self.loops),
            reads=tuple(reads),
            writes=tuple(writes),
            cluster=self.open[-1] if self.open else -1,
        )
        self.add(task, call.deps if isinstance(call, ex.Submit) else (), inputs)
        return task.index

    def kind(self, call: ex.Call | ex.Submit) -> str:
        if isinstance(call, ex.Submit):
            return "spmd_submit" if call.spmd else "submit"
        return "call"

    def width(self, call: ex.Call | ex.Submit) -> str:
        if isinstance(call, ex.Submit) and call.core_num is not None:
            value = static_value(call.core_num)
            return str(value) if value is not None else "n"
        return self.widths[-1] if self.widths else "1"

    def directions(
        self, args: tuple[ex.Expr, ...], fn: Function | None
    ) -> tuple[list[str], list[str], set[str]]:
        """The buffers a launch reads and writes, and those it only reads (its In tensors)."""
        reads: list[str] = []
        writes: list[str] = []
        inputs: set[str] = set()
        written = self.kernel_writes(fn) if fn is not None else frozenset()
        for i, arg in enumerate(args):
            if not isinstance(arg, ex.Var) or not isinstance(arg.type, TensorType):
                continue
            direction = ParamDirection.In
            if fn is not None and i < len(fn.param_directions):
                direction = fn.param_directions[i]
            if direction is ParamDirection.In and fn is not None and i < len(fn.params):
                # A 2026-03 kernel's output tensor has no direction of its own: the body's
                # ``pl.store(tile, offsets, shapes, out)`` makes it one.
                if fn.params[i].name in written:
                    direction = ParamDirection.InOut
            buffer = self.root(arg.name)
            if direction is not ParamDirection.Out:
                reads.append(buffer)
            if direction is not ParamDirection.In:
                writes.append(buffer)
            else:
                inputs.add(buffer)
        return reads, writes, inputs

    def kernel_writes(self, fn: Function) -> frozenset[str]:
        """``body_writes`` of a kernel, walked once however often the function launches it."""
        found = self.writes.get(fn.name)
        if found is None:
            found = self.writes[fn.name] = body_writes(fn)
        return found

    def add(self, task: Task, deps: tuple[ex.Expr, ...], inputs: set[str]) -> None:
        self.graph.tasks.append(task)
        waited: set[int] = set()
        for dep in (*deps, *(d for scope in self.scope_deps for d in scope)):
            for used in expr_vars(dep):
                for source in sorted(self.tids.get(used.name, set()) - waited):
                    waited.add(source)
                    self.graph.edges.append(Edge(source, task.index, "deps", used.name))
        for buffer in task.reads:
            writer = self.writer.get(buffer)
            if writer is not None and task.scope != "manual" and writer != task.index:
                self.graph.edges.append(Edge(writer, task.index, "data", buffer))
            elif writer is None and buffer in self.created and buffer in inputs:
                # (an InOut buffer may be initialised by the kernel itself: not said)
                self.findings.append(
                    (
                        "W041",
                        f"the task '{task.kernel}' reads '{buffer}', which no earlier task wrote "
                        "and no parameter provides",
                        task.span,
                    )
                )
        for buffer in task.writes:
            self.writer[buffer] = task.index

    def region(self, scope: st.ScopeStmt) -> None:
        """An InCore region: a task reading the tensors it uses and writing those it assigns."""
        assigned: list[str] = []
        read: list[str] = []  # tensors read before the region assigns them (``c = f(c, x)``)
        stored: list[str] = []  # tensors an op writes (``pl.store(tile, offsets, out)``)
        for s in walk_stmts(scope.body):
            if not isinstance(s, st.AssignStmt | st.EvalStmt):
                continue
            value = s.value if isinstance(s, st.AssignStmt) else s.expr
            read += [
                v.name
                for v in expr_vars(value)
                if isinstance(v.type, TensorType) and v.name not in assigned
            ]
            if isinstance(s, st.AssignStmt) and isinstance(s.var.type, TensorType):
                assigned.append(s.var.name)
            stored += [v.name for v in op_writes(value) if isinstance(v.type, TensorType)]
        outside = self.read_outside(scope)
        known = [
            name
            for name in assigned
            if name in self.roots or name in self.params() or name in outside
        ]
        task = Task(
            len(self.graph.tasks),
            scope.name_hint or f"incore@{scope.span.line}",
            "region",
            scope.span,
            width=self.widths[-1] if self.widths else "1",
            task_id=scope.task_id.name if scope.task_id is not None else "",
            scope=self.scopes[-1] if self.scopes else "",
            loops=tuple(self.loops),
            reads=tuple(dict.fromkeys(self.root(n) for n in read)),
            writes=tuple(dict.fromkeys(self.root(n) for n in [*known, *stored])),
            cluster=self.open[-1] if self.open else -1,
        )
        self.add(task, scope.deps, set())
        if scope.task_id is not None:
            self.tids[scope.task_id.name] = {task.index}

    def read_outside(self, scope: st.ScopeStmt) -> set[str]:
        """The names the function reads outside a region (a tensor the region makes and the
        code after it reads is one it writes: ``acc = pl.matmul(a, b)`` read by the next)."""
        found = self.outside.get(id(scope))
        if found is None:
            # The whole function's reads are counted once; a region's outside is what they
            # hold beyond the region's own (walking the function per region was quadratic:
            # 150 chained regions took 0.4 s).
            if self.reads is None:
                self.reads = _reads(walk_stmts(self.function.body))
            inside = _reads(walk_stmts(scope.body))
            found = {name for name, count in self.reads.items() if count > inside[name]}
            self.outside[id(scope)] = found
        return found

    def params(self) -> set[str]:
        return {p.name for p in self.function.params}

    # --- warnings -----------------------------------------------------------------------------
    def unused_submits(self) -> None:
        """W042: a submit whose TaskId and results nothing reads."""
        read: set[str] = set()
        for stmt in walk_stmts(self.function.body):
            for expr in _read_exprs(stmt):
                read.update(v.name for v in expr_vars(expr))
        for task in self.graph.tasks:
            if task.kind not in ("submit", "spmd_submit"):
                continue
            names = self.bound.get(task.index, [])
            if names and not any(name in read for name in names):
                self.findings.append(
                    (
                        "W042",
                        f"nothing waits for this pl.{task.kind}(self.{task.kernel}, ...) nor reads "
                        f"its result ({', '.join(names)}); a plain call launches it too",
                        task.span,
                    )
                )

    def cycles(self) -> None:
        for cycle in self.graph.cycles():
            first = self.graph.tasks[cycle[0]]
            kernels = " -> ".join(self.graph.tasks[i].kernel for i in [*cycle, cycle[0]])
            self.findings.append(
                ("W040", f"these tasks wait for each other: {kernels}", first.span)
            )


def _read_exprs(stmt: st.Stmt) -> list[ex.Expr]:
    """What a statement reads, leaving out a submit tuple's unpacking (``out = _task[0]``)."""
    if isinstance(stmt, st.AssignStmt):
        return [] if isinstance(stmt.value, ex.TupleGetItem) else [stmt.value]
    return direct_exprs(stmt)


def body_writes(fn: Function) -> frozenset[str]:
    """The parameters the function's body writes through an op (a store's output tensor)."""
    params = {param.name for param in fn.params}
    written: set[str] = set()
    for stmt in walk_stmts(fn.body):
        value = stmt.value if isinstance(stmt, st.AssignStmt) else None
        value = stmt.expr if isinstance(stmt, st.EvalStmt) else value
        if value is not None:
            written.update(v.name for v in op_writes(value) if v.name in params)
    return frozenset(written)


def op_writes(value: ex.Expr) -> list[ex.Var]:
    """The variables an op call writes through (the registry's ``written_params``)."""
    if not isinstance(value, ex.Call) or not isinstance(value.callee, ex.Op):
        return []
    op = REGISTRY.get(value.callee.name)
    if op is None:
        return []
    bound = op.bind(value.args)
    found = [bound.get(name) for name in op.written_params]
    return [arg for arg in found if isinstance(arg, ex.Var)]


def task_graph(program: Program | None, function: Function) -> TaskGraph:
    return GraphBuilder(program, function).build()


def task_findings(program: Program | None, function: Function) -> list[Finding]:
    """The warnings of a function's task graph: W040 cycles, W041 unwritten reads, W042
    submits nothing waits for, W043 loops too long to unroll."""
    return graph_and_findings(program, function)[1]


def graph_and_findings(
    program: Program | None, function: Function
) -> tuple[TaskGraph, list[Finding]]:
    """A function's task graph and its warnings (``task_findings``), from one build."""
    builder = GraphBuilder(program, function)
    graph = builder.build()
    builder.unused_submits()
    builder.cycles()
    # (an unrolled loop meets a launch, or an inner loop, once per iteration: said once)
    return graph, list(dict.fromkeys(builder.findings))


def _reads(stmts: Iterable[st.Stmt]) -> Counter[str]:
    """How many times the statements' own expressions read each name."""
    return Counter(v.name for s in stmts for e in direct_exprs(s) for v in expr_vars(e))


def regions(
    made: dict[int, tuple[st.ScopeStmt, ...]], scope: st.ScopeStmt
) -> tuple[st.ScopeStmt, ...]:
    """The kernels of an InCore scope: a mixed one is two, the cube kernel's product read by
    the vector kernel (``ptoc.mixed_kernels``). Made once per scope and kept in ``made``: the
    builder knows a region by its id."""
    found = made.get(id(scope))
    if found is None:
        found = made[id(scope)] = split_scope(scope) or (scope,)
    return found
