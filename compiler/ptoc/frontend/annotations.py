"""Reading type annotations: ``pl.Tensor[[64, 128], pl.FP32]`` and every other accepted form."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..diagnostics import DiagnosticBag, Fix, TextEdit, replacement_fixes
from ..ir.dtype import DTYPE_BY_NAME, DataType
from ..ir.expr import ConstInt, Expr, Var
from ..ir.function import ParamDirection
from ..ir.types import (
    TASK_ID_TYPE,
    UNKNOWN,
    ArrayType,
    DistributedTensorType,
    ScalarType,
    TensorLayout,
    TensorType,
    TupleType,
    Type,
)
from ..language import BARE_TYPE_NAMES
from ..records import record
from .buffers import tensor_extras, tile_extras
from .consteval import ConstEvaluator, DynDim, NotConstant, dsl_enum_value
from .names import DslImports, dsl_path
from .source import SourceText

ScalarLookup = Callable[[str], Var | None]


_INT64 = ScalarType(DataType.INT64)  # shared by every dimension (types are values)


@record
class ParamAnnotation:
    type: Type | None
    direction: ParamDirection


#: 2026-08 handle types written without a subscript; the IR does not model them yet, so a
#: value annotated with one is of unknown type (no error, nothing checked against it).
MARKER_TYPES = frozenset(
    (
        "Ptr",
        "MemRefType",
        "CommCtx",
        "PrefetchAsyncContext",
        "AsyncEvent",
        "AsyncSession",
        "WindowBufferType",
    )
)


class TypeResolver:
    def __init__(
        self,
        source: SourceText,
        imports: DslImports,
        consts: ConstEvaluator,
        bag: DiagnosticBag,
        index_dtype: DataType = DataType.INT64,
    ) -> None:
        self.source = source
        self.imports = imports
        self.consts = consts
        self.bag = bag
        # What the name ``INDEX`` is: the edition's index dtype (INDEX in 2026-08, INT64 in
        # 2026-03; ``EditionRules.index_dtype``).
        self.index_dtype = index_dtype

    def _named(self, name: str, dtype: DataType) -> DataType:
        return self.index_dtype if name == "INDEX" else dtype

    # --- helpers ------------------------------------------------------------------------------
    def _path(self, node: ast.expr) -> tuple[str, ...] | None:
        path = dsl_path(node, self.imports)
        if path is not None:
            return path
        if isinstance(node, ast.Name) and (node.id in BARE_TYPE_NAMES or node.id in DTYPE_BY_NAME):
            return (node.id,)
        return None

    def error(self, code: str, message: str, node: ast.AST, fixes: tuple[Fix, ...] = ()) -> None:
        self.bag.error(code, message, self.source.span(node), fixes=fixes)

    def dtype(self, node: ast.expr) -> DataType | None:
        path = self._path(node)
        if path is not None and len(path) >= 1:
            value = (
                dsl_enum_value(path[-1:])
                if len(path) == 1 or path[0] != "DataType"
                else dsl_enum_value(path)
            )
            if isinstance(value, DataType):
                return self._named(path[-1], value)
            self.error(
                "E105", f"Unknown dtype: {'.'.join(path)}", node, self._dtype_fixes(node, path[-1])
            )
            return None
        if isinstance(node, ast.Attribute):
            # The base of a dtype attribute is not checked (`foo.FP32` works, as in the original).
            if node.attr in DTYPE_BY_NAME:
                return self._named(node.attr, DTYPE_BY_NAME[node.attr])
            self.error(
                "E105", f"Unknown dtype: {node.attr}", node, self._dtype_fixes(node, node.attr)
            )
            return None
        if isinstance(node, ast.Name) and node.id in self.consts.values:
            value = self.consts.values[node.id]
            if isinstance(value, DataType):
                return value
            self.error("E105", f"Dtype variable '{node.id}' must be a DataType", node)
            return None
        self.error("E105", f"Unknown dtype: {self.source.segment(node)}", node)
        return None

    def _dtype_fixes(self, node: ast.expr, name: str) -> tuple[Fix, ...]:
        import difflib

        matches = difflib.get_close_matches(name.upper(), list(DTYPE_BY_NAME), n=1, cutoff=0.6)
        if not matches:
            return ()
        span = self.source.span(node)
        if isinstance(node, ast.Attribute):
            span = self.source.attr_name_span(node)
        return replacement_fixes(span, matches)

    def shape(self, node: ast.expr, lookup: ScalarLookup | None) -> tuple[Expr, ...] | None:
        if isinstance(node, ast.List | ast.Tuple):
            dims: list[Expr] = []
            for element in node.elts:
                dim = self.dim(element, lookup)
                if dim is None:
                    return None
                dims.append(dim)
            return tuple(dims)
        if isinstance(node, ast.Name | ast.Subscript):  # SHAPE, CFG["shape"]
            try:
                value = self.consts.evaluate(node)
            except NotConstant:
                value = None
            if isinstance(value, list):
                dims = []
                for item in value:
                    dim = self._dim_value(item, node)
                    if dim is None:
                        return None
                    dims.append(dim)
                return tuple(dims)
        self.error("E104", "Shape must be a list or tuple, e.g. [64, 128]", node)
        return None

    def _dim_value(self, value: object, node: ast.expr) -> Expr | None:
        span = self.source.span(node)
        if isinstance(value, bool):
            self.error("E104", "Shape dimension must be int or pl.dynamic()", node)
            return None
        if isinstance(value, int):
            return ConstInt(_INT64, value=value, span=span)
        if isinstance(value, DynDim):
            return value.var
        self.error("E104", "Shape dimension must be int or pl.dynamic()", node)
        return None

    def dim(self, node: ast.expr, lookup: ScalarLookup | None) -> Expr | None:
        if isinstance(node, ast.Name):
            if lookup is not None:
                var = lookup(node.id)
                if var is not None:
                    if isinstance(var.type, ScalarType) and var.type.dtype.is_int:
                        return var
                    self.error(
                        "E104", f"Shape dimension '{node.id}' must be an integer scalar", node
                    )
                    return None
            if node.id not in self.consts.values:
                if node.id in self.consts.definitions:
                    self.error(
                        "E205",
                        f"'{node.id}' cannot be evaluated statically, "
                        "so it cannot be used as a dimension",
                        node,
                    )
                else:
                    self.error("E104", f"Unknown shape variable '{node.id}'", node)
                return None
        try:
            value = self.consts.evaluate(node)
        except NotConstant:
            self.error("E104", "Shape dimension must be int or pl.dynamic()", node)
            return None
        return self._dim_value(value, node)

    # --- types --------------------------------------------------------------------------------
    def resolve(
        self, node: ast.expr, lookup: ScalarLookup | None = None, *, allow_tuple: bool = False
    ) -> Type | None:
        """A Type, or None after reporting why not."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.error("E101", "String annotations are not supported; write the type itself", node)
            return None
        if isinstance(node, ast.Subscript):
            return self._subscript(node, lookup, allow_tuple)
        if isinstance(node, ast.Call):
            return self._legacy_call(node, lookup)
        path = self._path(node)
        if path is not None and path[-1] == "TaskId":
            return TASK_ID_TYPE
        if path is not None and path[-1] in MARKER_TYPES:
            return UNKNOWN  # a handle the IR does not model (task ids, contexts, pointers)
        if path is not None:
            if path[-1] in ("Tensor", "Tile", "Scalar"):
                form = "[[64, 128], pl.FP32]" if path[-1] != "Scalar" else "[pl.FP32]"
                self.error(
                    "E103", f"`{path[-1]}` needs its shape and dtype, e.g. {path[-1]}{form}", node
                )
                return None
            value = dsl_enum_value(path) or dsl_enum_value(path[-1:])
            if isinstance(value, DataType):  # seed 003: `x: pl.INT64`
                return ScalarType(self._named(path[-1], value))
        if isinstance(node, ast.Name):
            if node.id in DTYPE_BY_NAME:
                return ScalarType(self._named(node.id, DTYPE_BY_NAME[node.id]))
            value = self.consts.values.get(node.id)
            if isinstance(value, DataType):
                return ScalarType(value)
        self.error("E101", f"`{self.source.segment(node)}` is not a PyPTO type", node)
        return None

    def _array(self, node: ast.Subscript, elements: list[ast.expr]) -> Type | None:
        if len(elements) != 2:
            self.error("E101", "Array takes an extent and a dtype: pl.Array[4, pl.TASK_ID]", node)
            return None
        dtype = self.dtype(elements[1])
        if dtype is None:
            return None
        try:
            extent = self.consts.evaluate(elements[0])
        except NotConstant:
            extent = None
        return ArrayType(extent if isinstance(extent, int) else None, dtype)

    def _subscript(
        self, node: ast.Subscript, lookup: ScalarLookup | None, allow_tuple: bool
    ) -> Type | None:
        path = self._path(node.value)
        head = path[-1] if path else (node.value.id if isinstance(node.value, ast.Name) else None)
        elements = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in ("tuple", "Tuple") or (
            isinstance(node.value, ast.Name) and node.value.id in ("tuple", "Tuple")
        ):
            if not allow_tuple:
                self.error("E102", "A tuple type is only allowed as a return annotation", node)
                return None
            types: list[Type] = []
            for element in elements:
                if isinstance(element, ast.Subscript) and self._is_tuple(element):
                    self.error("E102", "Nested tuple types are not supported", element)
                    return None
                t = self.resolve(element, lookup)
                if t is None:
                    return None
                types.append(t)
            return TupleType(tuple(types))
        if head == "Array":  # 2026-08: a small rank-1 array of integers or TaskIds
            return self._array(node, elements)
        if head in ("InOut", "Out"):
            self.error("E102", f"`{head}[...]` is only allowed on a function parameter", node)
            return None
        if head == "Scalar":
            if len(elements) != 1:
                self.error("E101", "Scalar takes one dtype: pl.Scalar[pl.INT32]", node)
                return None
            dtype = self.dtype(elements[0])
            return ScalarType(dtype) if dtype is not None else None
        if head in ("Tensor", "Tile", "DistributedTensor"):
            if len(elements) < 2:
                self.error(
                    "E103", f"{head} requires [shape, dtype], e.g. {head}[[64, 128], pl.FP32]", node
                )
                return None
            shape = self.shape(elements[0], lookup)
            dtype = self.dtype(elements[1])
            if shape is None or dtype is None:
                return None
            extras = elements[2:]
            if head == "DistributedTensor":
                return distributed(tensor_extras(self, shape, dtype, extras))
            if head != "Tile":
                return tensor_extras(self, shape, dtype, extras)
            return tile_extras(self, shape, dtype, extras, lookup)
        self.error("E101", f"`{self.source.segment(node)}` is not a PyPTO type", node)
        return None

    def _is_tuple(self, node: ast.Subscript) -> bool:
        return isinstance(node.value, ast.Name) and node.value.id in ("tuple", "Tuple")

    def call_name(self, node: ast.Call) -> str | None:
        path = self._path(node.func)
        return path[-1] if path else None

    def enum(self, node: ast.expr) -> object:
        path = self._path(node)
        if path is not None:
            return dsl_enum_value(path) or dsl_enum_value(path[-1:])
        if isinstance(node, ast.Name):
            if node.id in TensorLayout.__members__:
                return TensorLayout[node.id]
            return self.consts.values.get(node.id)
        return None

    def int_constant(self, node: ast.expr) -> int | None:
        try:
            value = self.consts.evaluate(node)
        except NotConstant:
            value = None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        self.error("E101", "expected an integer constant", node)
        return None

    def _legacy_call(self, node: ast.Call, lookup: ScalarLookup | None) -> Type | None:
        """``pl.Tensor((64, 128), pl.FP16)``: still accepted, with a fix to the subscript form."""
        head = self.call_name(node)
        if head not in ("Tensor", "Tile", "Scalar"):
            self.error("E101", f"`{self.source.segment(node)}` is not a PyPTO type", node)
            return None
        need = 1 if head == "Scalar" else 2
        if len(node.args) < need:
            self.error("E103", f"{head}(...) requires shape and dtype arguments", node)
            return None
        result: Type | None
        if head == "Scalar":
            dtype = self.dtype(node.args[0])
            result = ScalarType(dtype) if dtype is not None else None
        else:
            shape = self.shape(node.args[0], lookup)
            dtype = self.dtype(node.args[1])
            if shape is None or dtype is None:
                return None
            extras = list(node.args[2:])
            result = (
                tensor_extras(self, shape, dtype, extras)
                if head == "Tensor"
                else tile_extras(self, shape, dtype, extras, lookup)
            )
        if result is not None:
            self._legacy_note(node, head)
        return result

    def _legacy_note(self, node: ast.Call, head: str) -> None:
        func = self.source.segment(node.func)
        if head == "Scalar":
            new = f"{func}[{self.source.segment(node.args[0])}]"
        else:
            shape_node = node.args[0]
            if isinstance(shape_node, ast.Tuple | ast.List):
                shape = "[" + ", ".join(self.source.segment(e) for e in shape_node.elts) + "]"
            else:
                shape = self.source.segment(shape_node)
            rest = ", ".join(self.source.segment(a) for a in node.args[1:])
            new = f"{func}[{shape}, {rest}]"
        span = self.source.span(node)
        fix = Fix(f"Rewrite as `{new}`", (TextEdit(span, new),), preferred=True)
        self.bag.error(
            "W003", f"legacy annotation form; the current spelling is `{new}`", span, fixes=(fix,)
        )

    def right_form(self, node: ast.expr) -> str | None:
        """How a malformed Tensor / Tile / Scalar annotation is spelled correctly, reusing its
        own dims and dtype where they can be told apart (``pl.Tensor[pl.FP32, 64, 1]`` ->
        ``pl.Tensor[[64, 1], pl.FP32]``)."""
        target = (
            node.value
            if isinstance(node, ast.Subscript)
            else node.func
            if isinstance(node, ast.Call)
            else node
        )
        path = self._path(target)
        head = path[-1] if path else None
        if head not in ("Tensor", "Tile", "Scalar"):
            return None
        func = self.source.segment(target)
        if isinstance(node, ast.Subscript):
            elements = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        elif isinstance(node, ast.Call):
            elements = list(node.args)
        else:
            elements = []
        dtypes = [e for e in elements if self._looks_like_dtype(e)]
        if len(dtypes) != 1:
            return None  # the dtype is what is wrong; the message says so
        dtype = self.source.segment(dtypes[0])
        dims: list[str] = []
        for element in elements:
            if element is dtypes[0] or isinstance(self.enum(element), TensorLayout):
                continue
            if isinstance(element, ast.List | ast.Tuple):
                dims.extend(self.source.segment(e) for e in element.elts)
            else:
                dims.append(self.source.segment(element))
        form = f"{func}[{dtype}]" if head == "Scalar" else f"{func}[[{', '.join(dims)}], {dtype}]"
        if (head != "Scalar" and not dims) or form.replace(" ", "") == self.source.segment(
            node
        ).replace(" ", ""):
            return None
        return form

    def _looks_like_dtype(self, node: ast.expr) -> bool:
        name = (
            node.attr
            if isinstance(node, ast.Attribute)
            else node.id
            if isinstance(node, ast.Name)
            else None
        )
        return name in DTYPE_BY_NAME

    def param(self, node: ast.expr, lookup: ScalarLookup | None = None) -> ParamAnnotation:
        """A parameter annotation, with ``pl.InOut[...]`` / ``pl.Out[...]`` directions."""
        if isinstance(node, ast.Subscript):
            path = self._path(node.value)
            head = path[-1] if path else None
            if head in ("InOut", "Out"):
                inner = self.resolve(node.slice, lookup)
                direction = ParamDirection.InOut if head == "InOut" else ParamDirection.Out
                if isinstance(inner, ScalarType) and direction is ParamDirection.InOut:
                    self.error("E102", "Scalar parameters cannot have InOut direction", node)
                return ParamAnnotation(inner, direction)
            if head == "tuple" or (isinstance(node.value, ast.Name) and node.value.id == "tuple"):
                self.error("E102", "Parameter type cannot be a tuple", node)
                return ParamAnnotation(None, ParamDirection.In)
        return ParamAnnotation(self.resolve(node, lookup), ParamDirection.In)


def distributed(tensor: Type | None) -> Type | None:
    """A ``pld.DistributedTensor`` annotation's type: the tensor, as a window's view."""
    if not isinstance(tensor, TensorType):
        return tensor
    return DistributedTensorType(tensor.shape, tensor.dtype, tensor.memref, tensor.layout)
