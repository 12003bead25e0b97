"""The DSL surface besides ops: helpers, type constructors, decorators and enumerations,
with the one-line docs that completion and hover show. Ops live in the registry."""

from __future__ import annotations

from enum import Enum

from .ir.dsl_enums import DSL_ENUMS
from .ir.dtype import DTYPE_BY_NAME
from .ir.function import FunctionType
from .ir.types import BLayout, MemorySpace, PadMode, TensorLayout
from .ops.registry import PipeType
from .records import record


class SurfaceKind(Enum):
    HELPER = "helper"
    TYPE = "type"
    DECORATOR = "decorator"
    DTYPE = "dtype"
    ENUM = "enum"
    NAMESPACE = "namespace"
    LAYOUT = "layout"


@record(frozen=True)
class SurfaceEntry:
    name: str
    kind: SurfaceKind
    signature: str
    doc: str
    loop: bool = False  # a helper that heads a `for` loop
    new: bool = False  # a helper only PyPTO 2026-08 has
    bare: bool = False  # a type recognised without the module prefix (as the original does)


# 2026-08's scopes (spec §6), loops (§5) and statement helpers: what completion and hover
# say about them; the front end's rules for them are in frontend/lower/scopes.py and loops.py.
_SCOPES = [
    (
        "at",
        "at(level=pl.Level.CORE_GROUP, role=None, *, optimizations=[...], name_hint=..., "
        "deps=[...])",
        "`with pl.at(level=...):` a region at one level of the machine; at CORE_GROUP its body "
        "becomes an InCore kernel. `as tid` binds the launch's task id.",
    ),
    (
        "scope",
        "scope(mode=pl.ScopeMode.AUTO)",
        "A runtime scope with automatic or manual dependencies.",
    ),
    ("manual_scope", "manual_scope()", "A runtime scope whose dependencies are given by hand."),
    ("cluster", "cluster(name_hint=...)", "A co-scheduled AIC + AIV group."),
]
_LOOPS_2026_08 = [
    ("unroll", "unroll(start, stop, step=1)", "A loop unrolled at compile time: constant bounds."),
    (
        "pipeline",
        "pipeline(start, stop, step=1, *, stage=N, init_values=(...))",
        "A software-pipelined loop of N stages.",
    ),
    (
        "spmd",
        "spmd(core_num, *, sync_start=False, name_hint=..., deps=[...])",
        "`for i in pl.spmd(n):` a data-parallel launch over n blocks; the body is a kernel and "
        "i its block index. Also `with pl.spmd(n):`.",
    ),
    (
        "split_aiv",
        "split_aiv(2, *, mode=pl.SplitMode.UP_DOWN)",
        "`for lane in pl.split_aiv(2, mode=...):` a region run on both vector lanes.",
    ),
]
# 2026-08's task-graph helpers (spec §7); the front end's rules are in frontend/lower/tasks.py.
_TASK_HELPERS = [
    (
        "submit",
        "submit(self.kernel, *args, deps=[...], dumps=[...], allow_early_resolve=False, "
        "predicate=(t[i] > 0))",
        "Launch a program kernel as a task: `out, tid = pl.submit(self.k, a, b, deps=[t1])` "
        "gives the kernel's result and the task's TaskId.",
    ),
    (
        "spmd_submit",
        "spmd_submit(self.kernel, *args, core_num=N, sync_start=False, deps=[...], "
        "allow_early_resolve=False, predicate=(t[i] > 0))",
        "Launch a program kernel as one task fanned out over core_num blocks: "
        "`out, tid = pl.spmd_submit(self.k, a, core_num=8)`.",
    ),
    (
        "no_dep",
        "no_dep(tensor)",
        "Marks one argument of a kernel call as contributing no dependency edge.",
    ),
]
_STATEMENT_HELPERS = [
    ("static_assert", 'static_assert(condition, "message")', "A compile-time check."),
    ("static_print", "static_print(*values)", "Prints values (or IR) when the kernel is parsed."),
    ("func_attr", "func_attr({...})", "Function attributes; only as the first statement."),
    ("dump_tag", "dump_tag(tensor)", "Marks a tensor for selective dumping."),
]

