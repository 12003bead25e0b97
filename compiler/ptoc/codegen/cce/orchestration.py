"""Host-side C++ for an Orchestration function, on the PTO2 runtime (docs/codegen-orchestration.md).

The orchestration function runs on the AICPU: it wraps the device buffers it is given as
tensors, creates the intermediate tensors, and submits every call of an InCore function as a
task whose parameters say which tensors it reads, writes or updates (the runtime derives the
dependencies between tasks from them). Beside the C++, ``kernel_config`` describes the build:
the runtime, the orchestration source and entry point, and every kernel with its id and core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...diagnostics import Diagnostic, DiagnosticBag
from ...ir import expr as ex
from ...ir import stmt as st
from ...ir.dtype import DataType
from ...ir.function import Function, ParamDirection, Program
from ...ir.shape import static_value
from ...ir.types import ScalarType, TensorType, TupleType, Type
from ...ops.registry import OpDef, PipeType, Role
from ...passes.irutil import final_yield, walk_stmts
from ...passes.op_info import op_def, stored_into
from ..common import CodegenError
from .expressions import binary, bool_literal, unary, unwrap

ENTRY = "aicpu_orchestration_entry"

_RUNTIME_DTYPE: dict[DataType, str] = {
    DataType.FP16: "FLOAT16",
    DataType.FP32: "FLOAT32",
    DataType.BF16: "BFLOAT16",
    DataType.INT8: "INT8",
    DataType.INT16: "INT16",
    DataType.INT32: "INT32",
    DataType.INT64: "INT64",
    DataType.UINT8: "UINT8",
    DataType.UINT64: "UINT64",
}

_SCALAR_CPP: dict[DataType, str] = {
    DataType.FP32: "float",
    DataType.FP16: "float",
    DataType.BF16: "float",
    DataType.BOOL: "bool",
    DataType.INT8: "int8_t",
    DataType.INT16: "int16_t",
    DataType.INT32: "int32_t",
    DataType.INT64: "int64_t",
    DataType.UINT8: "uint8_t",
    DataType.UINT64: "uint64_t",
}

_PARAM_MAKER = {
    ParamDirection.In: "make_input_param",
    ParamDirection.Out: "make_output_param",
    ParamDirection.InOut: "make_inout_param",
}


@dataclass
class Kernel:
    """A kernel the orchestration launches: its id (order of first launch) and core."""

    name: str
    func_id: int
    core: str  # "aiv" (vector core) or "aic" (cube core)


@dataclass
class OrchestrationResult:
    code: str
    kernels: list[Kernel] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def core_of(kernel: Function) -> str:
    """A kernel that uses the cube (pipe M) runs on an AIC core, any other on an AIV core."""
    for stmt in walk_stmts(kernel.body):
        value = (
            stmt.value
            if isinstance(stmt, st.AssignStmt)
            else (stmt.expr if isinstance(stmt, st.EvalStmt) else None)
        )
        if isinstance(value, ex.Call):
            op = op_def(value)
            if op is not None and op.pipe is PipeType.M:
                return "aic"
    return "aiv"


def _runtime_dtype(dtype: DataType, span: object) -> str:
    name = _RUNTIME_DTYPE.get(dtype)
    if name is None:
        raise CodegenError("E400", f"{dtype.name} tensors have no PTO2 runtime data type", span)  # type: ignore[arg-type]
    return f"DataType::{name}"


def _scalar_cpp(t: Type) -> str:
    if isinstance(t, ScalarType):
        return _SCALAR_CPP.get(t.dtype, "int64_t")
    if isinstance(t, TensorType):
        return "Tensor"
    return "auto"


def returned_param(kernel: Function, index: int) -> int | None:
    """Which parameter the kernel's ``index``-th result is (a stored Out / InOut tensor)."""
    definitions: dict[ex.Var, ex.Expr] = {}
    returned: ex.Expr | None = None
    for stmt in walk_stmts(kernel.body):
        if isinstance(stmt, st.AssignStmt):
            definitions[stmt.var] = stmt.value
        elif isinstance(stmt, st.ForStmt | st.WhileStmt):
            last = final_yield(stmt.body)
            for k, var in enumerate(stmt.return_vars):
                if k < len(stmt.iter_args):
                    definitions[var] = stmt.iter_args[k]
                elif last is not None and k < len(last.values):
                    definitions[var] = last.values[k]
        elif isinstance(stmt, st.ReturnStmt) and index < len(stmt.values):
            returned = stmt.values[index]
    seen: set[int] = set()
    while isinstance(returned, ex.Var) and id(returned) not in seen:
        seen.add(id(returned))
        if returned in kernel.params:
            return kernel.params.index(returned)
        if isinstance(returned, ex.IterArg) and returned not in definitions:
            returned = returned.init_value
            continue
        value = definitions.get(returned)
        if isinstance(value, ex.Call):
            value = stored_into(value)
        returned = value
    return None


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text if text else "")


