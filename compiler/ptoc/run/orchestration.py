"""Running an orchestration function on pto-isa's CPU simulator: its host C++ and every kernel
it launches in one executable, with a small host shim in place of the PTO2 runtime (what
``ptoc run --sim`` does for a function that launches kernels, such as a ``@pl.jit`` entry).

The shim (``SHIM``) implements the part of the runtime API the generated host code calls
(docs/codegen-orchestration.md): tensors over external buffers and created ones, views,
task parameters, ``pto2_rt_submit_task`` and ``PTO2_SCOPE``. A task runs when it is
submitted: the orchestration submits in program order, which respects every dependency the
runtime would derive from the tensors. A kernel takes raw pointers, so a view that is not one
contiguous range is gathered into a staging buffer before the kernel and scattered back
after it (for output and inout parameters). A window outside its tensor stops the run (exit
code 4). Tensors are never released early (the shim keeps a created tensor while a handle to
it exists), so it does not model the runtime's scope-based reuse.

The translation unit is the program's kernels (in ``namespace ptoc_kernels``), the shim, the
orchestration code, and the generic ``main`` of ``ptoc.run.harness`` with one entry: the
orchestration, called with the arguments ``ARG_PTR_*`` / ``ARG_SCALAR_*`` name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..ir import stmt as st
from ..ir.expr import Call, GlobalVar, Var
from ..ir.function import Function, FunctionType, ParamDirection, Program
from ..ir.types import ScalarType, TensorType
from ..ir.walk import walk_stmts
from ..records import field, record
from .harness import GUARD_BYTES, MAIN, PRELUDE

if TYPE_CHECKING:
    import numpy as np

    from .compare import Comparison
    from .simulator import SimArgument, SimRun

ORCHESTRATION_MARK = "// Orchestration function "
CONFIG_MARK = "// ---- kernel_config.py ----"
FUNC_ID = re.compile(r'"func_id": (\d+), "source": [^\n]*"(\w+)\.cpp"\)')
#: The passes that make a function with incore scopes an orchestration function.
OUTLINING = ("ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes")
ARGUMENT = re.compile(r"#define ARG_(PTR|SCALAR)_(\w+) (\d+)")

SHIM = r"""
// ---- ptoc run shim: the PTO2 orchestration API on the CPU, tasks run when submitted ----
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

enum class DataType { FLOAT16, FLOAT32, BFLOAT16, INT8, INT16, INT32, INT64, UINT8, UINT64 };

static size_t ptoc_element_size(DataType t) {
    switch (t) {
        case DataType::INT8: case DataType::UINT8: return 1;
        case DataType::FLOAT16: case DataType::BFLOAT16: case DataType::INT16: return 2;
        case DataType::FLOAT32: case DataType::INT32: return 4;
        default: return 8;
    }
}

[[noreturn]] static void ptoc_shim_fail(const char* message) {
    std::fprintf(stderr, "ptoc-shim: %s\n", message);
    std::exit(4);
}

struct Tensor {
    std::shared_ptr<unsigned char> owned;  // storage of a created tensor
    unsigned char* base = nullptr;         // the whole tensor this one is a window of
    std::vector<int64_t> root;             // that tensor's shape (row-major)
    std::vector<int64_t> shape;
    std::vector<int64_t> offsets;
    DataType dtype = DataType::FLOAT32;

    Tensor view(std::initializer_list<int64_t> dims, std::initializer_list<int64_t> at) const {
        Tensor v = *this;
        v.shape.assign(dims.begin(), dims.end());
        std::vector<int64_t> more(at.begin(), at.end());
        if (v.shape.size() != shape.size() || more.size() != shape.size())
            ptoc_shim_fail("a view of another rank");
        for (size_t i = 0; i < more.size(); ++i) {
            v.offsets[i] += more[i];
            if (more[i] < 0 || more[i] + v.shape[i] > shape[i])
                ptoc_shim_fail("a view leaves its tensor");
        }
        return v;
    }
};

