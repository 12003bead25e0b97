"""The catalog of diagnostic codes. Codes are stable: never renumber, only add.

E0xx syntax and statement forms, E1xx types and annotations, E2xx names and scopes,
E3xx operators, E4xx back end (passes, code generation), E9xx internal.
Each entry carries the text of the diagnostics reference (docs/diagnostics.md is generated
from it): a failing example and its fix.
"""

from __future__ import annotations

from ..records import record, replace
from .diagnostic import Diagnostic, Severity


@record(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    severity: Severity
    summary: str
    example: str = ""
    fix: str = ""


_E = Severity.ERROR
_W = Severity.WARNING

_ENTRIES = [
    # --- syntax and statement forms -------------------------------------------------------
    CodeInfo(
        "E000",
        "SYNTAX_ERROR",
        _E,
        "The file is not valid Python.",
        "x = pl.add(a, b",
        "x = pl.add(a, b)",
    ),
    CodeInfo(
        "E001",
        "UNSUPPORTED_STATEMENT",
        _E,
        "A statement kind the DSL does not accept (pass, break, try, x += 1, ...).",
        "x += 1",
        "x = x + 1",
    ),
    CodeInfo(
        "E002",
        "INVALID_ASSIGNMENT",
        _E,
        "An assignment target other than a name or a tuple of names.",
        "a[0] = pl.add(x, y)",
        "a0 = pl.add(x, y)",
    ),
    CodeInfo(
        "E003",
        "INVALID_LOOP_TARGET",
        _E,
        "A for-loop target that is not `i` or `i, (a, b)`.",
        "for i, a in pl.range(4, init_values=(x,)):",
        "for i, (a,) in pl.range(4, init_values=(x,)):",
    ),
    CodeInfo(
        "E004",
        "INVALID_RANGE_USAGE",
        _E,
        "Wrong arguments to pl.range / pl.parallel / pl.while_ / pl.cond.",
        "for i in pl.range():",
        "for i in pl.range(16):",
    ),
    CodeInfo(
        "E005",
        "MISSING_RANGE_CALL",
        _E,
        "A for loop that does not iterate over pl.range, pl.parallel or pl.while_.",
        "for i in [0, 1, 2]:",
        "for i in pl.range(3):",
    ),
    CodeInfo(
        "E006",
        "TUPLE_UNPACKING_ERROR",
        _E,
        "Unpacking a value that is not a tuple, or into the wrong number of names.",
        "a, b = pl.add(x, y)",
        "c = pl.add(x, y)",
    ),
    CodeInfo(
        "E007",
        "ITER_ARG_MISMATCH",
        _E,
        "The number of loop-carried names differs from init_values.",
        "for i, (a, b) in pl.range(4, init_values=(x,)):",
        "for i, (a,) in pl.range(4, init_values=(x,)):",
    ),
    CodeInfo(
        "E008",
        "SEED_YIELD_SPELLING",
        _E,
        "`pl.yield(...)` is not valid Python (`yield` is a keyword); the language spells it "
        "`pl.yield_(...)`.",
        "acc2 = pl.yield(acc)",
        "acc2 = pl.yield_(acc)",
    ),
    CodeInfo(
        "E009",
        "YIELD_COUNT_MISMATCH",
        _E,
        "A yield gives a different number of values than the loop carries or the other branch "
        "yields.",
        "r = pl.yield_(a, b)  # loop carries one value",
        "r = pl.yield_(a)",
    ),
    CodeInfo(
        "E010",
        "MISSING_YIELD",
        _E,
        "A loop with init_values whose body does not end with pl.yield_, or an if whose results "
        "are not yielded by every branch.",
        "for i, (acc,) in pl.range(4, init_values=(x,)):\n    y = pl.add(acc, acc)",
        "for i, (acc,) in pl.range(4, init_values=(x,)):\n    y = pl.add(acc, acc)\n    acc2 = "
        "pl.yield_(y)",
    ),
    CodeInfo(
        "E011",
        "UNSUPPORTED_EXPRESSION",
        _E,
        "An expression kind the DSL does not accept (lambda, comprehension, f-string, ternary, "
        "...).",
        "n = 4 if big else 2",
        "use an if statement with pl.yield_",
    ),
    CodeInfo(
        "E012",
        "INVALID_DECORATOR",
        _E,
        "A decorator or program class the front end cannot read (e.g. a program with no "
        "functions).",
        "@pl.program\nclass Empty:\n    pass",
        "add at least one @pl.function method",
    ),
    CodeInfo(
        "E013",
        "INVALID_CONTEXT_MANAGER",
        _E,
        "A with statement other than `with pl.incore():`.",
        "with open('f'):",
        "with pl.incore():",
    ),
    CodeInfo(
        "E014",
        "MISPLACED_STATEMENT",
        _E,
        "A statement in a place it has no meaning (pl.cond outside pl.while_, code after return).",
        "pl.cond(x < 4)  # outside pl.while_",
        "put pl.cond first in a pl.while_ body",
    ),
    CodeInfo(
        "E015",
        "STATIC_ASSERTION_FAILED",
        _E,
        "A `pl.static_assert(condition, message)` whose condition is false at compile time.",
        'pl.static_assert(TILE % 16 == 0, "TILE must be a multiple of 16")  # TILE = 24',
        "TILE = 32",
    ),
    # --- types and annotations -------------------------------------------------------------
    CodeInfo(
        "E100",
        "MISSING_TYPE_ANNOTATION",
        _E,
        "A function parameter without a type annotation.",
        "def f(self, x):",
        "def f(self, x: pl.Tensor[[64], pl.FP32]):",
    ),
    CodeInfo(
        "E101",
        "INVALID_TYPE_ANNOTATION",
        _E,
        "A parameter or return annotation that is not a PyPTO type (in a local annotation: W008).",
        "def f(self, x: int):",
        "def f(self, x: pl.Scalar[pl.INT64]):",
    ),
    CodeInfo(
        "E102",
        "UNSUPPORTED_TYPE",
        _E,
        "A type form not allowed here (a tuple parameter, InOut on a scalar, a layout on a tile).",
        "def f(self, x: pl.InOut[pl.Scalar[pl.INT32]]):",
        "def f(self, x: pl.Scalar[pl.INT32]):",
    ),
    CodeInfo(
        "E103",
        "INCOMPLETE_TYPE",
        _E,
        "A type without its shape or dtype, e.g. bare `pl.Tensor`.",
        "x: pl.Tensor",
        "x: pl.Tensor[[64], pl.FP32]",
    ),
    CodeInfo(
        "E104",
        "INVALID_SHAPE",
        _E,
        "A shape that is not a list of ints, pl.dynamic() dims or scalar variables.",
        "pl.Tensor[[64, 'a'], pl.FP32]",
        "pl.Tensor[[64, 128], pl.FP32]",
    ),
    CodeInfo(
        "E105",
        "UNKNOWN_DTYPE",
        _E,
        "An unknown element type.",
        "pl.Tensor[[64], pl.FP31]",
        "pl.Tensor[[64], pl.FP32]",
    ),
    CodeInfo(
        "E106",
        "ANNOTATION_MISMATCH",
        _E,
        "No longer reported: a local annotation that disagrees with the deduced type is W006.",
        "t: pl.Tile[[32, 32], pl.FP16] = pl.load(a_fp32, [0, 0], [32, 32])",
        "t: pl.Tile[[32, 32], pl.FP32] = pl.load(a_fp32, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "E107",
        "RETURN_TYPE_MISMATCH",
        _E,
        "The IR of a function returns values that its return types do not describe (reported by "
        "the Verifier pass; the front end reports a disagreeing return annotation as W007).",
        "def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP16]:\n    return x",
        "def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n    return x",
    ),
    CodeInfo(
        "E108",
        "YIELD_TYPE_MISMATCH",
        _E,
        "A yielded value whose type differs from the loop-carried value or the other branch.",
        "acc2 = pl.yield_(pl.cast(acc, pl.FP16))  # acc is FP32",
        "acc2 = pl.yield_(acc)",
    ),
    CodeInfo(
        "E109",
        "SCALAR_TYPE_ERROR",
        _E,
        "Scalar arithmetic on non-scalars, mixing int and float, or bitwise ops on floats.",
        "n = t + 1  # t is a tile",
        "n2 = pl.adds(t, 1)",
    ),
    CodeInfo(
        "E110",
        "CONDITION_TYPE_ERROR",
        _E,
        "An if / while / pl.cond condition that is not a scalar.",
        "if t:  # t is a tile",
        "if n > 0:",
    ),
    CodeInfo(
        "E111",
        "CALL_ARGUMENT_TYPE",
        _E,
        "An argument to a program function whose kind, dtype or (provably) shape differs from the "
        "parameter's. Shapes that cannot be proven equal or different (a dimension read at run "
        "time) "
        "are accepted; an Orchestration function passing a different static shape to an InCore "
        "kernel is W009.",
        "self.kernel(x_fp16)  # kernel takes FP32",
        "self.kernel(x_fp32)",
    ),
    # --- names and scopes -------------------------------------------------------------------
    CodeInfo(
        "E200",
        "UNDEFINED_VARIABLE",
        _E,
        "A name that is not defined at this point.",
        "y = pl.add(x, z)  # z never assigned",
        "define z first",
    ),
    CodeInfo(
        "E201",
        "SSA_VIOLATION",
        _E,
        "A name assigned twice in the same scope of a strict_ssa function.",
        "@pl.function(strict_ssa=True)\n...\nx = pl.add(a, b)\nx = pl.mul(x, b)",
        "x2 = pl.mul(x, b)",
    ),
    CodeInfo(
        "E202",
        "SCOPE_ERROR",
        _E,
        "A name used outside the scope that defines it (e.g. a loop-carried name after the loop).",
        "for i, (acc,) in pl.range(4, init_values=(x,)):\n    acc2 = pl.yield_(acc)\ny = acc",
        "y = acc2",
    ),
    CodeInfo(
        "E203",
        "UNDEFINED_FUNCTION",
        _E,
        "A call to a program function that does not exist.",
        "y = self.kernal(x)",
        "y = self.kernel(x)",
    ),
    CodeInfo(
        "E204",
        "DUPLICATE_FUNCTION",
        _E,
        "Two functions of one program with the same name.",
        "two `def kernel` in one @pl.program",
        "rename one",
    ),
    CodeInfo(
        "E205",
        "UNSUPPORTED_CLOSURE_VALUE",
        _E,
        "A module-level name whose value the front end cannot evaluate statically.",
        "N = compute_size()  # then used in a shape",
        "N = 64",
    ),
    CodeInfo(
        "E206",
        "CALL_ARITY",
        _E,
        "A call to a program or inline function with the wrong number of arguments.",
        "y = self.kernel(a)  # kernel takes (a, b)",
        "y = self.kernel(a, b)",
    ),
    CodeInfo(
        "E207",
        "EXTERNAL_FUNCTION_CONFLICT",
        _E,
        "A call to a standalone @pl.function whose name is also the name of a function of the "
        "calling program (the original rejects it: the name would mean two functions).",
        "@pl.function\ndef kernel(x: ...): ...\n@pl.program\nclass P:\n    @pl.function\n"
        "    def kernel(self, x: ...): ...\n    @pl.function\n    def main(self, x: ...):\n"
        "        y = kernel(x)",
        "rename the standalone function, or call the method: y = self.kernel(x)",
    ),
    CodeInfo(
        "E208",
        "JIT_EXTERN_SOURCE_MISSING",
        _E,
        "A `@pl.jit.extern` kernel whose `source=` (or `aic_source=` / `aiv_source=`) names a "
        "C++ file that does not exist; the path is relative to the kernel's file.",
        '@pl.jit.extern(source="kernels/missing.cpp", core_type="aiv")\ndef k(x: pl.Tensor): ...',
        '@pl.jit.extern(source="kernels/add.cpp", core_type="aiv")\ndef k(x: pl.Tensor): ...',
    ),
    CodeInfo(
        "E209",
        "JIT_CALL_SPECIALISATION_FAILS",
        _E,
        "A call of a `@pl.jit` kernel whose torch arguments (read from the call's text) give it "
        "shapes or dtypes it cannot take, e.g. a tensor smaller than the kernel's load windows. "
        "The kernel is fine for other shapes; the related location shows where it fails.",
        "a = torch.zeros((64, 64))\ntile_add(a, b, c)  # tile_add loads [128, 128] windows",
        "a = torch.zeros((128, 128))\ntile_add(a, b, c)",
    ),
    CodeInfo(
        "E210",
        "JIT_CALL_ARITY",
        _E,
        "A call of a `@pl.jit` kernel that does not pass each of its parameters once (keyword "
        "options of the runtime, such as `config=`, are not parameters).",
        "tile_add(a, b)  # def tile_add(a, b, c: pl.Out[pl.Tensor])",
        "tile_add(a, b, c)",
    ),
    CodeInfo(
        "E211",
        "JIT_RUNTIME_MISUSE",
        _E,
        "`pl.RUNTIME` where no scalar parameter takes it: it marks a scalar parameter of a "
        "`@pl.jit` kernel as a run-time value (one compiled kernel for every value); a tensor "
        "takes its shape from the call, so `pl.RUNTIME` as its default or its argument means "
        "nothing.",
        "@pl.jit\ndef k(a: pl.Tensor = pl.RUNTIME, n: pl.Scalar[pl.INT32] = 0): ...",
        "@pl.jit\ndef k(a: pl.Tensor, n: pl.Scalar[pl.INT32] = pl.RUNTIME): ...",
    ),
    CodeInfo(
        "E212",
        "JIT_DTYPE_CLASH",
        _E,
        "Two tiles loaded from the same bare `pl.Tensor` parameter annotated with different "
        "dtypes: both hold the tensor's one dtype, so no call can satisfy both.",
        "x: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])\n"
        "y: pl.Tile[[64, 64], pl.FP16] = pl.load(a, [0, 64], [64, 64])",
        "x: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])\n"
        "y = pl.cast(pl.load(a, [0, 64], [64, 64]), pl.FP16)",
    ),
    CodeInfo(
        "E213",
        "CALL_HAS_NO_VALUE",
        _E,
        "The result of a call to a function that declares no return type, assigned to a name: "
        "the call gives no value (the function writes its `pl.Out` parameters only), so the "
        "name would hold nothing. Upstream rejects unpacking results a kernel does not return.",
        "def kernel(self, x: ..., out: pl.Out[...]):  # no return type\n"
        "    pl.store(t, [0, 0], out)\n"
        "...\ny = self.kernel(x, y)",
        "def kernel(self, x: ..., out: pl.Out[...]) -> pl.Tensor[...]:\n"
        "    out = pl.store(t, [0, 0], out)\n    return out",
    ),
    # --- distributed programs and cross-core pipes (spec pypto-2026-08.md sections 9.2, 12) ---
    CodeInfo(
        "E230",
        "WINDOW_BUFFER_PLACEMENT",
        _E,
        "`pld.alloc_window_buffer(...)` anywhere but the right-hand side of a plain `name = ...` "
        "assignment: upstream names the buffer after that target and rejects other forms.",
        "bufs = [pld.alloc_window_buffer(1024)]",
        "buf = pld.alloc_window_buffer(1024)",
    ),
    CodeInfo(
        "E231",
        "WINDOW_BUFFER_NAME_TAKEN",
        _E,
        "Two window buffers of one function with the same name (`name=`, or the assigned name): "
        "every rank finds a buffer by its name, so names are unique.",
        'a = pld.alloc_window_buffer(64, name="sig")\nb = pld.alloc_window_buffer(64, name="sig")',
        'a = pld.alloc_window_buffer(64, name="sig")\nb = pld.alloc_window_buffer(64, name="data")',
    ),
    CodeInfo(
        "E232",
        "WORLD_SIZE_PLACEMENT",
        _E,
        "`pld.world_size()` outside a HOST orchestrator, or inside one of its device scopes "
        "(`pl.at`, `pl.spmd`, ...): the rank count is known on the host only. A kernel asks its "
        "communication context (`pld.nranks(pld.get_comm_ctx(t))`).",
        "@pl.jit.incore\ndef k(t: pld.DistributedTensor[[1, 64], pl.FP32]):\n"
        "    n = pld.world_size()",
        "    n = pld.nranks(pld.get_comm_ctx(t))",
    ),
    CodeInfo(
        "E233",
        "DEVICE_NOT_AT_HOST",
        _E,
        "A call with `device=` (dispatch to a rank) in a function that is not at HOST level: only "
        "a HOST orchestrator dispatches per rank.",
        "@pl.jit\ndef orch(x):\n    kernel(x, device=0)",
        "@pl.jit.host\ndef orch(x):\n    for r in pl.range(pld.world_size()):\n"
        "        kernel(x, device=r)",
    ),
    CodeInfo(
        "E234",
        "PIPE_WRONG_CORE",
        _E,
        "A cross-core pipe op on the wrong core: the cube side (`tpush_to_aiv`, `tpop_from_aiv`, "
        "`tfree_to_aiv`, `aic_initialize_pipe`) in an AIV function, or the vector side "
        "(`tpush_to_aic`, `tpop_from_aic`, `tfree_to_aic`, `aiv_initialize_pipe`) in an AIC one.",
        "@pl.function(type=pl.FunctionType.AIV)\ndef v(self):\n    pl.tpush_to_aiv(t, split=0)",
        "    pl.tpush_to_aic(t, split=0)",
    ),
    CodeInfo(
        "E235",
        "PIPE_SETUP_VALUE",
        _E,
        "An `aic_initialize_pipe` / `aiv_initialize_pipe` setting out of range: `dir_mask` is 1 "
        "(cube to vector), 2 (vector to cube) or 3 (both), `slot_size` and `slot_num` are "
        "positive, `local_slot_num` is positive and at most `slot_num`, and a function sets "
        "each pipe id up once.",
        "pl.aic_initialize_pipe(0, buf, dir_mask=4, slot_size=512)",
        "pl.aic_initialize_pipe(0, buf, dir_mask=2, slot_size=512)",
    ),
    CodeInfo(
        "E236",
        "PEER_BUFFER_UNKNOWN",
        _E,
        "`pl.import_peer_buffer(name=..., peer_func=...)` whose `peer_func` is no function of "
        "the program, or a function that reserves no buffer of that name.",
        'p = pl.import_peer_buffer(name="v2c", peer_func="cube")  # cube reserves "c2v"',
        'p = pl.import_peer_buffer(name="c2v", peer_func="cube")',
    ),
    CodeInfo(
        "E237",
        "RESERVED_BUFFER_NAME_TAKEN",
        _E,
        "Two `pl.reserve_buffer` of one function with the same name: a peer imports a buffer by "
        "its name.",
        'a = pl.reserve_buffer(name="buf", size=4096)\nb = pl.reserve_buffer(name="buf", size=512)',
        'b = pl.reserve_buffer(name="buf2", size=512)',
    ),
    CodeInfo(
        "E238",
        "PIPE_SPLIT_MIXED",
        _E,
        "One pipe (a function's pipe id and direction) whose pushes, pops and frees mix "
        "`split=0` with a split mode (`pl.SplitMode.UP_DOWN`, ...): PTOAS v0.57 rejects it.",
        "pl.tpush_to_aic(a, split=0)\npl.tpush_to_aic(b, split=pl.SplitMode.UP_DOWN)",
        "pl.tpush_to_aic(a, split=0)\npl.tpush_to_aic(b, split=0)",
    ),
    CodeInfo(
        "E239",
        "POP_UNTYPED",
        _E,
        "A `tpop_from_aic` / `tpop_from_aiv` whose tile type is unknown: give `shape=` and "
        "`dtype=`, or make it the value of an annotated assignment.",
        "t = pl.tpop_from_aiv(split=0)",
        "t: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)",
    ),
    # --- task graphs (2026-08, spec §7) -------------------------------------------------------
    CodeInfo(
        "E220",
        "SUBMIT_CALLEE",
        _E,
        "The first argument of `pl.submit` / `pl.spmd_submit` is not a `self.<kernel>` method "
        "reference of the program.",
        "out, tid = pl.submit(kernel, a, out)",
        "out, tid = pl.submit(self.kernel, a, out)",
    ),
    CodeInfo(
        "E221",
        "SUBMIT_UNPACKING",
        _E,
        "A `pl.submit` result unpacked into other than (result, TaskId), or into a number of "
        "results the kernel does not return.",
        "out, extra, tid = pl.submit(self.kernel, a, out)",
        "out, tid = pl.submit(self.kernel, a, out)",
    ),
    CodeInfo(
        "E222",
        "TASK_DEPS_ENTRY",
        _E,
        "A `deps=` entry that is not a TaskId variable, `None` or a `pl.Array` of `pl.TASK_ID` "
        "(a TaskId reached by indexing a flat submit result must be bound by name first).",
        "out, tid = pl.submit(self.k, a, out, deps=[a])",
        "out, tid = pl.submit(self.k, a, out, deps=[first])",
    ),
    CodeInfo(
        "E223",
        "PREDICATE_SHAPE",
        _E,
        "A `predicate=` that is not exactly `tensor[indices] OP int-literal` (one comparison): "
        "the runtime evaluates only that form at the dispatch point.",
        "pl.submit(self.k, x, out, predicate=(flags[0] + 1 > 0))",
        "pl.submit(self.k, x, out, predicate=(flags[0] > 0))",
    ),
    CodeInfo(
        "E224",
        "PREDICATE_PRODUCER_NOT_IN_DEPS",
        _E,
        "The tensor a `predicate=` reads was produced by a submit whose TaskId is not in this "
        "submit's `deps=`: the dispatch-point read would see stale data.",
        "flags, ft = pl.submit(self.gate, x, flags)\n"
        "out, t = pl.submit(self.k, x, out, predicate=(flags[0] > 0))",
        "flags, ft = pl.submit(self.gate, x, flags)\n"
        "out, t = pl.submit(self.k, x, out, deps=[ft], predicate=(flags[0] > 0))",
    ),
    CodeInfo(
        "E225",
        "SPMD_SUBMIT_CORE_NUM",
        _E,
        "`pl.spmd_submit` without its required `core_num=` keyword (the positional slots are "
        "the kernel's arguments).",
        "out, tid = pl.spmd_submit(self.k, x, out)",
        "out, tid = pl.spmd_submit(self.k, x, out, core_num=8)",
    ),
    CodeInfo(
        "E226",
        "SPMD_DEPS_WITHOUT_AS",
        _E,
        "`deps=` on a `pl.spmd` region that does not bind its TaskId: only `with pl.spmd(n, "
        "deps=[...]) as tid:` takes it.",
        "with pl.spmd(4, deps=[first]):\n    self.k(x, out)",
        "with pl.spmd(4, deps=[first]) as second:\n    self.k(x, out)",
    ),
    CodeInfo(
        "E227",
        "SUBMIT_KEYWORD",
        _E,
        "A keyword `pl.submit` / `pl.spmd_submit` does not take (submit: deps, dumps, "
        "allow_early_resolve, predicate; spmd_submit also core_num, sync_start, name_hint).",
        "pl.submit(self.k, x, out, core_num=4)",
        "pl.spmd_submit(self.k, x, out, core_num=4)",
    ),
    CodeInfo(
        "E228",
        "NO_DEP_MISPLACED",
        _E,
        "`pl.no_dep(t)` anywhere but as an argument of a kernel call.",
        "t2 = pl.no_dep(t)",
        "self.k(pl.no_dep(t), out)",
    ),
    CodeInfo(
        "W040",
        "TASK_DEPENDENCY_CYCLE",
        _W,
        "Tasks of an orchestration function whose dependency edges (`deps=` and the tensors "
        "they write and read) form a cycle: none of them can start.",
        "",
        "",
    ),
    CodeInfo(
        "W041",
        "TASK_READS_UNWRITTEN_TENSOR",
        _W,
        "A task reads a tensor that no earlier task wrote and no parameter provides "
        "(a `pl.create_tensor` buffer read before anything fills it).",
        "buf = pl.create_tensor([64, 64], dtype=pl.FP32)\nout = self.k(buf, out)",
        "buf = self.fill(x, buf)\nout = self.k(buf, out)",
    ),
    CodeInfo(
        "W042",
        "SUBMIT_RESULT_UNUSED",
        _W,
        "A `pl.submit` whose TaskId nothing waits for and whose result nothing reads: write a "
        "plain kernel call (fire-and-forget) if that is meant.",
        "out2, tid = pl.submit(self.k, x, out)\nreturn out",
        "out2, tid = pl.submit(self.k, x, out)\nreturn out2",
    ),
    CodeInfo(
        "W043",
        "TASK_LOOP_NOT_UNROLLED",
        _W,
        "A loop of constant trip count that launches tasks, too long for the task graph to draw "
        "each iteration (more than 64 iterations, or more than 256 tasks in the graph): it is "
        "one node per launch, naming its loops, and its edges are those of one iteration. "
        "Nothing is wrong with the program.",
        "for i in pl.range(100):\n    out, t = pl.submit(self.k, x, out)",
        "",
    ),
    # --- operators --------------------------------------------------------------------------
    CodeInfo(
        "E300",
        "UNKNOWN_OPERATION",
        _E,
        "An op name that is not in the registry.",
        "t = pl.lod(a, [0, 0], [32, 32])",
        "t = pl.load(a, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "E301",
        "UNSUPPORTED_OPERATION",
        _E,
        "An op that exists but cannot be used this way (e.g. not callable from the DSL).",
        "pl.block.batch_matmul(a, b)",
        "use pl.matmul",
    ),
    CodeInfo(
        "E302",
        "INVALID_OPERATION_ARGS",
        _E,
        "Wrong number of arguments, an unknown or repeated keyword, or a missing required "
        "argument.",
        "t = pl.load(a, [0, 0])",
        "t = pl.load(a, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "E303",
        "UNSUPPORTED_BINARY_OP",
        _E,
        "A Python binary operator the DSL does not support.",
        "c = a @ b",
        "c = pl.matmul(a, b)",
    ),
    CodeInfo(
        "E304",
        "UNSUPPORTED_UNARY_OP",
        _E,
        "A Python unary operator the DSL does not support.",
        "y = +x",
        "y = x",
    ),
    CodeInfo(
        "E305",
        "UNSUPPORTED_COMPARISON",
        _E,
        "A comparison the DSL does not support (chained, `is`, `in`).",
        "if 0 < i < n:",
        "if i < n:",
    ),
    CodeInfo(
        "E306",
        "OPERAND_TYPE_ERROR",
        _E,
        "An op argument of the wrong kind or dtype (a tensor where a tile is required, a float "
        "where an integer is).",
        "t = pl.block.add(a_tensor, b_tensor)",
        "t = pl.add(a_tensor, b_tensor)",
    ),
    CodeInfo(
        "E307",
        "SHAPE_MISMATCH",
        _E,
        "Shapes that do not broadcast, matmul dimensions that disagree, element counts that "
        "differ.",
        "c = pl.add(t_32x32, t_16x16)",
        "c = pl.add(t_32x32, u_32x32)",
    ),
    CodeInfo(
        "E308",
        "WINDOW_OUT_OF_BOUNDS",
        _E,
        "A load/store window that reaches outside the tensor's static shape.",
        "t = pl.load(a_64x64, [32, 0], [64, 64])",
        "t = pl.load(a_64x64, [0, 0], [64, 64])",
    ),
    CodeInfo(
        "E309",
        "INVALID_ATTRIBUTE",
        _E,
        "An op attribute with a bad value (axis out of range, unknown cast mode, wrong memory "
        "space).",
        "s = pl.sum(t, axis=2)  # t is 2-D",
        "s = pl.sum(t, axis=1)",
    ),
    CodeInfo(
        "E310",
        "DISPATCH_ERROR",
        _E,
        "A unified pl.X op whose first argument's type selects no implementation.",
        "y = pl.add(1, 2)",
        "y = 1 + 2",
    ),
    CodeInfo(
        "E320",
        "MEMORY_SPACE_MISMATCH",
        _E,
        "A tile in a buffer the instruction cannot read or write: matmul operands not in Left / "
        "Right, a Vec accumulator, vector ops on an Acc tile, pl.l0c_store of a Vec tile, a "
        "pl.move between buffers TMOV does not connect.",
        "c = pl.matmul(a_vec, b_vec)",
        "c = pl.matmul(pl.move(a_mat, target_memory=pl.MemorySpace.Left), pl.move(b_mat, "
        "target_memory=pl.MemorySpace.Right))",
    ),
    CodeInfo(
        "E321",
        "STORE_DTYPE_MISMATCH",
        _E,
        "A store from Vec copies bytes: a tile whose element size differs from the tensor's "
        "cannot be stored without a cast.",
        "o = pl.store(t_fp32, [0, 0], [32, 32], out_fp16)",
        "o = pl.store(pl.cast(t_fp32, target_type=pl.FP16), [0, 0], [32, 32], out_fp16)",
    ),
    CodeInfo(
        "E400",
        "NO_LOWERING",
        _E,
        "An op that the chosen target cannot generate code for, or a call to a program function "
        "inside an InCore kernel (no generator emits one; `ptoc check` reports it too), or two "
        "kernels whose C++ names would be the same (`k` and `K` both make `runK`).",
        "pl.tensor.matmul(...) in a kernel compiled for cce",
        "use block ops in InCore kernels",
    ),
    CodeInfo(
        "E401",
        "DYNAMIC_SHAPE_UNSUPPORTED",
        _E,
        "A dynamic dimension where code generation needs a constant: every tile (an on-chip "
        "buffer has a fixed size), and on CCE every tensor of a kernel. `ptoc check` reports the "
        "tiles; `ptoc compile` the tensors too.",
        'def k(self, a: pl.Tensor[[N, 64], pl.FP32]):  # N = pl.dynamic("N")\n    t = pl.load(a, '
        "[0, 0], [N, 64])",
        "def k(self, a: pl.Tensor[[256, 64], pl.FP32]):\n    for i in pl.range(4):\n        t = "
        "pl.load(a, [i * 64, 0], [64, 64])",
    ),
    CodeInfo(
        "E402",
        "MEMORY_CAPACITY_EXCEEDED",
        _E,
        "The tiles live at one point need more of an on-chip memory than the target has (Vec 192 "
        "KiB, Mat 512 KiB, Left / Right 64 KiB, Acc 128 KiB); the message names the bytes needed "
        "and the largest buffers.",
        "t = pl.load(a, [0, 0], [256, 256])  # 256 KiB of FP32 in the 192 KiB Vec",
        "for i in pl.range(4):\n    t = pl.load(a, [i * 64, 0], [64, 256])",
    ),
    CodeInfo(
        "E403",
        "MISSING_MEMREF",
        _E,
        "A tile with no buffer reached code generation.",
        "compiling without the InitMemRef pass",
        "use the default pipeline",
    ),
    CodeInfo("E404", "PASS_ERROR", _E, "A pass found IR it cannot handle.", "", ""),
    CodeInfo(
        "E405",
        "PTOAS_REJECTED",
        _E,
        "PTOAS, the real PTO assembler (ptoc compile --verify, pto-cpp), rejects the MLIR "
        "generated for this statement; the message is PTOAS's own, or names a form that "
        "PTOAS version is known to crash on (then it is not run).",
        "pl.block.and_(x, y) on INT32 tiles (A2/A3 tand takes i8 / i16 only)",
        "use the element types the instruction supports on the target",
    ),
    CodeInfo(
        "E406",
        "SIMULATION_MISMATCH",
        _E,
        "Running the function (the editor's Run, ptoc run --sim) gave results on pto-isa's CPU "
        "simulator that differ from the reference interpreter's; reported on the function's "
        "name until the next successful run or an edit of the function.",
        "a kernel whose generated C++ computes a wrong value",
        "compare the per-output errors in the run's log; fix the kernel or report the "
        "code generator bug",
    ),
    # --- synchronisation (ptoc compile --verify-sync, docs/sync-check.md) -------------------
    CodeInfo(
        "E410",
        "UNSYNCED_ACCESS",
        _E,
        "Two pipes access overlapping bytes of a buffer (read after write, write after read or "
        "write after write) and no set/wait chain orders them: the later one may run first.",
        "t = pl.load(x, [0, 0], [32, 32])  # MTE2\ny = pl.add(t, t)  # V reads t: no MTE2->V wait",
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
        "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
        "y = pl.add(t, t)",
    ),
    CodeInfo(
        "E411",
        "MISSING_BARRIER",
        _E,
        "Two instructions of the vector or the cube pipe, which may overlap their own work, "
        "access overlapping bytes (one writes) with no barrier between them.",
        "u = pl.exp(t)\nv = pl.add(u, u)  # V reads what V wrote",
        "u = pl.exp(t)\npl.system.bar_v()\nv = pl.add(u, u)",
    ),
    CodeInfo(
        "E412",
        "UNMATCHED_SYNC",
        _E,
        "A set/wait pair does not match: a sync_src no sync_dst of the same pipes and event "
        "takes, or a sync_dst before the sync_src it waits for.",
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
        "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=1)",
        "wait for the event that was set: event_id=0 in both",
    ),
    CodeInfo(
        "E413",
        "EVENT_IN_FLIGHT",
        _E,
        "A sync_src sets an event that is still in flight (set earlier, not yet waited for): "
        "the first signal is lost.",
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)",
        "wait for the first before setting it again, or use another event_id",
    ),
    CodeInfo(
        "E414",
        "OUT_OF_EVENTS",
        _E,
        "More events in flight between two pipes than the hardware has (EVENT_ID0..7).",
        "nine sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=...) "
        "before any sync_dst",
        "wait for some events before setting more",
    ),
    CodeInfo(
        "E415",
        "SYNC_DEADLOCK",
        _E,
        "A sync_dst that can never be satisfied: no sync_src of its event is in flight on every "
        "path to it and none follows, so its pipe waits forever.",
        "if n > 0:\n    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, "
        "event_id=0)\npl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, "
        "event_id=0)",
        "set the event on every path that reaches the wait",
    ),
    # --- A2/A3 forms (issue #29) ------------------------------------------------------------
    CodeInfo(
        "E416",
        "COLUMN_OF_A_WIDER_TENSOR",
        _E,
        "A one-column Vec tile ([M, 1], M > 1) loaded from or stored to one column of a wider "
        "tensor (CCE). Such a tile is column-major, and A2/A3's TLOAD / TSTORE copy a "
        "column-major tile to a DN tensor only, a contiguous column; a column of an ND tensor "
        "is strided (pto-isa's CPU simulator takes it, the chip's headers do not).",
        "c = pl.load(x, [0, 2], [16, 1])  # x: pl.Tensor[[16, 8], pl.FP32]",
        "t = pl.load(x, [0, 0], [16, 8])  # whole rows; or keep the column in a [16, 1] tensor",
    ),
    # --- warnings ----------------------------------------------------------------------------
    CodeInfo(
        "W003",
        "LEGACY_SPELLING",
        Severity.INFO,
        "A legacy spelling the tool accepts but rewrites (pl.op.block.X, seed memory-space names, "
        "legacy annotations).",
        "pl.op.block.load(a, 0, 0, 32, 32)",
        "pl.block.load(a, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "W004",
        "IGNORED_ARGUMENT",
        _W,
        "An argument the original compiler silently ignored (a 4th pl.range argument, an unknown "
        "pl.range keyword).",
        "for i in pl.range(0, 8, 1, 2):",
        "for i in pl.range(0, 8, 1):",
    ),
    CodeInfo(
        "W005",
        "YIELD_WITHOUT_EFFECT",
        _W,
        "pl.yield_ outside a loop or if: it yields to nothing.",
        "r = pl.yield_(x)  # at function level",
        "remove it, or move it to the end of a loop or if body",
    ),
    CodeInfo(
        "W006",
        "ANNOTATION_MISMATCH",
        _W,
        "A local annotation that disagrees with the type deduced for the value. The original "
        "compiler ignores local annotations, so the program compiles with the deduced type; the "
        "annotation is a mistake in the text. An error with `strict-annotations`.",
        "t: pl.Tile[[32, 32], pl.FP16] = pl.load(a_fp32, [0, 0], [32, 32])",
        "t: pl.Tile[[32, 32], pl.FP32] = pl.load(a_fp32, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "W007",
        "RETURN_TYPE_MISMATCH",
        _W,
        "A returned value whose type, or count, differs from the return annotation. The original "
        "does not check returns, so the deduced type is what the function returns. An error with "
        "`strict-annotations`.",
        "def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP16]:\n    return x",
        "def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n    return x",
    ),
    CodeInfo(
        "W008",
        "MALFORMED_ANNOTATION",
        _W,
        "A local annotation that is not a well-formed PyPTO type. The original never reads it, so "
        "the "
        "deduced type is used. An error with `strict-annotations`.",
        "y: pl.Tensor[pl.FP32, 64, 1] = pl.add(a, b)",
        "y: pl.Tensor[[64, 1], pl.FP32] = pl.add(a, b)",
    ),
    CodeInfo(
        "W009",
        "CALL_SHAPE_MISMATCH",
        _W,
        "An Orchestration function passes a tensor whose static shape provably differs from the "
        "InCore kernel parameter's. The original accepts it (the kernel sees the declared shape).",
        "self.kernel(x_64x128)  # kernel declares pl.Tensor[[16, 16], pl.FP32]",
        "pass a tensor of the declared shape, or declare the shape the kernel is given",
    ),
    CodeInfo(
        "W010",
        "HOST_TENSOR_OP",
        _W,
        "A tensor op that computes (add, exp, matmul, ...) in an Orchestration function. The host "
        "code only creates, views and reads tensors and launches kernels, so the original leaves "
        "the op out of the generated C++; so does ptoc, with this warning.",
        "y = pl.add(a, b)  # directly in an Orchestration function",
        "with pl.incore():\n    y = pl.add(a, b)",
    ),
    CodeInfo(
        "W011",
        "RETURN_MADE_IN_LOOP",
        _W,
        "An Orchestration function returns, after a loop, a tensor the loop body made (each step "
        "a kernel writes a tensor created in the step). The host C++ names that tensor, but "
        "nothing copies it into the buffer the caller passed for the result; the original "
        "generates the same code. Keep the result in one tensor created before the loop.",
        "for i, (acc,) in pl.range(4, init_values=(x,)):\n"
        "    nxt = self.step(x, acc)  # step's result is created in the loop\n"
        "    out = pl.yield_(nxt)\nreturn out",
        "res = pl.create_tensor([64], dtype=pl.FP32)\n"
        "for i in pl.range(4):\n    res = self.step_inout(x, res)  # res: pl.InOut\nreturn res",
    ),
    CodeInfo(
        "W020",
        "MOVE_NOT_ON_TARGET",
        _W,
        "A pl.move only A5 performs directly (Acc -> Vec, Vec -> Mat); A2/A3's TMOV does not.",
        "v = pl.move(acc, target_memory=pl.MemorySpace.Vec)",
        "o = pl.l0c_store(acc, [0, 0], [32, 32], out)",
    ),
    CodeInfo(
        "W026",
        "SCALAR_ARGUMENT_DTYPE",
        _W,
        "An integer or BOOL scalar passed for a parameter declared with another integer or "
        "BOOL dtype: the original passes the value as it is, without converting it.",
        "self.update(x, flag)  # flag: Scalar[INT64], parameter Scalar[BOOL]",
        "self.update(x, flag != 0)",
    ),
    CodeInfo(
        "W027",
        "YIELD_WIDENS_DTYPE",
        _W,
        "A loop yields a wider integer than the value it carries (INT64 for an INT32): the "
        "original accepts it, and the loop keeps carrying the narrower type.",
        "for i, (n,) in pl.range(4, init_values=(n32,)):\n    n2 = pl.yield_(n + i)",
        "for i, (n,) in pl.range(4, init_values=(pl.const(0, pl.INT64),)):",
    ),
    CodeInfo(
        "W028",
        "MATMUL_NOT_ON_TARGET",
        _W,
        "A matmul of 8-bit float tiles (FP8E4M3FN, FP8E5M2, HF8): only A5's TMATMUL multiplies "
        "them; A2/A3's takes INT8, FP16, BF16 and FP32.",
        "c = pl.matmul(a_fp8, b_fp8)",
        "c = pl.matmul(pl.cast(a_fp8, pl.FP16), pl.cast(b_fp8, pl.FP16))",
    ),
    CodeInfo(
        "W029",
        "INDEX_SCALAR_OPERAND",
        _W,
        "A scalar operand of a tile or tensor op that is INDEX but not a constant (a loop "
        "variable, a dimension). PyPTO 2026-08 gives a constant the tile's dtype and rejects "
        "a non-constant INDEX scalar; the quick fix converts it with pl.cast.",
        "for i in pl.range(4):\n    u = pl.tile.adds(t, i)",
        "for i in pl.range(4):\n    u = pl.tile.adds(t, pl.cast(i, pl.FP32))",
    ),
    CodeInfo(
        "W030",
        "MIXED_EDITIONS",
        _W,
        "The file writes spellings of both language editions (PyPTO 2026-03 and 2026-08). "
        "Both are accepted; the edition in force decides the spellings that mean different "
        "things in the two. Reported once per file, on the first spelling of the other "
        "edition. Run `ptoc upgrade` or set `[tool.ptoc] edition`.",
        "with pl.incore():\n    t = pl.tile.add(a, b)",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    t = pl.tile.add(a, b)",
    ),
    CodeInfo(
        "W031",
        "OTHER_EDITION_SPELLING",
        _W,
        "A spelling of the other edition than the one chosen for the project (`--edition`, "
        "`[tool.ptoc] edition` or the editor's setting). ptoc accepts it; upstream of that "
        "edition does not. The quick fix writes the chosen edition's spelling.",
        'u = pl.block.add(a, b)  # with edition = "2026-08"',
        "u = pl.tile.add(a, b)",
    ),
    CodeInfo(
        "W032",
        "EDITION_MEANING",
        _W,
        "A spelling both editions have that means something else in the edition in force "
        "(e.g. the third argument of `pl.tensor.view` is a valid shape in 2026-08, an offset "
        "in 2026-03). ptoc follows the edition in force; the message says what the other "
        "edition would have done.",
        "v = pl.tensor.view(t, [16, 16], [0, 16])  # 2026-08",
        "v = pl.tensor.slice(t, [16, 16], [0, 16])",
    ),
    CodeInfo(
        "I003",
        "NOT_MODELLED",
        Severity.INFO,
        "Retired: ptoc said this of a call of distributed PyPTO (`pld.*`) while it did not model "
        "those ops. They are typed and checked now (codes E230-E233); the code is no longer "
        "reported.",
        "buf = pld.alloc_window_buffer(1024)",
        "(nothing to change)",
    ),
    CodeInfo(
        "I001",
        "TEXT_NOT_CHECKED",
        Severity.INFO,
        "`pl.parse(...)` of a program text that is only known when the code runs (an "
        "f-string, a value computed by code): ptoc does not run the code, so it cannot check "
        "the program. Texts written as string literals are checked in place.",
        'pl.parse(f"def {name}(...): ...")',
        'pl.parse("""...the program...""")',
    ),
    CodeInfo(
        "I002",
        "JIT_CALL_NOT_READ",
        Severity.INFO,
        "A call of a `@pl.jit` kernel with a tensor argument built at run time (by code ptoc "
        "does not run): the call gives no specialisation, and the kernel is checked for every "
        "shape.",
        "tile_add(load_input(), b, c)",
        "a = torch.zeros((128, 128), dtype=torch.float32)\ntile_add(a, b, c)",
    ),
    CodeInfo(
        "W033",
        "JIT_OUT_NEVER_WRITTEN",
        _W,
        "A `pl.Out[...]` parameter of a `@pl.jit` kernel that the kernel never writes (no "
        "store, assembly or call receives it): its contents stay undefined.",
        "@pl.jit\ndef k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n    return c",
        "@pl.jit\ndef k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], c)\n    return c",
    ),
    CodeInfo(
        "W034",
        "WINDOW_PAST_TENSOR",
        _W,
        "A tensor view, slice or assembly whose window reaches past the tensor, where its extent, "
        "the window's size and its offset (a constant, or a loop variable with constant bounds) "
        "are known. Upstream accepts it; on the device the kernel reads or writes memory outside "
        "the tensor, and the reference interpreter stops there.",
        "w = pl.view(a_128x64, [128, 64], [16, 0])",
        "w = pl.view(a_128x64, [112, 64], [16, 0])",
    ),
    CodeInfo(
        "W035",
        "OUT_DTYPE_NOT_ROUNDED",
        _W,
        "A matmul whose `out_dtype` is a narrower float (FP16, BF16) written straight into a wider "
        "float tensor (an assembly or a return): the generated code stores the FP32 accumulator "
        "through the FIX pipe, converting it to the tensor's type, so the rounding to `out_dtype` "
        "never happens on the device. The reference interpreter rounds, so a run on the simulator "
        "disagrees.",
        "p = pl.matmul(a, b, out_dtype=pl.FP16)\nc = pl.assemble(c_fp32, p, [0, 0])",
        "p = pl.matmul(a, b, out_dtype=pl.FP32)\nc = pl.assemble(c_fp32, p, [0, 0])",
    ),
    CodeInfo(
        "W021",
        "STORE_REINTERPRETS",
        _W,
        "A store of a tile into a tensor of another element type of the same size: the bits are "
        "copied, not converted.",
        "o = pl.store(t_fp32, [0, 0], [32, 32], out_int32)",
        "o = pl.store(pl.cast(t_fp32, target_type=pl.INT32), [0, 0], [32, 32], out_int32)",
    ),
    CodeInfo(
        "W022",
        "STORE_WINDOW_SHAPE",
        _W,
        "A store window whose shape is not the tile's: the store writes the tile's elements, so "
        "part of a larger window is left unchanged (and a rank-1 tile fills only the last "
        "dimension of a 2-D window).",
        "o = pl.store(t_32x64, [0, 0], [64, 64], out_64x64)",
        "o = pl.store(t_32x64, [0, 0], [32, 64], out_64x64)",
    ),
    CodeInfo(
        "W023",
        "IF_YIELD_WITHOUT_ELSE",
        _W,
        "An if that yields a result but has no else: when the condition is false the result is "
        "never set (the generated code leaves it uninitialised).",
        "if n > 0:\n    r = pl.yield_(u)",
        "if n > 0:\n    r = pl.yield_(u)\nelse:\n    r = pl.yield_(t)",
    ),
    CodeInfo(
        "W024",
        "BLOCK_OP_IN_ORCHESTRATION",
        _W,
        "A block op in an Orchestration function outside `with pl.incore():`: code generation "
        "emits block ops only in InCore code, so it is not executed.",
        "@pl.function(type=pl.FunctionType.Orchestration)\ndef main(self, a: pl.Tensor[[32, 32], "
        "pl.FP32]):\n    t = pl.load(a, [0, 0], [32, 32])",
        "@pl.function(type=pl.FunctionType.Orchestration)\ndef main(self, a: pl.Tensor[[32, 32], "
        "pl.FP32]):\n    with pl.incore():\n        t = pl.load(a, [0, 0], [32, 32])",
    ),
    CodeInfo(
        "W025",
        "STORE_FROM_ACC",
        _W,
        "pl.store of an Acc tile: TSTORE takes it, but the copy out of Acc runs on the FIX pipe, "
        "which only pl.l0c_store synchronises with.",
        "o = pl.store(acc, [0, 0], [32, 32], out)",
        "o = pl.l0c_store(acc, [0, 0], [32, 32], out)",
    ),
    # --- cross-core pipes and events (spec pypto-2026-08.md section 9.2) --------------------
    CodeInfo(
        "W045",
        "PIPE_NOT_SET_UP",
        _W,
        "A push or pop in an AIC / AIV function on a pipe (id and direction) that no "
        "`aic_initialize_pipe` / `aiv_initialize_pipe` of the function sets up. (In an InCore "
        "function the compiler sets the pipes up itself.)",
        "pl.tpush_to_aic(t, split=0)  # no pl.aiv_initialize_pipe(..., dir_mask=2, ...)",
        "pl.aiv_initialize_pipe(0, peer, dir_mask=2, slot_size=512)\npl.tpush_to_aic(t, split=0)",
    ),
    CodeInfo(
        "W046",
        "POP_NOT_FREED",
        _W,
        "A tile popped in an AIC / AIV function that no `tfree_to_aic` / `tfree_to_aiv` releases: "
        "its ring slot leaks, and the producer stalls once the ring is full.",
        "t: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)",
        "t: pl.Tile[[16, 16], pl.FP16] = pl.tpop_from_aiv(split=0)\n...\npl.tfree_to_aiv(t)",
    ),
    CodeInfo(
        "W047",
        "PIPE_UNPAIRED",
        _W,
        "A push with no pop of the same pipe id and direction anywhere in the program, or a pop "
        "with no such push: the consumer waits forever, or the producer fills the ring.",
        "pl.tpush_to_aiv(t, split=0, id=1)  # the vector side pops id 0",
        "pl.tpush_to_aiv(t, split=0)",
    ),
    CodeInfo(
        "W048",
        "USE_AFTER_FREE",
        _W,
        "A popped tile used after its `tfree_to_aic` / `tfree_to_aiv`: the slot may already hold "
        "the producer's next tile.",
        "pl.tfree_to_aiv(t)\nr = pl.store(t, [0, 0], out)",
        "r = pl.store(t, [0, 0], out)\npl.tfree_to_aiv(t)",
    ),
    CodeInfo(
        "W049",
        "FREE_NOT_POPPED",
        _W,
        "A `tfree_to_aic` / `tfree_to_aiv` of a tile no pop of that direction produced in the "
        "function, or a second free of one: it releases a slot the function does not hold.",
        "x = pl.load(a, [0, 0], [16, 16])\npl.tfree_to_aic(x)",
        "x = pl.tpop_from_aic(shape=[16, 16], dtype=pl.FP32)\npl.tfree_to_aic(x)",
    ),
    CodeInfo(
        "W410",
        "SYNC_CHECK_INCOMPLETE",
        _W,
        "`ptoc compile --verify-sync` on the PTO route could not check all of PTOAS's sync: "
        "PTOAS was not found (the C++ whose sync it inserts was not made), or the C++ holds "
        "statements the checker's reader does not understand (quoted; the rest was checked).",
        "`ptoc compile kernel.py --target pto --verify-sync` where PTOAS is not installed",
        "pass `--ptoas PATH` or set `PTOAS`",
    ),
    CodeInfo(
        "I008",
        "EVENT_UNPAIRED",
        Severity.INFO,
        "A `pl.system.sync_wait` on an event id no `pl.system.sync_set` of the program signals, "
        "or a set no wait of the program receives. The peer may be in another program; if not, "
        "the wait never returns.",
        "pl.system.sync_wait(3, pipe=pl.PipeType.MTE2)  # the cube sets event 2",
        "pl.system.sync_wait(2, pipe=pl.PipeType.MTE2)",
    ),
    CodeInfo(
        "I009",
        "MIXED_SCOPE_SPLIT",
        Severity.INFO,
        "A kernel scope whose vector work reads its matmul's product (a mixed kernel): A2/A3's "
        "vector unit cannot read the cube's Acc buffer, so ptoc splits the scope into a cube "
        "kernel and a vector kernel, launched one after the other, the product handed over "
        "through a tensor in GM. A loop holding both kinds of work becomes a cube loop storing "
        "each iteration's product into its slot of a GM intermediate and a vector loop reading "
        "it; a call of a hand-written mixed InCore function is split the same way (the note is "
        "on the call). The result is upstream's; the overlap of the two units "
        "(upstream's cross-core pipe, `pl.split`'s halving of the vector work) is not modelled.",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n"
        "    acc = pl.matmul(a, b, out_dtype=pl.FP32)\n"
        "    out[:] = pl.add(acc, bias)",
        "(nothing to change)",
    ),
    CodeInfo(
        "I010",
        "HOST_FUNCTION_NOT_GENERATED",
        Severity.INFO,
        "A function that runs on the host (`@pl.jit.host`, `level=pl.Level.HOST` or above): it "
        "launches chip programs through the host runtime, whose code ptoc does not generate. "
        "The chip programs it launches, their orchestration and kernels, are generated; the "
        "host function is a comment in their place.",
        "@pl.jit.host\ndef prefill(prompt: pl.Tensor, kv: pl.Out[pl.Tensor]):\n"
        "    return prefill_chip(prompt, kv)",
        "(nothing to change)",
    ),
    CodeInfo(
        "E900",
        "INTERNAL_ERROR",
        _E,
        "ptoc failed on this construct. Please report it with the file.",
        "",
        "",
    ),
    CodeInfo(
        "E901", "FILE_TOO_COMPLEX", _E, "The file nests deeper than the front end walks.", "", ""
    ),
    CodeInfo(
        "W900",
        "TOO_LARGE_FOR_LIVE_ANALYSIS",
        _W,
        "The language server does not analyse a file this large (over 1 MB, or a line over "
        "100,000 characters) as you type, nor preview loops nested deeper than 12, nor diff the "
        "passes of programs over 1,000 statements; `ptoc check` and `ptoc compile` still handle "
        "it.",
        "a generated 5 MB kernel file",
        "split the file, or check it with `ptoc check`",
    ),
]

CODES: dict[str, CodeInfo] = {entry.code: entry for entry in _ENTRIES}

# Annotation warnings that `[tool.ptoc] strict-annotations = true` turns into errors.
STRICT_ANNOTATION_CODES = frozenset({"W006", "W007", "W008"})


def strict_annotations(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with the annotation warnings raised to errors."""
    return [
        replace(d, severity=Severity.ERROR) if d.code in STRICT_ANNOTATION_CODES else d
        for d in diagnostics
    ]


DOCS_URL = "https://github.com/ptoc/ptoc/blob/main/docs/diagnostics.md"  # the project repository


def code_url(code: str) -> str:
    return f"{DOCS_URL}#{code.lower()}"