HELPERS = [
    SurfaceEntry(
        "range",
        SurfaceKind.HELPER,
        "range(stop) / range(start, stop, step=1, init_values=(...))",
        "A sequential loop. With init_values, the target is `i, (a, b)` and the body ends with "
        "`a2, b2 = pl.yield_(...)`.",
        loop=True,
    ),
    SurfaceEntry(
        "parallel",
        SurfaceKind.HELPER,
        "parallel(stop) / parallel(start, stop, step=1, init_values=(...))",
        "Like pl.range, but iterations may run in parallel.",
        loop=True,
    ),
    SurfaceEntry(
        "while_",
        SurfaceKind.HELPER,
        "while_(init_values=(...))",
        "A loop with carried values: `for (a, b) in pl.while_(init_values=(x, y)):` whose first "
        "statement is `pl.cond(expr)`.",
        loop=True,
    ),
    SurfaceEntry(
        "cond",
        SurfaceKind.HELPER,
        "cond(condition)",
        "The condition of a pl.while_ loop; must be its first statement.",
    ),
    SurfaceEntry(
        "yield_",
        SurfaceKind.HELPER,
        "yield_(*values)",
        "Ends a loop body or if branch, giving the carried values / results: `r = pl.yield_(v)`, "
        "`a, b = pl.yield_(x, y)`.",
    ),
    SurfaceEntry(
        "incore",
        SurfaceKind.HELPER,
        "incore()",
        "`with pl.incore():` marks an InCore scope (PyPTO 2026-03; 2026-08 writes "
        "`with pl.at(level=pl.Level.CORE_GROUP):`).",
    ),
    *[SurfaceEntry(name, SurfaceKind.HELPER, signature, doc) for name, signature, doc in _SCOPES],
    *[
        SurfaceEntry(name, SurfaceKind.HELPER, signature, doc, loop=True, new=True)
        for name, signature, doc in _LOOPS_2026_08
    ],
    *[
        SurfaceEntry(name, SurfaceKind.HELPER, signature, doc)
        for name, signature, doc in _STATEMENT_HELPERS
    ],
    *[
        SurfaceEntry(name, SurfaceKind.HELPER, signature, doc, new=True)
        for name, signature, doc in _TASK_HELPERS
    ],
    SurfaceEntry(
        "const",
        SurfaceKind.HELPER,
        "const(value, dtype)",
        "A typed numeric literal, e.g. pl.const(1, pl.INT32).",
    ),
    SurfaceEntry(
        "dynamic",
        SurfaceKind.HELPER,
        'dynamic("N")',
        "A symbolic dimension (module level): every use of the same name is the same dimension.",
    ),
]
TYPES = [
    SurfaceEntry(
        "Tensor",
        SurfaceKind.TYPE,
        "Tensor[[d0, d1, ...], DTYPE(, LAYOUT)]",
        "An N-D tensor in global memory (DDR).",
        bare=True,
    ),
    SurfaceEntry(
        "Tile",
        SurfaceKind.TYPE,
        "Tile[[rows, cols], DTYPE]",
        "A tile in an on-chip buffer (Vec/UB by default).",
        bare=True,
    ),
    SurfaceEntry("Scalar", SurfaceKind.TYPE, "Scalar[DTYPE]", "A scalar value.", bare=True),
    SurfaceEntry(
        "InOut",
        SurfaceKind.TYPE,
        "InOut[Tensor[...]]",
        "A parameter the function reads and writes.",
        bare=True,
    ),
    SurfaceEntry(
        "Out", SurfaceKind.TYPE, "Out[Tensor[...]]", "A parameter the function writes.", bare=True
    ),
    SurfaceEntry(
        "MemRef",
        SurfaceKind.TYPE,
        "MemRef(memory_space, addr, size[, id])",
        "The buffer of a tile or tensor, as printed IR writes it after InitMemRef: "
        "`pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0, 16384, 3)]` "
        "(addr None until AllocateMemoryAddr).",
    ),
    SurfaceEntry(
        "TileView",
        SurfaceKind.TYPE,
        "TileView(valid_shape=[...], stride=[...], start_offset=..., blayout=..., slayout=..., "
        "fractal=..., pad=...)",
        "A tile's layout, the extra argument of a Tile type: block and scalar layout (pl.BLayout), "
        "fractal size, pad mode (pl.PadMode), valid shape, stride and start offset.",
    ),
]
DECORATORS = [
    SurfaceEntry(
        "program",
        SurfaceKind.DECORATOR,
        "@pl.program",
        "A class whose @pl.function methods form one program.",
    ),
    SurfaceEntry(
        "function",
        SurfaceKind.DECORATOR,
        "@pl.function(type=pl.FunctionType.InCore, strict_ssa=False)",
        "A DSL function (a kernel when type=InCore).",
    ),
    SurfaceEntry(
        "inline",
        SurfaceKind.DECORATOR,
        "@pl.inline",
        "A helper whose body is expanded at each call site.",
    ),
]
NAMESPACES = [
    SurfaceEntry(
        "block", SurfaceKind.NAMESPACE, "pl.block", "Tile (block) operations (PyPTO 2026-03)."
    ),
    SurfaceEntry(
        "tile",
        SurfaceKind.NAMESPACE,
        "pl.tile",
        "Tile operations (PyPTO 2026-08's name of pl.block).",
    ),
    SurfaceEntry("tensor", SurfaceKind.NAMESPACE, "pl.tensor", "Tensor operations."),
    SurfaceEntry(
        "system",
        SurfaceKind.NAMESPACE,
        "pl.system",
        "Synchronisation operations (inserted by passes).",
    ),
    SurfaceEntry(
        "array",
        SurfaceKind.NAMESPACE,
        "pl.array",
        "Small rank-1 arrays of integers or TaskIds (PyPTO 2026-08): create, get_element, "
        "update_element.",
    ),
    SurfaceEntry(
        "prefetch",
        SurfaceKind.NAMESPACE,
        "pl.prefetch",
        "L2 prefetch contexts (PyPTO 2026-08): make_context, async_prefetch, session, wait.",
    ),
]
ENUMS: dict[str, list[str]] = {
    "MemorySpace": [m.name for m in MemorySpace],
    "Mem": [m.name for m in MemorySpace],
    **{name: list(enum.__members__) for name, enum in DSL_ENUMS.items()},
    "FunctionType": [f.name for f in FunctionType],
    "PipeType": [p.name for p in PipeType],
    "TensorLayout": [t.name for t in TensorLayout],
    "BLayout": [b.name for b in BLayout],
    "PadMode": [p.name for p in PadMode],
}
ENUM_DOCS = {
    "MemorySpace": "Where a buffer lives: DDR, Vec (UB), Mat (L1), Left (L0A), Right (L0B), Acc "
    "(L0C).",
    "FunctionType": "Opaque (default), Orchestration (host side) or InCore (AICore kernel).",
    "PipeType": "Hardware pipes, for sync ops.",
    "TensorLayout": "ND, DN or NZ.",
    "BLayout": "Tile block layout.",
    "PadMode": "Tile pad mode.",
    "Mem": "PyPTO 2026-08's short name of pl.MemorySpace.",
    "Level": "Where in the machine a function or scope runs (AIV, AIC, CORE_GROUP, ..., HOST).",
    "Role": "A function's role at its level: Orchestrator or SubWorker.",
    "AtomicType": "How a store combines with what is there (None_, Add, ...).",
    "SplitMode": "How a cross-core region splits its data: NONE, UP_DOWN, LEFT_RIGHT.",
    "ScopeMode": "AUTO or MANUAL dependency tracking of a pl.scope.",
    "PadValue": "What reads outside a valid region return: null, zero, max, min.",
    "TileLayout": "Tile block layout (PyPTO 2026-08): none_box, row_major, col_major.",
    "CompactMode": "Tile compact mode: null or normal.",
    "ForKind": "Sequential, Parallel, Unroll or Pipeline.",
    "MaskPattern": "Column patterns of gather / scatter by mask (pl.tile.MaskPattern).",
}
DTYPES = [name for name in DTYPE_BY_NAME]