static Tensor ptoc_tensor(unsigned char* base, const uint64_t* shapes, int rank, DataType t) {
    Tensor x;
    x.base = base;
    x.root.assign(shapes, shapes + rank);
    x.shape = x.root;
    x.offsets.assign(rank, 0);
    x.dtype = t;
    return x;
}

static Tensor make_tensor_external(void* addr, const uint64_t* shapes, int rank, DataType t) {
    return ptoc_tensor(static_cast<unsigned char*>(addr), shapes, rank, t);
}

static Tensor make_tensor(const uint64_t* shapes, int rank, DataType t) {
    size_t bytes = ptoc_element_size(t);
    for (int i = 0; i < rank; ++i) bytes *= shapes[i];
    // Created tensors start as NaN-like garbage would on the device: fill with 0xCD bytes.
    std::shared_ptr<unsigned char> storage(new unsigned char[bytes], [](unsigned char* p) {
        delete[] p;
    });
    std::memset(storage.get(), 0xCD, bytes);
    Tensor x = ptoc_tensor(storage.get(), shapes, rank, t);
    x.owned = storage;
    return x;
}

enum PTOParamKind { PTOC_INPUT, PTOC_OUTPUT, PTOC_INOUT, PTOC_SCALAR };

struct PTOParam {
    PTOParamKind kind;
    Tensor tensor;
    uint64_t scalar = 0;
};

static PTOParam make_input_param(const Tensor& t) { return PTOParam{PTOC_INPUT, t, 0}; }
static PTOParam make_output_param(const Tensor& t) { return PTOParam{PTOC_OUTPUT, t, 0}; }
static PTOParam make_inout_param(const Tensor& t) { return PTOParam{PTOC_INOUT, t, 0}; }
static PTOParam make_scalar_param(uint64_t bits) { return PTOParam{PTOC_SCALAR, Tensor{}, bits}; }

enum { PTO2_WORKER_VECTOR = 0, PTO2_WORKER_CUBE = 1 };

using PtocTask = void (*)(__gm__ int64_t*);

struct PTO2Runtime {
    const PtocTask* kernels;
    size_t count;
};

struct PTO2OrchestrationConfig {
    int expected_arg_count;
};

struct PtocScope {
    explicit PtocScope(PTO2Runtime*) {}
};
#define PTO2_SCOPE(rt) if (PtocScope ptoc_scope{rt}; true)

// Visit every element of a window: f(byte offset in the whole tensor, index in the window).
template <typename F>
static void ptoc_each(const Tensor& t, F f) {
    const size_t rank = t.shape.size();
    size_t count = 1;
    for (int64_t d : t.shape) count *= static_cast<size_t>(d);
    std::vector<int64_t> index(rank, 0);
    for (size_t n = 0; n < count; ++n) {
        size_t flat = 0;
        for (size_t i = 0; i < rank; ++i) flat = flat * t.root[i] + t.offsets[i] + index[i];
        f(flat * ptoc_element_size(t.dtype), n);
        for (size_t i = rank; i-- > 0;) {
            if (++index[i] < t.shape[i]) break;
            index[i] = 0;
        }
    }
}

static bool ptoc_contiguous(const Tensor& t) {
    size_t first = 0;
    while (first < t.shape.size() && t.shape[first] == 1) ++first;
    for (size_t i = first + 1; i < t.shape.size(); ++i)
        if (t.shape[i] != t.root[i]) return false;
    return true;
}

