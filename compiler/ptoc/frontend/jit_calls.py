"""Calls of JIT entries in their own file (``if __name__ == "__main__":`` blocks, plain module
functions) whose torch arguments can be read from the text: ``torch.zeros((128, 128),
dtype=torch.float32)``, ``torch.randn(m, n)`` with constant ``m, n``, ``torch.zeros_like(a)``.
A call is ``kernel(...)`` or one of its stages, ``kernel.lower(...)`` / ``kernel.compile(...)``
(upstream's tests and examples give sample tensors so); the kernel may be named through a local
(``program = a if mode else b``), a loop over kernels, or a table (``MODES[m]``,
``for name, fn in MODES.items()``), and its arguments may come from a tuple (``fn(*args)``).
Nothing is run: the call's AST is read, and a value built any other way is unknown."""

from __future__ import annotations

import ast
from collections import Counter
from typing import Any

from ..diagnostics import Diagnostic, DiagnosticBag
from ..ir.dtype import DataType
from ..ir.expr import ConstInt
from ..ir.function import ParamDirection
from ..ir.span import Span
from ..ir.types import ScalarType, TensorType, Type
from ..records import field, record
from .context import ModuleEnv
from .names import attribute_chain

TORCH_DTYPES = {
    "float32": DataType.FP32,
    "float": DataType.FP32,
    "float16": DataType.FP16,
    "half": DataType.FP16,
    "bfloat16": DataType.BF16,
    "int8": DataType.INT8,
    "int16": DataType.INT16,
    "int32": DataType.INT32,
    "int": DataType.INT32,
    "int64": DataType.INT64,
    "long": DataType.INT64,
    "uint8": DataType.UINT8,
    "bool": DataType.BOOL,
}
_SHAPED = ("zeros", "ones", "empty", "randn", "rand")  # (shape..., dtype=)
_LIKE = ("zeros_like", "ones_like", "empty_like", "randn_like", "rand_like", "full_like")
_CONVERSIONS = {
    "float": DataType.FP32,
    "half": DataType.FP16,
    "bfloat16": DataType.BF16,
    "int": DataType.INT32,
    "long": DataType.INT64,
    "bool": DataType.BOOL,
}
# Methods that give back a tensor of the same shape and dtype (most in place, returning it).
_SAME = (
    "clone",
    "contiguous",
    "share_memory_",
    "pin_memory",
    "cpu",
    "cuda",
    "npu",
    "detach",
    "requires_grad_",
    "zero_",
    "fill_",
    "normal_",
    "uniform_",
    "random_",
    "abs",
    "neg",
)
_INDEX = ScalarType(DataType.INT64)


@record(frozen=True)
class TorchTensor:
    shape: tuple[int, ...]
    dtype: DataType


@record(frozen=True)
class Kernel:
    """A name bound to JIT entries (``for fn in (kernel_a, kernel_b):``, ``fn = a if m else b``:
    each one it may hold)."""

    names: tuple[str, ...]


#: ``kernel.lower(*samples)`` / ``kernel.compile(*samples, config=...)``: the same parameters as
#: a call of the kernel, and the same specialisation.
STAGES = ("lower", "compile")
# Bounds on what one file's calls cost: each readable call is a program ptoc analyses, and a
# loop over a literal table runs its body once per element (two nested loops over a table of
# 3,000 numbers made 9,000,000 calls, and the analysis never ended).
LOOP_PASSES = 1_000  # loop-body passes per file; a loop that would exceed them runs once
MAX_SITES = 64  # readable calls per kernel; later ones give no specialisation


@record(frozen=True)
class Literal:
    """A name bound to a literal tuple, list or dict (``cases = [("vec", kernel, (a, b))]``):
    what a loop over it binds, or a call spreads (``fn(*args)``)."""

    node: ast.Tuple | ast.List | ast.Dict

    def elements(self) -> list[ast.expr]:
        if isinstance(self.node, ast.Dict):  # iterating a dict gives its keys
            return [key for key in self.node.keys if key is not None]
        return list(self.node.elts)

    def view(self, method: str) -> list[ast.expr] | None:
        """A dict's ``.items()``, ``.values()`` or ``.keys()``."""
        assert isinstance(self.node, ast.Dict)
        pairs = [(k, v) for k, v in zip(self.node.keys, self.node.values, strict=True) if k]
        views: dict[str, list[ast.expr]] = {
            "items": [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in pairs],
            "values": [v for _, v in pairs],
            "keys": [k for k, _ in pairs],
        }
        return views.get(method)