# What the front end recognises, derived from the entries above (never listed a second time).
HELPER_NAMES = frozenset(item.name for item in HELPERS)
LOOP_HELPERS = frozenset(item.name for item in HELPERS if item.loop and not item.new)
# With 2026-08's: pl.unroll, pl.pipeline, pl.spmd, pl.split_aiv.
ALL_LOOP_HELPERS = frozenset(item.name for item in HELPERS if item.loop)
TYPE_NAMES = frozenset(item.name for item in TYPES)
BARE_TYPE_NAMES = frozenset(item.name for item in TYPES if item.bare)
LAYOUTS = [t.name for t in TensorLayout]


def top_level_entries() -> list[SurfaceEntry]:
    """Everything after `pl.` except ops."""
    entries = HELPERS + TYPES + DECORATORS + NAMESPACES
    entries += [
        SurfaceEntry(name, SurfaceKind.ENUM, f"pl.{name}", ENUM_DOCS[name]) for name in ENUMS
    ]
    entries += [
        SurfaceEntry(name, SurfaceKind.DTYPE, f"pl.{name}", "Element data type.") for name in DTYPES
    ]
    entries += [
        SurfaceEntry(name, SurfaceKind.LAYOUT, f"pl.{name}", "Tensor layout.") for name in LAYOUTS
    ]
    return entries


def entry(name: str) -> SurfaceEntry | None:
    for item in HELPERS + TYPES + DECORATORS + NAMESPACES:
        if item.name == name:
            return item
    return None
