"""2026-08's numpy-style subscripts of tensors and tiles (spec §5): ``t[i, j]`` with an index
per axis reads one element; any slice makes a window (the op ``slice`` / ``view``) whose
integer-indexed axes are dropped; missing trailing indices mean ``:``. ``dst[...] = src``
writes ``src`` into that window of ``dst`` (``assemble``).
"""

from __future__ import annotations

import ast

from ...ir.dtype import DataType
from ...ir.expr import Expr, MakeTuple, const_int, make_tuple
from ...ir.shape import static_value
from ...ir.span import Span
from ...ir.types import ArrayType, ShapedType, TensorType, TileType, UnknownType
from ...ops import REGISTRY, OpDef, sugar
from .core import Lowerer, error_value
from .ops import typed_call

_READ, _WINDOW, _RESHAPE, _ASSEMBLE = sugar.READ, sugar.WINDOW, sugar.RESHAPE, sugar.ASSEMBLE


def sugar_kind(shaped: object) -> type:
    """TensorType or TileType: the table entry a subscript of ``shaped`` uses (a window's
    ``pld.DistributedTensor`` is a tensor: its KeyError was an internal error)."""
    return TensorType if isinstance(shaped, TensorType) else TileType


class Window:
    """Offsets and sizes per axis, and which axes an integer index drops."""

    def __init__(self) -> None:
        self.offsets: list[Expr] = []
        self.sizes: list[Expr] = []
        self.dropped: list[int] = []


def lower_shaped_subscript(lw: Lowerer, node: ast.Subscript, value: Expr) -> Expr:
    shaped = value.type
    assert isinstance(shaped, ShapedType)
    span = lw.span(node)
    window = read_window(lw, node, shaped)
    if window is None:
        return error_value(span)
    kind = sugar_kind(shaped)
    if len(window.dropped) == len(shaped.shape):
        return call(
            lw,
            _READ[kind],
            node,
            {
                "tensor" if kind is TensorType else "tile": value,
                "indices": make_tuple(tuple(window.offsets), span=span),
            },
            span,
        )
    return window_call(lw, node, value, window, span)


def window_call(lw: Lowerer, node: ast.Subscript, value: Expr, window: Window, span: Span) -> Expr:
    kind = sugar_kind(value.type)
    op = REGISTRY.get(_WINDOW[kind])
    assert op is not None
    kept = [d for i, d in enumerate(window.sizes) if i not in window.dropped]
    # A tensor's window may have a lower rank than the tensor: dropped axes go at once.
    sizes = kept if kind is TensorType else window.sizes
    names = op.expr_names
    args = {
        names[0]: value,
        names[1]: make_tuple(tuple(sizes), span=span),
        names[2]: make_tuple(tuple(window.offsets), span=span),
    }
    viewed = call(lw, op.name, node, args, span)
    if kind is TensorType or not window.dropped or not isinstance(viewed.type, ShapedType):
        return viewed
    if kind is TileType:
        while len(kept) < 2:  # a tile is never below 2-D: leading unit axes come back
            kept.insert(0, const_int(1, lw.env.rules.int_literal_dtype, span=span))
    reshape = REGISTRY.get(_RESHAPE[kind])
    assert reshape is not None
    names = reshape.expr_names
    return call(
        lw,
        reshape.name,
        node,
        {names[0]: viewed, names[1]: make_tuple(tuple(kept), span=span)},
        span,
    )


def read_window(lw: Lowerer, node: ast.Subscript, shaped: ShapedType) -> Window | None:
    index = node.slice
    elements = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    rank = len(shaped.shape)
    if len(elements) > rank:
        lw.error("E306", f"{len(elements)} indices for a value of rank {rank}", index)
        return None
    window = Window()
    literal = lw.env.rules.int_literal_dtype  # the bounds left out are literals
    for axis, dim in enumerate(shaped.shape):
        element = elements[axis] if axis < len(elements) else ast.Slice()
        if isinstance(element, ast.Slice):
            if element.step is not None:
                lw.error("E306", "a subscript step is not supported", element.step)
                return None
            lower, upper = element.lower, element.upper
            start = lw.lower_expr(lower) if lower is not None else const_int(0, literal)
            stop = lw.lower_expr(upper) if upper is not None else dim
            window.offsets.append(start)
            window.sizes.append(extent(start, stop, lw.span(node), literal))
        else:
            window.offsets.append(lw.lower_expr(element))
            window.sizes.append(const_int(1, literal))
            window.dropped.append(axis)
    return window