class Unreadable(Exception):
    pass


@record
class CallSite:
    kernel: str
    span: Span
    shapes: dict[str, Type] = field(default_factory=dict)
    readable: bool = True
    tensors: dict[str, TorchTensor] = field(default_factory=dict)
    label: str = ""  # where the specialisation comes from, for a person choosing one

    def title(self) -> str:
        return self.label or f"call at line {self.span.line}"

    def key(self) -> str:
        """What the specialisation is, not where it comes from: each parameter's type, stable
        across edits that move or reorder the calls (the editor's choice is kept by it)."""
        return ", ".join(f"{name}: {t.short()}" for name, t in self.shapes.items())

    def describe(self, most: int = 8) -> str:
        """The tensors' shapes and dtypes, the first ``most`` of them (a call of a kernel with
        2,000 parameters made a 40 KB message)."""
        described = [
            f"{name}: [{', '.join(map(str, t.shape))}] {t.dtype.name}"
            for name, t in list(self.tensors.items())[:most]
        ]
        more = len(self.tensors) - most
        return ", ".join(described) + (f", … ({more:,} more)" if more > 0 else "")


@record
class CallSites:
    sites: list[CallSite] = field(default_factory=list)
    notes: list[Diagnostic] = field(default_factory=list)


def bare_tensor(node: ast.expr | None) -> ParamDirection | None:
    """``pl.Tensor`` / ``pl.Out[pl.Tensor]`` / ``pl.InOut[pl.Tensor]``: its direction."""
    direction = ParamDirection.In
    if isinstance(node, ast.Subscript):
        chain = attribute_chain(node.value)
        if not chain or chain[-1] not in ("Out", "InOut"):
            return None
        direction = ParamDirection.Out if chain[-1] == "Out" else ParamDirection.InOut
        node = node.slice
    chain = attribute_chain(node) if node is not None else None
    return direction if chain and chain[-1] == "Tensor" else None


def torch_dtype(node: ast.expr) -> DataType:
    chain = attribute_chain(node)
    if chain and len(chain) == 2 and chain[0] == "torch" and chain[1] in TORCH_DTYPES:
        return TORCH_DTYPES[chain[1]]
    raise Unreadable