class OrchestrationCodegen:
    def __init__(self, program: Program | None, func: Function) -> None:
        self.program = program
        self.func = func
        self.out = _Lines()
        self.names: dict[ex.Var, str] = {}  # C++ expression of each tensor / scalar variable
        self.kernels: dict[str, Kernel] = {}
        self.defs: dict[ex.Var, ex.Expr] = {}
        self.external: dict[ex.Var, str] = {}  # created tensors the caller provides (returned)
        self.tasks = 0
        self.diagnostics = DiagnosticBag()
        # A loop's result -> its carried value and what the body yields for it.
        self.yielded: dict[ex.Var, tuple[ex.IterArg, ex.Expr]] = {}

    # --- analysis ------------------------------------------------------------------------

    def kernel(self, name: str, span: object) -> Function:
        found = self.program.function(name) if self.program is not None else None
        if found is None:
            raise CodegenError("E203", f"no function named '{name}' in the program to launch", span)  # type: ignore[arg-type]
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

    def check_carried_return(self, returned: ex.Expr, span: object) -> None:
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
                    self.diagnostics.error(
                        "W011",
                        f"'{name}' is returned after a loop whose body yields a tensor it "
                        "made (a kernel's output created in the loop): the host code has no "
                        "copy into the caller's buffer, so the caller does not get it (the "
                        "original's neither); create the tensor before the loop and let the "
                        "kernel update it (an InOut parameter) instead",
                        span,  # type: ignore[arg-type]
                    )
                    return
                var = carried.init_value
                continue
            var = self.step(var) if var in self.defs else None

    def result_arg(self, value: ex.Expr, index: int) -> ex.Expr | None:
        call = self.defs.get(value) if isinstance(value, ex.Var) else value
        if not (isinstance(call, ex.Call) and isinstance(call.callee, ex.GlobalVar)):
            return None
        kernel = self.program.function(call.callee.name) if self.program is not None else None
        if kernel is None:
            return None
        param = returned_param(kernel, index)
        return call.args[param] if param is not None and param < len(call.args) else None

    def collect(self) -> None:
        for stmt in walk_stmts(self.func.body):
            if isinstance(stmt, st.AssignStmt):
                self.defs[stmt.var] = stmt.value
            elif isinstance(stmt, st.ForStmt | st.WhileStmt):
                for var, arg in zip(stmt.return_vars, stmt.iter_args, strict=False):
                    self.defs[var] = arg
                last = final_yield(stmt.body)
                for k, var in enumerate(stmt.return_vars):
                    if last is not None and k < len(last.values) and k < len(stmt.iter_args):
                        self.yielded[var] = (stmt.iter_args[k], last.values[k])
            elif isinstance(stmt, st.ReturnStmt):
                for returned in stmt.values:
                    self.check_carried_return(returned, stmt.span)
                    root = self.root(returned)
                    if (
                        isinstance(root, ex.Var)
                        and isinstance(returned, ex.Var)
                        and root not in self.func.params
                        and root not in self.external
                    ):
                        self.external[root] = returned.name
            value = (
                stmt.value
                if isinstance(stmt, st.AssignStmt)
                else (stmt.expr if isinstance(stmt, st.EvalStmt) else None)
            )
            if isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
                name = value.callee.name
                if name not in self.kernels:
                    kernel = self.kernel(name, value.span)
                    self.kernels[name] = Kernel(name, len(self.kernels), core_of(kernel))

    # --- the file ------------------------------------------------------------------------

    def generate(self) -> OrchestrationResult:
        self.collect()
        tensor_params = [p for p in self.func.params if isinstance(p.type, TensorType)]
        scalar_params = [p for p in self.func.params if isinstance(p.type, ScalarType)]
        args = [(p.name, "ARG_PTR_") for p in tensor_params]
        args += [(name, "ARG_PTR_") for name in self.external.values()]
        args += [(p.name, "ARG_SCALAR_") for p in scalar_params]
        head = [
            f"// Orchestration function {self.func.name}: runs on the AICPU, "
            "launches the kernels as PTO2 tasks",
            "// Generated by ptoc",
            "",
            "#include <stddef.h>",
            "#include <stdint.h>",
            "#include <stdio.h>",
            "",
            '#include "pto_orchestration_api.h"',
            "",
        ]
        head += [f"#define {prefix}{name.upper()} {i}" for i, (name, prefix) in enumerate(args)]
        head += [
            "",
            "// Scalar task parameters travel as 64 bits; a float keeps its bits.",
            "static uint64_t float_to_u64(float f) {",
            "    union {",
            "        float f32;",
            "        uint64_t u64;",
            "    } conv;",
            "    conv.u64 = 0;",
            "    conv.f32 = f;",
            "    return conv.u64;",
            "}",
            "",
            'extern "C" {',
            "",
            '__attribute__((visibility("default")))',
            "PTO2OrchestrationConfig aicpu_orchestration_config(uint64_t* args, int arg_count) {",
            "    (void)args;",
            "    (void)arg_count;",
            "    return PTO2OrchestrationConfig{",
            f"        .expected_arg_count = {len(args)},",
            "    };",
            "}",
            "",
            '__attribute__((visibility("default")))',
            f"void {ENTRY}(PTO2Runtime* rt, uint64_t* args, int arg_count) {{",
            "    (void)arg_count;",
        ]
        out = self.out
        out.emit("")
        out.emit("// Device buffers")
        for name, _ in args[: len(tensor_params) + len(self.external)]:
            out.emit(
                f"void* arg_{name}_ptr = reinterpret_cast<void*>(args[ARG_PTR_{name.upper()}]);"
            )
        for p in scalar_params:
            cpp = _scalar_cpp(p.type)
            self.names[p] = p.name
            out.emit(f"{cpp} {p.name} = static_cast<{cpp}>(args[ARG_SCALAR_{p.name.upper()}]);")
        out.emit("")
        out.emit("// External tensors")
        for p in tensor_params:
            self.external_tensor(p, p.name)
        for var, name in self.external.items():
            self.external_tensor(var, name)
        self.body(self.func.body)
        tail = ["}", "", '}  // extern "C"', ""]
        code = "\n".join([*head, *out.lines, *tail])
        kernels = sorted(self.kernels.values(), key=lambda k: k.func_id)
        return OrchestrationResult(code, kernels, self.diagnostics.items)

    def external_tensor(self, var: ex.Var, name: str) -> None:
        t = var.type
        assert isinstance(t, TensorType)
        self.out.emit(f"uint64_t {name}_shapes[{max(t.rank, 1)}] = {{{self.dims(t, var)}}};")
        self.out.emit(
            f"Tensor ext_{name} = make_tensor_external(arg_{name}_ptr, {name}_shapes, "
            f"{max(t.rank, 1)}, {_runtime_dtype(t.dtype, var.span)});"
        )
        self.names[var] = f"ext_{name}"

    def dims(self, t: TensorType, at: ex.Var) -> str:
        del at
        return ", ".join(self.scalar(d) for d in t.shape) if t.shape else "1"

    # --- statements ----------------------------------------------------------------------

    def body(self, stmt: st.Stmt | None) -> None:
        if stmt is None:
            return
        if isinstance(stmt, st.SeqStmts):
            for s in stmt.stmts:
                self.body(s)
            return
        if isinstance(stmt, st.AssignStmt):
            self.assign(stmt)
        elif isinstance(stmt, st.EvalStmt):
            if isinstance(stmt.expr, ex.Call) and isinstance(stmt.expr.callee, ex.GlobalVar):
                self.task(stmt.expr)
            elif isinstance(stmt.expr, ex.Call) and op_def(stmt.expr) is not None:
                op = op_def(stmt.expr)
                assert op is not None
                if op.namespace == "tensor":
                    self.host_op(stmt.expr)
                else:  # a block / system op outside an InCore scope: W024 from the front end
                    self.out.emit(f"// not generated: {op.name}(...) runs in kernels only")
        elif isinstance(stmt, st.ForStmt):
            self.carried(stmt.iter_args)
            i = stmt.loop_var.name
            self.names[stmt.loop_var] = i
            self.out.emit(
                f"for (int64_t {i} = {self.scalar(stmt.start)}; {i} < "
                f"{self.scalar(stmt.stop)}; {i} += {self.scalar(stmt.step)}) {{"
            )
            self.scoped(stmt.body, stmt.iter_args)
            self.out.emit("}")
            self.results(stmt.return_vars, stmt.iter_args)
        elif isinstance(stmt, st.WhileStmt):
            self.carried(stmt.iter_args)
            self.out.emit(f"while ({unwrap(self.scalar(stmt.condition))}) {{")
            self.scoped(stmt.body, stmt.iter_args)
            self.out.emit("}")
            self.results(stmt.return_vars, stmt.iter_args)
        elif isinstance(stmt, st.IfStmt):
            for var in stmt.return_vars:
                self.out.emit(f"{_scalar_cpp(var.type)} {var.name};")
                self.names[var] = var.name
            self.out.emit(f"if ({unwrap(self.scalar(stmt.condition))}) {{")
            self.scoped(stmt.then_body, stmt.return_vars)
            if stmt.else_body is not None:
                self.out.emit("} else {")
                self.scoped(stmt.else_body, stmt.return_vars)
            self.out.emit("}")
        elif isinstance(stmt, st.YieldStmt | st.ReturnStmt):
            for value in stmt.values:
                if isinstance(value.type, ScalarType) and isinstance(stmt, st.ReturnStmt):
                    raise CodegenError(
                        "E400",
                        "an orchestration function returns tensors "
                        "only (a host task has no scalar result)",
                        stmt.span,
                    )
        elif isinstance(stmt, st.ScopeStmt):
            raise CodegenError(
                "E400",
                "an InCore scope left in an orchestration function "
                "(OutlineIncoreScopes did not run)",
                stmt.span,
            )

    def carried(self, iter_args: tuple[ex.IterArg, ...]) -> None:
        for arg in iter_args:
            init = self.value(arg.init_value) if arg.init_value is not None else "{}"
            self.out.emit(f"{_scalar_cpp(arg.type)} {arg.name} = {init};")
            self.names[arg] = arg.name

    def results(self, return_vars: tuple[ex.Var, ...], carried: tuple[ex.Var, ...]) -> None:
        for var, arg in zip(return_vars, carried, strict=False):
            self.names[var] = self.names.get(arg, arg.name)

    def scoped(self, body: st.Stmt, targets: tuple[ex.Var, ...]) -> None:
        """A loop or branch body in its own PTO2 scope (tensors created in it are released
        when it ends); its yield assigns the carried variables / the results."""
        self.out.depth += 1
        self.out.emit("PTO2_SCOPE(rt) {")
        self.out.depth += 1
        self.body(body)
        last = final_yield(body)
        if last is not None:
            for target, value in zip(targets, last.values, strict=False):
                text = self.value(value)
                name = self.names.get(target, target.name)
                if text != name:
                    self.out.emit(f"{name} = {text};")
        self.out.depth -= 1
        self.out.emit("}")
        self.out.depth -= 1

    def assign(self, stmt: st.AssignStmt) -> None:
        var, value = stmt.var, stmt.value
        if isinstance(value, ex.Call) and isinstance(value.callee, ex.GlobalVar):
            self.task(value)
            if isinstance(var.type, TensorType):
                self.names[var] = self.value(self.result_arg(value, 0) or var)
            return
        if isinstance(value, ex.TupleGetItem):
            arg = self.result_arg(value.tuple_value, value.index)
            if arg is not None:
                self.names[var] = self.value(arg)
                return
        if isinstance(value, ex.Var) and isinstance(var.type, TensorType):
            self.names[var] = self.value(value)
            return
        if isinstance(value, ex.Call):
            op = op_def(value)
            if op is not None and op.namespace == "tensor":
                self.tensor_op(var, value, op)
                return
            if op is not None:
                # A block op outside an InCore scope: the front end reported it (W024).
                self.out.emit(f"// not generated: {var.name} = {op.name}(...) runs in kernels only")
                self.names[var] = var.name
                return
        if isinstance(var.type, TupleType):
            return
        self.out.emit(f"{_scalar_cpp(var.type)} {var.name} = {self.scalar(value)};")
        self.names[var] = var.name

    def tensor_op(self, var: ex.Var, call: ex.Call, op: OpDef) -> None:
        if op.role is Role.CREATE:
            if var in self.external:
                return
            t = var.type
            assert isinstance(t, TensorType)
            rank = max(t.rank, 1)
            self.out.emit(f"uint64_t {var.name}_shapes[{rank}] = {{{self.dims(t, var)}}};")
            self.out.emit(
                f"Tensor {var.name} = make_tensor({var.name}_shapes, {rank}, "
                f"{_runtime_dtype(t.dtype, call.span)});"
            )
            self.names[var] = var.name
        elif op.role is Role.VIEW and op.param("offset") is not None and op.block_form is None:
            base, shape, offset = call.args[0], call.args[1], call.args[2]
            self.out.emit(
                f"Tensor {var.name} = {self.value(base)}.view({{{self.ints(shape)}}}, "
                f"{{{self.ints(offset)}}});"
            )
            self.names[var] = var.name
        elif op.role is Role.SCALAR and op.param("axis") is not None:
            tensor, axis = call.args[0].type, call.args[1]
            assert isinstance(tensor, TensorType) and isinstance(axis, ex.ConstInt)
            dim = tensor.shape[axis.value]
            self.out.emit(f"int64_t {var.name} = {self.scalar(dim)};")
            self.names[var] = var.name
        elif op.role is Role.SCALAR and op.param("indices") is not None:
            self.read(var, call)
        else:
            self.host_op(call, var)

    def read(self, var: ex.Var, call: ex.Call) -> None:
        tensor, indices = call.args[0], call.args[1]
        t = tensor.type
        assert isinstance(t, TensorType) and isinstance(indices, ex.MakeTuple)
        root = self.root(tensor)
        if root not in self.func.params:
            raise CodegenError(
                "E400",
                "tensor.read on the host reads a tensor the caller passed in (a parameter)",
                call.span,
            )
        assert isinstance(root, ex.Var)
        flat = "0"
        for k, index in enumerate(indices.elements):
            stride = 1
            for d in t.shape[k + 1 :]:
                stride *= static_value(d) or 1
            term = self.scalar(index) if stride == 1 else f"{self.scalar(index)} * {stride}"
            flat = term if flat == "0" else f"{flat} + {term}"
        cpp = _scalar_cpp(var.type)
        self.out.emit(f"size_t idx_{var.name} = {flat};")
        self.out.emit(
            f"{cpp} {var.name} = static_cast<{cpp}*>(arg_{root.name}_ptr)[idx_{var.name}];"
        )
        self.names[var] = var.name

    def host_op(self, expr: ex.Expr, var: ex.Var | None = None) -> None:
        """An op the host cannot run: left out, with a comment and a W010 warning (as the
        original leaves it out); a later use of its result names an undeclared variable."""
        name = expr.op_name if isinstance(expr, ex.Call) else type(expr).__name__
        target = f"{var.name} = " if var is not None else ""
        self.out.emit(f"// not generated: {target}{name}(...) computes on tensors (W010)")
        self.diagnostics.error(
            "W010",
            f"'{name}' computes on tensors, which the host code does not do: it is left "
            "out of the orchestration C++; put it in a kernel (an InCore function or a "
            "`with pl.incore():` scope)",
            expr.span,
        )
        if var is not None:
            self.names[var] = var.name

    def task(self, call: ex.Call) -> None:
        assert isinstance(call.callee, ex.GlobalVar)
        kernel = self.kernel(call.callee.name, call.span)
        params: list[str] = []
        for i, arg in enumerate(call.args):
            if isinstance(arg.type, TensorType):
                params.append(f"{_PARAM_MAKER[kernel.direction(i)]}({self.value(arg)})")
            else:
                params.append(f"make_scalar_param({self.scalar_bits(arg)})")
        name = f"params_t{self.tasks}"
        info = self.kernels[kernel.name]
        worker = "PTO2_WORKER_CUBE" if info.core == "aic" else "PTO2_WORKER_VECTOR"
        self.out.emit("")
        self.out.emit(f"// Task {self.tasks}: {kernel.name}")
        self.out.emit(f"PTOParam {name}[] = {{")
        for p in params:
            self.out.emit(f"    {p},")
        self.out.emit("};")
        self.out.emit(f"pto2_rt_submit_task(rt, {info.func_id}, {worker}, {name}, {len(params)});")
        self.tasks += 1

    # --- values --------------------------------------------------------------------------

    def value(self, expr: ex.Expr) -> str:
        if isinstance(expr, ex.Var) and isinstance(expr.type, TensorType):
            if expr in self.names:
                return self.names[expr]
            raise CodegenError(
                "E400", f"tensor '{expr.name}' is not available on the host", expr.span
            )
        return self.scalar(expr)

    def scalar_bits(self, expr: ex.Expr) -> str:
        """A scalar task parameter as the 64 bits the runtime passes."""
        if isinstance(expr, ex.ConstFloat):
            return f"float_to_u64({expr.value:f}f)"
        t = expr.type
        if isinstance(t, ScalarType) and t.dtype.is_float:
            return f"float_to_u64({self.scalar(expr)})"
        return f"(uint64_t){self.scalar(expr)}"

    def ints(self, expr: ex.Expr) -> str:
        elements = expr.elements if isinstance(expr, ex.MakeTuple) else (expr,)
        return ", ".join(self.scalar(e) for e in elements)

    def scalar(self, expr: ex.Expr) -> str:
        if isinstance(expr, ex.ConstBool):
            return bool_literal(expr.value)
        if isinstance(expr, ex.ConstInt):
            return str(expr.value)
        if isinstance(expr, ex.ConstFloat):
            return f"{expr.value!r}f"
        if isinstance(expr, ex.Var):
            return self.names.get(expr, expr.name)
        if isinstance(expr, ex.Binary):
            return binary(expr.op, self.scalar(expr.lhs), self.scalar(expr.rhs))
        if isinstance(expr, ex.Unary):
            return unary(expr.op, self.scalar(expr.operand))
        raise CodegenError("E400", f"{type(expr).__name__} has no host C++ form", expr.span)


