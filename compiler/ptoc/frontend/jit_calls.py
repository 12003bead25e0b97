"""Calls of JIT entries in their own file (``if __name__ == "__main__":`` blocks, plain module
functions) whose torch arguments can be read from the text: ``torch.zeros((128, 128),
dtype=torch.float32)``, ``torch.randn(m, n)`` with constant ``m, n``, ``torch.zeros_like(a)``.
Nothing is run: the call's AST is read, and a value built any other way is unknown."""

from __future__ import annotations

import ast
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
_CONVERSIONS = {"float": DataType.FP32, "half": DataType.FP16, "bfloat16": DataType.BF16}
_INDEX = ScalarType(DataType.INT64)


@record(frozen=True)
class TorchTensor:
    shape: tuple[int, ...]
    dtype: DataType


@record(frozen=True)
class Kernel:
    """A name bound to a JIT entry (``for fn in (kernel_a, kernel_b):``)."""

    name: str


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
        self.found = CallSites()
        self.bag = DiagnosticBag()

    def block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            for call in calls_in(statement):
                for kernel in self.kernels(call.func):
                    self.call(call, self.entries[kernel.name])
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

    def kernels(self, node: ast.expr) -> list[Kernel]:
        """The entries a call may call: one by name, or each of a module table of kernels
        (``MODES[args.mode](a, b)``: whichever the run picks)."""
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return [Kernel(name) for name in self.tables.get(node.value.id, [])]
        kernel = self.kernel(node)
        return [kernel] if kernel is not None else []

    def kernel(self, node: ast.expr) -> Kernel | None:
        """The entry a name calls: its own name, or a loop variable bound to it."""
        if not isinstance(node, ast.Name):
            return None
        held = self.values.get(node.id)
        if isinstance(held, Kernel):
            return held
        return Kernel(node.id) if node.id in self.entries and held is None else None

    def loop(self, node: ast.For) -> None:
        """``for fn, k in ((kernel_a, 128), (kernel_b, 32)):`` runs its body once per element
        of a literal sequence; over anything else, once with its variables unknown."""
        elements = node.iter.elts if isinstance(node.iter, ast.Tuple | ast.List) else [None]
        for element in elements:
            self.bind_loop(node.target, element)
            self.block(node.body)
        self.block(node.orelse)

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
            kernel = self.kernel(element) if element is not None else None
            if kernel is not None:
                self.values[target.id] = kernel
                return
            try:
                self.values[target.id] = self.value(element) if element is not None else None
            except Unreadable:
                self.values[target.id] = None

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        try:
            held: Any = self.value(value)
        except Unreadable:
            held = None
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.values[name.id] = held if isinstance(target, ast.Name) else None

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Call):
            return self.tensor(node)
        return self.integer(node)

    def integer(self, node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            held = self.values[node.id] if node.id in self.values else self.constant(node.id)
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

    def constant(self, name: str) -> Any:
        return self.env.consts.values.get(name)

    def shape(self, args: list[ast.expr]) -> tuple[int, ...]:
        if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
            args = list(args[0].elts)
        dims = tuple(self.integer(a) for a in args)
        if not dims or any(d <= 0 for d in dims):
            raise Unreadable
        return dims

    def tensor(self, node: ast.Call) -> TorchTensor:
        chain = attribute_chain(node.func)
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if chain and len(chain) == 2 and chain[0] == "torch":
            dtype = torch_dtype(keywords["dtype"]) if "dtype" in keywords else None
            return self.constructor(chain[1], node, keywords, dtype)
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            held = self.values.get(node.func.value.id)
            method = node.func.attr
            if isinstance(held, TorchTensor) and method == "to" and node.args:
                return TorchTensor(held.shape, torch_dtype(node.args[0]))
            if isinstance(held, TorchTensor) and method in _CONVERSIONS:
                return TorchTensor(held.shape, _CONVERSIONS[method])
            if isinstance(held, TorchTensor) and method in ("clone", "contiguous"):
                return held
        raise Unreadable

    def constructor(
        self, name: str, node: ast.Call, keywords: dict[str, ast.expr], dtype: DataType | None
    ) -> TorchTensor:
        if name in _SHAPED:
            size = [keywords["size"]] if "size" in keywords else node.args
            return TorchTensor(self.shape(list(size)), dtype or DataType.FP32)
        if name == "full" and node.args:
            return TorchTensor(self.shape(node.args[:1]), dtype or DataType.FP32)
        if name == "randint" and len(node.args) >= 3:
            return TorchTensor(self.shape(node.args[2:3]), dtype or DataType.INT64)
        if name in _LIKE and node.args and isinstance(node.args[0], ast.Name):
            held = self.values.get(node.args[0].id)
            if isinstance(held, TorchTensor):
                return TorchTensor(held.shape, dtype or held.dtype)
        raise Unreadable

    def call(self, node: ast.Call, kernel: ast.FunctionDef) -> None:
        source = self.env.source
        params = kernel.args.args
        site = CallSite(kernel.name, source.span(node))
        if not self.arity(node, kernel):
            return
        bound: dict[str, ast.expr] = {p.arg: a for p, a in zip(params, node.args, strict=False)}
        names = {p.arg for p in params}
        bound.update({k.arg: k.value for k in node.keywords if k.arg in names})
        for param in params:
            if bare_tensor(param.annotation) is None or param.arg not in bound:
                continue
            argument = bound[param.arg]
            held = self.values.get(argument.id) if isinstance(argument, ast.Name) else None
            if not isinstance(held, TorchTensor):
                try:
                    held = self.tensor(argument) if isinstance(argument, ast.Call) else None
                except Unreadable:
                    held = None
            if not isinstance(held, TorchTensor) and is_runtime_marker(argument):
                site.readable = False
                self.bag.error(
                    "E211",
                    f"pl.RUNTIME marks a scalar argument a run-time value; '{param.arg}' is a "
                    "tensor, whose shape and dtype come from the tensor passed",
                    source.span(argument),
                )
                continue
            if not isinstance(held, TorchTensor):
                site.readable = False
                self.bag.error(
                    "I002",
                    f"argument '{param.arg}' of this call to '{kernel.name}' cannot be read "
                    "statically (it is built at run time): the kernel is checked for every shape",
                    source.span(argument),
                )
                continue
            site.tensors[param.arg] = held
            dims = tuple(ConstInt(_INDEX, value=d, span=site.span) for d in held.shape)
            site.shapes[param.arg] = TensorType(dims, held.dtype)
        self.found.sites.append(site)

    def arity(self, node: ast.Call, kernel: ast.FunctionDef) -> bool:
        """The call passes each parameter of the kernel once (options such as ``config=`` are
        the runtime's); a wrong count is E210 at the call."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            return False
        params = [p.arg for p in kernel.args.args]
        required = len(params) - len(kernel.args.defaults)
        given = len(node.args) + sum(1 for k in node.keywords if k.arg in params[len(node.args) :])
        if len(node.args) <= len(params) and given >= required:
            return True
        wanted = f"{required}" if required == len(params) else f"{required} to {len(params)}"
        self.bag.error(
            "E210",
            f"'{kernel.name}' takes {wanted} argument(s) ({', '.join(params)}) "
            f"but this call passes {len(node.args) if len(node.args) > len(params) else given}",
            self.env.source.span(node),
        )
        return False


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
    for block in run_time_blocks(tree, set(entries)):
        reader.values = {}
        reader.block(block)
    reader.found.notes = list(reader.bag.items)
    return reader.found