class CallReader:
    """Walks the module's run-time code in order, knowing what each local name holds."""

    def __init__(self, env: ModuleEnv, entries: dict[str, ast.FunctionDef]) -> None:
        self.env = env
        self.entries = entries
        self.values: dict[str, Any] = {}
        self.tables: dict[str, list[str]] = {}  # module dicts and lists of entries
        self.literals: dict[str, Literal] = {}  # module-level literal tuples, lists and dicts
        self.passes_left = LOOP_PASSES
        self.site_counts: Counter[str] = Counter()  # calls read, per kernel
        self.capped: set[str] = set()  # kernels past MAX_SITES (said once)
        self.found = CallSites()
        self.bag = DiagnosticBag()

    def block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            for call in calls_in(statement):
                for name in self.callees(call):
                    self.call(call, self.entries[name])
            if isinstance(statement, ast.Assign):
                self.assign(statement.targets, statement.value)
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                self.assign([statement.target], statement.value)
            if isinstance(statement, ast.For):
                self.loop(statement)
                continue
            for inner in ("body", "orelse", "finalbody"):
                nested = getattr(statement, inner, None)
                if isinstance(nested, list) and not isinstance(statement, ast.FunctionDef):
                    self.block(nested)

    def kernels(self, node: ast.expr) -> list[str]:
        """The entries an expression may name: one by name or through a local, a stage of one
        (``kernel.lower``), either branch of ``a if c else b``, or each of a module table of
        kernels (``MODES[args.mode]``: whichever the run picks)."""
        if isinstance(node, ast.Attribute) and node.attr in STAGES:
            return self.kernels(node.value)
        if isinstance(node, ast.IfExp):
            return list(dict.fromkeys(self.kernels(node.body) + self.kernels(node.orelse)))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return list(self.tables.get(node.value.id, []))
        if not isinstance(node, ast.Name):
            return []
        held = self.values.get(node.id)
        if isinstance(held, Kernel):
            return list(held.names)
        return [node.id] if node.id in self.entries and held is None else []

    def callees(self, call: ast.Call) -> list[str]:
        """The entries ``call`` may call. Of a choice (``program = a if builtin else b``, a
        table), those its arguments fit: the run picks one they fit (upstream guards each
        call by the same condition), so only a call that fits none is wrong."""
        names = self.kernels(call.func)
        if len(names) < 2:
            return names
        positional = self.spread(call.args)
        if positional is None:
            return names
        fitting = [n for n in names if self.fits(call, self.entries[n], len(positional))]
        return fitting or names[:1]  # fitting none: E210 once, for the first

    def loop(self, node: ast.For) -> None:
        """``for fn, k in ((kernel_a, 128), (kernel_b, 32)):`` runs its body once per element
        of a literal sequence (written there, held by a name, or a table's ``.items()`` /
        ``.values()``); over anything else, once with its variables unknown."""
        found = self.elements(node.iter)
        if found is not None and len(found) > self.passes_left:
            self.bag.error(
                "I002",
                f"this loop would run its body {len(found):,} times: ptoc reads its calls once, "
                f"with the loop's variables unknown (it follows at most {LOOP_PASSES:,} loop "
                "passes per file)",
                self.env.source.span(node.iter),
            )
            found = None
        self.passes_left -= len(found) if found is not None else 0
        elements: list[ast.expr | None] = list(found) if found is not None else [None]
        for element in elements:
            self.bind_loop(node.target, element)
            self.block(node.body)
        self.block(node.orelse)

    def elements(self, node: ast.expr) -> list[ast.expr] | None:
        """The elements of a literal sequence ``node`` names, None if it names none."""
        if isinstance(node, ast.Tuple | ast.List):
            return list(node.elts)
        if isinstance(node, ast.Name):
            held = self.values.get(node.id, self.literals.get(node.id))
            return held.elements() if isinstance(held, Literal) else None
        if (
            isinstance(node, ast.Call)
            and not node.args
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            held = self.values.get(node.func.value.id, self.literals.get(node.func.value.id))
            if isinstance(held, Literal) and isinstance(held.node, ast.Dict):
                return held.view(node.func.attr)
        return None

    def bind_loop(self, target: ast.expr, element: ast.expr | None) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            parts: list[ast.expr | None] = []
            if isinstance(element, ast.Tuple | ast.List):
                parts = list(element.elts)
            if len(parts) != len(target.elts):
                parts = [None] * len(target.elts)
            for inner, part in zip(target.elts, parts, strict=True):
                self.bind_loop(inner, part)
        elif isinstance(target, ast.Name):
            self.values[target.id] = self.held(element) if element is not None else None

    def held(self, node: ast.expr) -> Any:
        """What a name bound to ``node`` holds: entries, a readable value, or None."""
        names = self.kernels(node)
        if names:
            return Kernel(tuple(names))
        try:
            return self.value(node)
        except Unreadable:
            return None

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        held = self.held(value)
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.values[name.id] = held if isinstance(target, ast.Name) else None

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Call):
            return self.tensor(node)
        if isinstance(node, ast.Tuple | ast.List | ast.Dict):
            return Literal(node)  # looped over, or spread into a call (``fn(*args)``)
        return self.integer(node)

    def integer(self, node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            held = self.named(node.id)
            if type(held) is int:
                return held
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.integer(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = self.integer(node.left), self.integer(node.right)
            operations = {
                ast.Add: lambda: left + right,
                ast.Sub: lambda: left - right,
                ast.Mult: lambda: left * right,
                ast.FloorDiv: lambda: left // right if right else None,
                ast.Mod: lambda: left % right if right else None,
            }
            result = operations.get(type(node.op), lambda: None)()
            if type(result) is int:
                return result
        raise Unreadable

    def number(self, node: ast.expr) -> int | float | bool:
        """A literal number, or a name holding one (``torch.full``'s fill, ``torch.tensor``'s
        elements: their type is the tensor's dtype)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.number(node.operand)
        if isinstance(node, ast.Name):
            held = self.named(node.id)
            if isinstance(held, int | float):
                return held
        return self.integer(node)

    def named(self, name: str) -> Any:
        """What a name holds: a local of the block, else a module constant."""
        return self.values[name] if name in self.values else self.env.consts.values.get(name)

    def shape(self, args: list[ast.expr]) -> tuple[int, ...]:
        dims = self.dims(args)
        if not dims or any(d <= 0 for d in dims):
            raise Unreadable
        return dims

    def tensor(self, node: ast.Call) -> TorchTensor:
        chain = attribute_chain(node.func)
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if chain and len(chain) == 2 and chain[0] == "torch":
            dtype = torch_dtype(keywords["dtype"]) if "dtype" in keywords else None
            return self.constructor(chain[1], node, keywords, dtype)
        if isinstance(node.func, ast.Attribute):
            held = self.tensor_of(node.func.value)
            if held is not None:
                return self.method(held, node.func.attr, node)
        raise Unreadable

    def method(self, held: TorchTensor, method: str, node: ast.Call) -> TorchTensor:
        """A tensor method's result: the same tensor (``.clone()``, ``.share_memory_()``), a
        conversion (``.to(torch.float16)``, ``.half()``) or a reshape with readable sizes."""
        if method in _SAME:
            return held
        if method in _CONVERSIONS:
            return TorchTensor(held.shape, _CONVERSIONS[method])
        if method == "to":  # .to(device), .to(dtype), .to(device, dtype), .to(dtype=...)
            given = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
            dtypes = [d for d in map(dtype_or_none, given) if d is not None]
            return TorchTensor(held.shape, dtypes[-1] if dtypes else held.dtype)
        if method in ("reshape", "view") and node.args:
            return TorchTensor(reshaped(held.shape, self.dims(node.args)), held.dtype)
        raise Unreadable

    def dims(self, args: list[ast.expr]) -> tuple[int, ...]:
        """Sizes given one by one or as one tuple or list (a reshape's may be -1)."""
        if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
            args = list(args[0].elts)
        return tuple(self.integer(a) for a in args)

    def constructor(
        self, name: str, node: ast.Call, keywords: dict[str, ast.expr], dtype: DataType | None
    ) -> TorchTensor:
        if name in _SHAPED:
            size = [keywords["size"]] if "size" in keywords else node.args
            return TorchTensor(self.shape(list(size)), dtype or DataType.FP32)
        if name == "full" and len(node.args) >= 2:
            fill = [self.number(node.args[1])]
            return TorchTensor(self.shape(node.args[:1]), dtype or literal_dtype(fill))
        if name == "randint" and len(node.args) >= 3:
            return TorchTensor(self.shape(node.args[2:3]), dtype or DataType.INT64)
        if name == "arange" and 1 <= len(node.args) <= 3:
            return self.arange(node.args, dtype)
        if name == "tensor" and node.args:
            numbers = [self.number(leaf) for leaf in leaves(node.args[0])]
            return TorchTensor(nested_shape(node.args[0]), dtype or literal_dtype(numbers))
        if name in _LIKE and node.args:
            held = self.tensor_of(node.args[0])
            if held is not None:
                return TorchTensor(held.shape, dtype or held.dtype)
        raise Unreadable

    def arange(self, args: list[ast.expr], dtype: DataType | None) -> TorchTensor:
        """``torch.arange(end)`` / ``(start, end[, step])`` of integers."""
        bounds = [self.integer(a) for a in args]
        start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds[:2], 1)
        step = bounds[2] if len(bounds) == 3 else step
        count = len(range(start, end, step)) if step else 0
        if count <= 0:
            raise Unreadable
        return TorchTensor((count,), dtype or DataType.INT64)

    def call(self, node: ast.Call, kernel: ast.FunctionDef) -> None:
        source = self.env.source
        params = kernel.args.args
        site = CallSite(kernel.name, source.span(node))
        if self.site_counts[kernel.name] >= MAX_SITES:
            if kernel.name not in self.capped:
                self.capped.add(kernel.name)
                self.bag.error(
                    "I002",
                    f"'{kernel.name}' has {MAX_SITES} calls before this one: this and later "
                    "calls give no specialisation (each is a program ptoc checks)",
                    site.span,
                )
            return
        positional = self.spread(node.args)
        if positional is None or not self.arity(node, kernel, len(positional)):
            return
        bound = {p.arg: a for p, a in zip(params, positional, strict=False)}
        names = {p.arg for p in params}
        bound.update({k.arg: (k.value, k.value) for k in node.keywords if k.arg in names})
        for param in params:
            if bare_tensor(param.annotation) is None or param.arg not in bound:
                continue
            argument, written = bound[param.arg]
            held = self.tensor_of(argument)
            if not isinstance(held, TorchTensor) and is_runtime_marker(argument):
                site.readable = False
                self.bag.error(
                    "E211",
                    f"pl.RUNTIME marks a scalar argument a run-time value; '{param.arg}' is a "
                    "tensor, whose shape and dtype come from the tensor passed",
                    source.span(written),
                )
                continue
            if not isinstance(held, TorchTensor):
                site.readable = False
                self.bag.error(
                    "I002",
                    f"argument '{param.arg}' of this call to '{kernel.name}' cannot be read "
                    "statically (it is built at run time): the kernel is checked for every shape",
                    source.span(written),
                )
                continue
            site.tensors[param.arg] = held
            dims = tuple(ConstInt(_INDEX, value=d, span=site.span) for d in held.shape)
            site.shapes[param.arg] = TensorType(dims, held.dtype)
        self.found.sites.append(site)
        self.site_counts[kernel.name] += 1

    def spread(self, args: list[ast.expr]) -> list[tuple[ast.expr, ast.expr]] | None:
        """The positional arguments, each with where it is written: ``*args`` of a literal
        tuple (written there or held by a name) gives its elements; None for a spread whose
        length is unknown."""
        found: list[tuple[ast.expr, ast.expr]] = []
        for argument in args:
            if not isinstance(argument, ast.Starred):
                found.append((argument, argument))
                continue
            elements = self.elements(argument.value)
            if elements is None or any(isinstance(e, ast.Starred) for e in elements):
                return None
            found.extend((element, argument) for element in elements)
        return found

    def tensor_of(self, argument: ast.expr) -> TorchTensor | None:
        held = self.values.get(argument.id) if isinstance(argument, ast.Name) else None
        if isinstance(held, TorchTensor):
            return held
        try:
            return self.tensor(argument) if isinstance(argument, ast.Call) else None
        except Unreadable:
            return None

    @staticmethod
    def counts(node: ast.Call, kernel: ast.FunctionDef, positional: int) -> tuple[int, int]:
        """How many parameters the kernel requires, and how many the call gives (its
        ``positional`` arguments and the keywords after them; options such as ``config=`` are
        the runtime's)."""
        params = [p.arg for p in kernel.args.args]
        required = len(params) - len(kernel.args.defaults)
        return required, positional + sum(1 for k in node.keywords if k.arg in params[positional:])

    def fits(self, node: ast.Call, kernel: ast.FunctionDef, positional: int) -> bool:
        """The call passes each parameter of the kernel once."""
        required, given = self.counts(node, kernel, positional)
        return positional <= len(kernel.args.args) and given >= required

    def arity(self, node: ast.Call, kernel: ast.FunctionDef, positional: int) -> bool:
        """Whether the call fits the kernel; a wrong count is E210 at the call."""
        if any(k.arg is None for k in node.keywords):
            return False
        if self.fits(node, kernel, positional):
            return True
        params = [p.arg for p in kernel.args.args]
        required, given = self.counts(node, kernel, positional)
        wanted = f"{required}" if required == len(params) else f"{required} to {len(params)}"
        self.bag.error(
            "E210",
            f"'{kernel.name}' takes {wanted} argument(s) ({', '.join(params)}) "
            f"but this call passes {positional if positional > len(params) else given}",
            self.env.source.span(node),
        )
        return False


def dtype_or_none(node: ast.expr) -> DataType | None:
    try:
        return torch_dtype(node)
    except Unreadable:
        return None


def literal_dtype(numbers: list[Any]) -> DataType:
    """The dtype torch gives literal numbers: bool when all are, int64 when every one is an
    integer, else float32."""
    if numbers and all(type(n) is bool for n in numbers):
        return DataType.BOOL
    if numbers and all(type(n) in (int, bool) for n in numbers):
        return DataType.INT64
    if numbers and all(type(n) in (int, bool, float) for n in numbers):
        return DataType.FP32
    raise Unreadable


def leaves(node: ast.expr) -> list[ast.expr]:
    """The numbers of nested literal lists, in order."""
    if isinstance(node, ast.List | ast.Tuple):
        return [leaf for element in node.elts for leaf in leaves(element)]
    return [node]


def nested_shape(node: ast.expr) -> tuple[int, ...]:
    """The shape of ``torch.tensor``'s nested literal lists (``[[1, 2], [3, 4]]``: (2, 2))."""
    if not isinstance(node, ast.List | ast.Tuple):
        raise Unreadable
    if not node.elts:
        raise Unreadable
    inner = [nested_shape(e) if isinstance(e, ast.List | ast.Tuple) else () for e in node.elts]
    if any(shape != inner[0] for shape in inner):
        raise Unreadable  # ragged: torch refuses it
    return (len(node.elts), *inner[0])


def reshaped(shape: tuple[int, ...], wanted: tuple[int, ...]) -> tuple[int, ...]:
    """``.reshape(wanted)`` of ``shape``: one -1 takes what the others leave."""
    total = 1
    for dim in shape:
        total *= dim
    known = 1
    for dim in wanted:
        known *= dim if dim != -1 else 1
    free = wanted.count(-1)
    if free > 1 or any(d <= 0 and d != -1 for d in wanted) or known == 0:
        raise Unreadable
    if free:
        if total % known:
            raise Unreadable
        wanted = tuple(total // known if d == -1 else d for d in wanted)
    if known * (total // known if free else 1) != total:
        raise Unreadable
    return wanted


def is_runtime_marker(node: ast.expr) -> bool:
    chain = attribute_chain(node)
    return bool(chain) and chain is not None and chain[-1] == "RUNTIME"


def calls_in(statement: ast.stmt) -> list[ast.Call]:
    """The calls of one statement itself (not of the blocks it holds)."""
    parts: list[ast.AST] = []
    for name, value in ast.iter_fields(statement):
        if name in ("body", "orelse", "finalbody", "handlers"):
            continue
        parts.extend(value if isinstance(value, list) else [value])
    return [
        node
        for part in parts
        if isinstance(part, ast.AST)
        for node in ast.walk(part)
        if isinstance(node, ast.Call)
    ]


def kernel_tables(tree: ast.Module, entries: dict[str, ast.FunctionDef]) -> dict[str, list[str]]:
    """Module-level ``MODES = {"a": kernel_a, "b": kernel_b}`` (or a list or tuple) of entries."""
    tables: dict[str, list[str]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        items = value.values if isinstance(value, ast.Dict) else getattr(value, "elts", None)
        if isinstance(value, ast.Dict | ast.List | ast.Tuple) and items:
            names = [i.id for i in items if isinstance(i, ast.Name) and i.id in entries]
            if len(names) == len(items):
                tables[node.targets[0].id] = names
    return tables


def run_time_blocks(tree: ast.Module, jit_names: set[str]) -> list[list[ast.stmt]]:
    """Where a file calls its kernels: module-level ``if`` blocks and plain functions."""
    blocks: list[list[ast.stmt]] = []
    for node in tree.body:
        if isinstance(node, ast.If):
            blocks.append([node])
        elif (
            isinstance(node, ast.FunctionDef)
            and node.name not in jit_names
            and not node.decorator_list
        ):
            blocks.append(node.body)
    return blocks


def read_call_sites(
    tree: ast.Module, env: ModuleEnv, entries: dict[str, ast.FunctionDef]
) -> CallSites:
    reader = CallReader(env, entries)
    reader.tables = kernel_tables(tree, entries)
    reader.literals = {
        node.targets[0].id: Literal(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Tuple | ast.List | ast.Dict)
    }
    for block in run_time_blocks(tree, set(entries)):
        reader.values = {}
        reader.block(block)
    reader.found.notes = list(reader.bag.items)
    return reader.found