static void pto2_rt_submit_task(PTO2Runtime* rt, int func_id, int worker, PTOParam* params,
                                int count) {
    (void)worker;
    if (func_id < 0 || static_cast<size_t>(func_id) >= rt->count) ptoc_shim_fail("no such kernel");
    std::vector<int64_t> args;
    std::vector<std::vector<unsigned char>> staged(count);
    for (int k = 0; k < count; ++k) {
        const PTOParam& p = params[k];
        if (p.kind == PTOC_SCALAR) {
            args.push_back(static_cast<int64_t>(p.scalar));
            continue;
        }
        const Tensor& t = p.tensor;
        if (t.base == nullptr) ptoc_shim_fail("a task parameter names no tensor");
        const size_t size = ptoc_element_size(t.dtype);
        if (ptoc_contiguous(t)) {
            size_t flat = 0;
            for (size_t i = 0; i < t.shape.size(); ++i) flat = flat * t.root[i] + t.offsets[i];
            args.push_back(reinterpret_cast<int64_t>(t.base + flat * size));
            continue;
        }
        std::vector<unsigned char>& buffer = staged[k];
        size_t elements = 1;
        for (int64_t d : t.shape) elements *= static_cast<size_t>(d);
        buffer.resize(elements * size);
        ptoc_each(t, [&](size_t at, size_t n) {
            std::memcpy(&buffer[n * size], t.base + at, size);
        });
        args.push_back(reinterpret_cast<int64_t>(buffer.data()));
    }
    rt->kernels[func_id](args.data());
    for (int k = 0; k < count; ++k) {
        const PTOParam& p = params[k];
        if (staged[k].empty() || p.kind == PTOC_INPUT) continue;
        const size_t size = ptoc_element_size(p.tensor.dtype);
        ptoc_each(p.tensor, [&](size_t at, size_t n) {
            std::memcpy(p.tensor.base + at, &staged[k][n * size], size);
        });
    }
}
// ---- end of the shim ----
"""


@record
class HostArgument:
    """One slot of the orchestration's ``args``: a parameter or a returned tensor's buffer."""

    name: str
    kind: str  # "PTR" or "SCALAR"
    index: int


@record
class Orchestrated:
    """A compiled orchestration function: the translation unit and what its arguments are."""

    source: str
    program: Program  # after the pipeline
    function: Function  # the orchestration function after the pipeline
    arguments: list[HostArgument] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)  # by func_id


@record
class HostSlot:
    """One argument of the orchestration: its name (a parameter's, or ``return K`` for a
    returned tensor's buffer), its value (None for that buffer: zeroed) and its type."""

    name: str
    value: np.ndarray | None
    type: TensorType | ScalarType


def is_orchestration(cce_text: str) -> bool:
    """Whether generated CCE C++ holds host code launching kernels."""
    return ORCHESTRATION_MARK in cce_text


def compile_orchestration(
    program: Program, function: str
) -> tuple[Orchestrated | None, list[Diagnostic]]:
    """``function`` (an Orchestration function, or one whose incore scopes make it one) and
    its kernels compiled to CCE C++ (through the driver, the program narrowed to it) and put
    in one translation unit with the shim; None when the compile reports an error or the
    function launches no kernel."""
    from .. import driver

    # (no function named: the generator then prints every kernel the narrowed program has)
    result = driver.CompileResult("cce", driver.default_pipeline("cce"), None, "pl")
    output = driver.compile_program(driver.narrow(program, function), result, program.span.file)
    if result.has_errors or output.pipeline is None or not is_orchestration(output.text):
        return None, result.diagnostics
    lowered = output.pipeline.program
    found = lowered.function(function)
    if found is None:
        return None, result.diagnostics
    return assemble(output.text, lowered, found), result.diagnostics


def assemble(text: str, program: Program, function: Function) -> Orchestrated:
    """The translation unit of generated CCE C++ holding kernels, an orchestration function
    and its kernel configuration (``program`` and ``function``: after the pipeline)."""
    from ..codegen.cce.function import kernel_name
    from ..codegen.cce.orchestration import generate_orchestration

    kernels_text, rest = text.split(ORCHESTRATION_MARK, 1)
    host, config = rest.split(CONFIG_MARK, 1)
    host = ORCHESTRATION_MARK + host.replace('#include "pto_orchestration_api.h"', "")
    kernels = [name for _, name in sorted((int(i), n) for i, n in FUNC_ID.findall(config))]
    table = ", ".join(f"ptoc_kernels::{kernel_name(k)}" for k in kernels)
    # the host code's names for the arguments: the source's, unless they would clash
    named = {cpp: source for source, cpp in generate_orchestration(program, function).arguments}
    arguments = [HostArgument(named[n], kind, int(i)) for kind, n, i in ARGUMENT.findall(host)]
    entry = (
        f"static const PtocTask kTasks[] = {{{table}}};\n"
        "static void runOrchestration(__gm__ int64_t* args) {\n"
        f"    PTO2Runtime rt{{kTasks, {len(kernels)}}};\n"
        "    aicpu_orchestration_entry(&rt, reinterpret_cast<uint64_t*>(args), "
        f"{len(arguments)});\n"
        "}\n"
        "using PtocKernel = void (*)(__gm__ int64_t*);\n"
        "static const PtocKernel kKernels[] = {runOrchestration};\n"
    )
    unit = "\n".join(
        [
            PRELUDE,
            f"namespace ptoc_kernels {{\n{kernels_text.rstrip()}\n}}  // namespace ptoc_kernels",
            SHIM,
            host,
            entry,
            MAIN.replace("@GUARD@", str(GUARD_BYTES)),
        ]
    )
    return Orchestrated(unit, program, function, sorted(arguments, key=lambda a: a.index), kernels)


def returned_names(function: Function) -> list[str]:
    """The names of the values the function returns, in order."""
    for stmt in walk_stmts(function.body):
        if isinstance(stmt, st.ReturnStmt):
            return [getattr(v, "name", "") for v in stmt.values]
    return []


def out_aliases(program: Program, function: Function) -> dict[str, str]:
    """``output_1 = kernel(x, output)``: the call's result is the Out parameter it was passed
    (a JIT entry returns it), by name; so is a loop's result carrying it, and a copy of it."""
    aliases: dict[str, str] = {}
    for stmt in walk_stmts(function.body):
        if isinstance(stmt, st.LoopStmt):  # a carried tensor stays its initial one's buffer
            for carried, result in zip(stmt.iter_args, stmt.return_vars, strict=False):
                init = getattr(carried.init_value, "name", "")
                aliases[carried.name] = aliases[result.name] = aliases.get(init, init)
            continue
        if isinstance(stmt, st.AssignStmt) and isinstance(stmt.value, Var):
            # ``c_1 = c``: SSA's copy after a call that wrote c in place (an inline helper's
            # ``c = helper(x, c)``) is c's buffer
            name = stmt.value.name
            aliases[stmt.var.name] = aliases.get(name, name)
            continue
        if not (isinstance(stmt, st.AssignStmt) and isinstance(stmt.value, Call)):
            continue
        callee = stmt.value.callee
        target = program.function(callee.name) if isinstance(callee, GlobalVar) else None
        if target is None:
            continue
        outs = [
            arg
            for index, arg in enumerate(stmt.value.args)
            if target.direction(index) is not ParamDirection.In and isinstance(arg, Var)
        ]
        if len(outs) == 1 and len(target.return_types) == 1:
            name = getattr(outs[0], "name", "")
            aliases[stmt.var.name] = aliases.get(name, name)
    return aliases


class UnplacedResult(Exception):
    """A result of the orchestration has no buffer among its host arguments."""


def host_slots(compiled: Orchestrated, inputs: dict[str, np.ndarray]) -> list[HostSlot]:
    """Each argument slot of the orchestration, in order (raises UnplacedResult when a result
    has no buffer among them)."""
    fn = compiled.function
    by_name = {p.name: p for p in fn.params}
    aliases = out_aliases(compiled.program, fn)
    returned = {name: k for k, name in enumerate(returned_names(fn))}
    for name, k in list(returned.items()):
        if aliases.get(name) in by_name:  # the Out parameter it was passed
            returned[aliases[name]] = k
    slots: list[HostSlot] = []
    covered: set[int] = set()
    for argument in compiled.arguments:
        param = by_name.get(argument.name)
        if param is not None:
            assert isinstance(param.type, TensorType | ScalarType)
            slots.append(HostSlot(param.name, inputs[param.name], param.type))
            if param.name in returned:  # ``return c`` of an Out parameter (a JIT entry's)
                covered.add(returned[param.name])
            continue
        if argument.name not in returned:
            raise UnplacedResult(f"host argument '{argument.name}' is no parameter or result")
        position = returned[argument.name]
        covered.add(position)
        type_ = fn.return_types[position]
        assert isinstance(type_, TensorType)
        slots.append(HostSlot(f"return {position}", None, type_))
    missing = set(range(len(fn.return_types))) - covered
    if missing:
        raise UnplacedResult(f"results {sorted(missing)} have no buffer among the host arguments")
    return slots


def slot_arguments(slots: list[HostSlot]) -> list[SimArgument]:
    """The simulator's arguments for the slots: a returned tensor's buffer zeroed."""
    import numpy as np

    from .inputs import static_shape
    from .simulator import SimArgument, scalar_slot, to_device_bytes

    arguments: list[SimArgument] = []
    for slot in slots:
        if isinstance(slot.type, TensorType):
            data = slot.value
            if data is None:
                data = np.zeros(static_shape(slot.name, slot.type))
            arguments.append(SimArgument(to_device_bytes(data, slot.type.dtype)))
        else:
            assert slot.value is not None
            arguments.append(SimArgument(scalar_bits=scalar_slot(slot.value, slot.type.dtype)))
    return arguments


def slot_results(slots: list[HostSlot], run: SimRun) -> dict[str, np.ndarray]:
    """Every tensor slot's contents after the run, by slot name."""
    from .inputs import static_shape
    from .simulator import from_device_bytes

    found: dict[str, np.ndarray] = {}
    for index, slot in enumerate(slots):
        if isinstance(slot.type, TensorType) and index in run.outputs:
            shape = static_shape(slot.name, slot.type)
            found[slot.name] = from_device_bytes(run.outputs[index], slot.type.dtype, shape)
    return found


def reference_tensors(
    program: Program, function: Function, inputs: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The reference interpreter's tensors: each parameter's final contents by name and each
    returned tensor as ``return K``."""
    import numpy as np

    from ..interp import run_function

    arguments = {
        name: (value[()] if value.ndim == 0 else value.copy()) for name, value in inputs.items()
    }
    result = run_function(program, function.name, arguments)
    found = {name: np.asarray(value) for name, value in result.outputs.items()}
    for position, type_ in enumerate(function.return_types):
        if isinstance(type_, TensorType) and position < len(result.returns):
            found[f"return {position}"] = np.asarray(result.returns[position])
    return found


def compare_slots(
    slots: list[HostSlot], actual: dict[str, np.ndarray], expected: dict[str, np.ndarray]
) -> list[Comparison]:
    """One comparison per tensor slot the interpreter has a value for."""
    from .compare import compare

    comparisons: list[Comparison] = []
    for slot in slots:
        if not isinstance(slot.type, TensorType) or slot.name not in expected:
            continue
        want = expected[slot.name]
        got = actual.get(slot.name)
        comparisons.append(
            compare(slot.name, slot.type.dtype, want * float("nan") if got is None else got, want)
        )
    return comparisons


def launches_kernels(program: Program, function: str) -> bool:
    """Whether ``function`` is host code launching kernels: an Orchestration function, or one
    whose incore scopes (``with pl.at(...)``, ``with pl.incore()``) make it one."""
    from .. import driver

    found = program.function(function)
    if found is None:
        return False
    if found.func_type is FunctionType.Orchestration:
        return True
    outlined = driver.run_pipeline(driver.narrow(program, function), OUTLINING)
    after = outlined.program.function(function)
    return after is not None and after.func_type is FunctionType.Orchestration