def extent(start: Expr, stop: Expr, span: Span, literal: DataType = DataType.INT64) -> Expr:
    """``stop - start``, folded to a ``literal`` constant when the difference does not depend
    on the variables: both are sums of the same terms times the same constants, plus constants
    (``a[:, k0 : k0 + KS]`` is ``KS`` wide wherever ``k0`` is, ``a[:, c + 64 : c + 128]`` 64,
    ``a[:, i * 128 : (i + 1) * 128]`` 128)."""
    from ...ir.expr import Binary, BinaryOp

    difference = _linear(stop, 1) + _linear(start, -1)
    if all(scale == 0 for _, scale in _collected(difference)):
        constant = sum(scale for term, scale in difference if term is None)
        return const_int(constant, literal, span=span)
    return Binary(stop.type, op=BinaryOp.Sub, lhs=stop, rhs=start, span=span)


def _linear(value: Expr, scale: int) -> list[tuple[Expr | None, int]]:
    """``value * scale`` as terms times constants; a constant is the term None (its value the
    constant). What is not a sum, difference or product by a constant is a term of its own."""
    from ...ir.expr import Binary, BinaryOp

    c = static_value(value)
    if c is not None:
        return [(None, c * scale)]
    if isinstance(value, Binary) and value.op in (BinaryOp.Add, BinaryOp.Sub):
        sign = 1 if value.op is BinaryOp.Add else -1
        return _linear(value.lhs, scale) + _linear(value.rhs, scale * sign)
    if isinstance(value, Binary) and value.op is BinaryOp.Mul:
        for term, factor in ((value.lhs, value.rhs), (value.rhs, value.lhs)):
            k = static_value(factor)
            if k is not None:
                return _linear(term, scale * k)
    return [(value, scale)]


def _collected(terms: list[tuple[Expr | None, int]]) -> list[tuple[Expr, int]]:
    """The variable terms with equal terms' constants added (structurally equal terms)."""
    from ...ir.equality import structural_equal

    out: list[tuple[Expr, int]] = []
    for term, scale in terms:
        if term is None:
            continue
        for i, (seen, total) in enumerate(out):
            if structural_equal(seen, term):
                out[i] = (seen, total + scale)
                break
        else:
            out.append((term, scale))
    return out


def lower_subscript_store(
    lw: Lowerer, target: ast.Subscript, value: Expr
) -> tuple[str, Expr] | None:
    """``dst[...] = src``: the name assigned and ``assemble(dst, src, offsets)``."""
    if not isinstance(target.value, ast.Name):
        lw.error("E002", "the target of a subscript assignment must be a name", target.value)
        return None
    base = lw.lower_expr(target.value)
    if isinstance(base.type, UnknownType):  # a JIT tensor before a call gives it a shape
        return None
    if isinstance(base.type, ArrayType):  # arr[i] = v: an element update (spec §7)
        return target.value.id, lower_array_subscript(lw, target, base, value)
    if not isinstance(base.type, TensorType | TileType):
        lw.error("E002", f"cannot assign into a subscript of {base.type.short()}", target)
        return None
    window = read_window(lw, target, base.type)
    if window is None:
        return None
    op = REGISTRY.get(_ASSEMBLE[sugar_kind(base.type)])
    span = lw.span(target)
    if op is None:
        lw.error("E301", "assigning into a tile window is not supported yet", target)
        return None
    names = op.expr_names
    args = {names[0]: base, names[1]: value, names[2]: make_tuple(tuple(window.offsets), span=span)}
    return target.value.id, call(lw, op.name, target, args, span)


def lower_array_subscript(
    lw: Lowerer, node: ast.Subscript, array: Expr, value: Expr | None
) -> Expr:
    """``arr[i]`` (``pl.array.get_element``) or, with a value, ``arr[i] = v``
    (``pl.array.update_element``)."""
    if isinstance(node.slice, ast.Slice | ast.Tuple):
        lw.error("E306", "an array takes one integer index", node.slice)
        return error_value(lw.span(node))
    args = {"array": array, "index": lw.lower_expr(node.slice)}
    nodes: dict[str, ast.AST] = {"array": node.value, "index": node.slice}
    if value is not None:
        args["value"] = value
        nodes["value"] = node
    name = sugar.ARRAY_UPDATE if value is not None else sugar.ARRAY_READ
    op = REGISTRY.ops[name]
    return typed_call(lw, op, nodes, args, {}, lw.span(node))  # type: ignore[arg-type]


def call(lw: Lowerer, name: str, node: ast.AST, args: dict[str, Expr], span: Span) -> Expr:
    op: OpDef | None = REGISTRY.get(name)
    if op is None:
        lw.error(
            "E301", f"this subscript needs the op '{name}', which ptoc does not have yet", node
        )
        return error_value(span)
    nodes = {key: node for key in args}
    return typed_call(lw, op, nodes, args, {}, span)  # type: ignore[arg-type]


__all__ = ["MakeTuple", "lower_shaped_subscript", "lower_subscript_store"]
