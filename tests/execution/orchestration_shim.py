"""Running a tensor-level program end to end: its orchestration C++ and its kernels' C++ on
pto-isa's CPU simulator, with a small host shim in place of the PTO2 runtime.

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
from dataclasses import dataclass, field

import numpy as np

from ptoc import driver
from ptoc.codegen.cce.function import kernel_name
from ptoc.codegen.cce.orchestration import generate_orchestration
from ptoc.diagnostics import Severity
from ptoc.ir import stmt as st
from ptoc.ir.function import Function, Program
from ptoc.ir.types import ScalarType, TensorType
from ptoc.passes.irutil import walk_stmts
from ptoc.run.harness import GUARD_BYTES, MAIN, PRELUDE

ORCHESTRATION_MARK = "// Orchestration function "
CONFIG_MARK = "// ---- kernel_config.py ----"
FUNC_ID = re.compile(r'"func_id": (\d+), "source": [^\n]*"(\w+)\.cpp"\)')
ARGUMENT = re.compile(r"#define ARG_(PTR|SCALAR)_(\w+) (\d+)")

SHIM = r"""
// ---- ptoc test shim: the PTO2 orchestration API on the CPU, tasks run when submitted ----
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


@dataclass
class HostArgument:
    """One slot of the orchestration's ``args``: a parameter or a returned tensor's buffer."""

    name: str
    kind: str  # "PTR" or "SCALAR"
    index: int


@dataclass
class Orchestrated:
    """A compiled tensor-level program: the translation unit and what its arguments are."""

    source: str
    program: Program  # after the pipeline
    function: Function  # the orchestration function after the pipeline
    arguments: list[HostArgument] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)  # by func_id


def compile_orchestrated(source: str, function: str, path: str = "program.py") -> Orchestrated:
    """Compile ``function`` (an Orchestration function, or one whose incore scopes make it
    one) and its kernels to CCE C++, and put them in one translation unit with the shim."""
    result = driver.compile_source(source, "cce", None, path=path)  # kernels too
    errors = [d.format() for d in result.diagnostics if d.severity is Severity.ERROR]
    assert not errors, errors
    # (a file of several programs, such as one per @pl.jit entry: the one defining function)
    outputs = [
        o
        for o in result.programs
        if o.pipeline is not None and o.pipeline.program.function(function) is not None
    ]
    assert len(outputs) == 1, f"{len(outputs)} programs define {function}"
    output = outputs[0]
    assert output.pipeline is not None
    program = output.pipeline.program
    found = program.function(function)
    assert found is not None
    text = output.text
    assert ORCHESTRATION_MARK in text, "no orchestration code was generated"
    kernels_text, rest = text.split(ORCHESTRATION_MARK, 1)
    host, config = rest.split(CONFIG_MARK, 1)
    host = ORCHESTRATION_MARK + host.replace('#include "pto_orchestration_api.h"', "")
    kernels = [name for _, name in sorted((int(i), n) for i, n in FUNC_ID.findall(config))]
    table = ", ".join(f"ptoc_kernels::{kernel_name(k)}" for k in kernels)
    # the host code's names for the arguments: the source's, unless they would clash
    named = dict((cpp, source) for source, cpp in generate_orchestration(program, found).arguments)
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
    return Orchestrated(unit, program, found, sorted(arguments, key=lambda a: a.index), kernels)


def returned_names(function: Function) -> list[str]:
    """The names of the values the function returns, in order."""
    for stmt in walk_stmts(function.body):
        if isinstance(stmt, st.ReturnStmt):
            return [getattr(v, "name", "") for v in stmt.values]
    return []


def out_aliases(program: Program, function: Function) -> dict[str, str]:
    """``output_1 = kernel(x, output)``: the call's result is the Out parameter it was passed
    (a JIT entry returns it), by name."""
    from ptoc.ir.expr import Call, GlobalVar, Var
    from ptoc.ir.function import ParamDirection

    aliases: dict[str, str] = {}
    for stmt in walk_stmts(function.body):
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


def host_inputs(
    compiled: Orchestrated, inputs: dict[str, np.ndarray]
) -> list[tuple[str, np.ndarray | None, TensorType | ScalarType]]:
    """Each argument slot: its name, its value (None for a returned tensor's zeroed buffer)
    and its type."""
    fn = compiled.function
    by_name = {p.name: p for p in fn.params}
    aliases = out_aliases(compiled.program, fn)
    returned = {name: k for k, name in enumerate(returned_names(fn))}
    for name, k in list(returned.items()):
        if aliases.get(name) in by_name:  # the Out parameter it was passed
            returned[aliases[name]] = k
    slots: list[tuple[str, np.ndarray | None, TensorType | ScalarType]] = []
    covered: set[int] = set()
    for argument in compiled.arguments:
        param = by_name.get(argument.name)
        if param is not None:
            assert isinstance(param.type, TensorType | ScalarType)
            slots.append((param.name, inputs[param.name], param.type))
            if param.name in returned:  # ``return c`` of an Out parameter (a JIT entry's)
                covered.add(returned[param.name])
            continue
        position = returned[argument.name]
        covered.add(position)
        type_ = fn.return_types[position]
        assert isinstance(type_, TensorType)
        slots.append((f"return {position}", None, type_))
    missing = set(range(len(fn.return_types))) - covered
    assert not missing, f"results {sorted(missing)} have no buffer among the host arguments"
    return slots