def generate_orchestration(program: Program | None, func: Function) -> OrchestrationResult:
    """The orchestration C++ of ``func`` (raises CodegenError for what it cannot express)."""
    return OrchestrationCodegen(program, func).generate()


def kernel_config(func: Function, kernels: list[Kernel]) -> str:
    """The build description the runtime's tools read (``kernel_config.py``)."""
    lines = [
        "# Kernel and orchestration configuration (generated by ptoc)",
        "",
        "from pathlib import Path",
        "",
        "_ROOT_DIR = Path(__file__).parent",
        "",
        "# The tensormap_and_ringbuffer runtime: 3 scheduler threads and 1 orchestrator.",
        "RUNTIME_CONFIG = {",
        '    "runtime": "tensormap_and_ringbuffer",',
        '    "aicpu_thread_num": 4,',
        '    "block_dim": 24,',
        "}",
        "",
        "ORCHESTRATION = {",
        f'    "source": str(_ROOT_DIR / "orchestration" / "{func.name}.cpp"),',
        f'    "function_name": "{ENTRY}",',
        "}",
        "",
        "KERNELS = [",
    ]
    lines += [
        f'    {{"func_id": {k.func_id}, "source": str(_ROOT_DIR / "kernels" / "{k.core}" / '
        f'"{k.name}.cpp"), "core_type": "{k.core}"}},'
        for k in kernels
    ]
    lines += ["]", ""]
    return "\n".join(lines)
