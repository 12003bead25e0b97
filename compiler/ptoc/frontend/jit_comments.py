"""``# ptoc: specialise a=[128, 128]:FP32 b=[128, 128]:FP32`` in the comment lines right above
a JIT entry: shapes for a kernel called from another file (the call sites ptoc cannot see).
Each such line is one specialisation, as a call in the file would be; so is each string the
project's ``[tool.ptoc.jit]`` table gives the kernel (``config_sites``)."""

from __future__ import annotations

import ast
import re

from ..diagnostics import DiagnosticBag
from ..ir.dtype import DTYPE_BY_NAME, INDEX
from ..ir.expr import ConstInt
from ..ir.span import Span
from ..ir.types import ScalarType, TensorType
from .jit_calls import CallSite, TorchTensor, bare_tensor
from .source import SourceText

_INDEX = ScalarType(INDEX)
_MARK = re.compile(r"#\s*ptoc:\s*specialise\b(.*)$")
_ARGUMENT = re.compile(r"(\w+)\s*=\s*\[([^\]]*)\]\s*:\s*(\w+)")


def comment_sites(
    source: SourceText, kernel: ast.FunctionDef, bag: DiagnosticBag
) -> list[CallSite]:
    first = min([kernel.lineno, *(d.lineno for d in kernel.decorator_list)])
    sites: list[CallSite] = []
    line = first - 1
    while line >= 1 and source.line(line).lstrip().startswith("#"):
        text = source.line(line)
        found = _MARK.search(text)
        if found is not None:
            start = found.start()
            span = Span(source.path, line, start, line, len(text.rstrip()))
            site = read_comment(found.group(1), kernel, span, bag)
            site.label = f"# ptoc: specialise (line {line})"
            sites.insert(0, site)
        line -= 1
    return sites


def config_sites(
    source: SourceText, kernel: ast.FunctionDef, specs: tuple[str, ...], bag: DiagnosticBag
) -> list[CallSite]:
    """The kernel's ``[tool.ptoc.jit]`` specialisations: what they get wrong is reported at
    the kernel's name (the table is in another file)."""
    span = source.span(kernel)
    column = source.line(kernel.lineno).find(kernel.name, kernel.col_offset)
    if column >= 0:
        span = Span(source.path, kernel.lineno, column, kernel.lineno, column + len(kernel.name))
    sites: list[CallSite] = []
    for number, text in enumerate(specs, 1):
        site = read_comment(text, kernel, span, bag, "[tool.ptoc.jit] entry")
        site.label = f"[tool.ptoc.jit] {kernel.name} #{number}"
        sites.append(site)
    return sites


def read_comment(
    text: str,
    kernel: ast.FunctionDef,
    span: Span,
    bag: DiagnosticBag,
    what: str = "specialise comment",
) -> CallSite:
    site = CallSite(kernel.name, span)
    given = {name: (dims, dtype) for name, dims, dtype in _ARGUMENT.findall(text)}
    missing: list[str] = []
    for param in kernel.args.args:
        if bare_tensor(param.annotation) is None:
            continue
        dims, dtype = given.get(param.arg, ("", ""))
        shape = tuple(int(d) for d in re.findall(r"\d+", dims))
        if not shape or dtype.upper() not in DTYPE_BY_NAME:
            missing.append(param.arg)
            continue
        tensor = TorchTensor(shape, DTYPE_BY_NAME[dtype.upper()])
        site.tensors[param.arg] = tensor
        dims_exprs = tuple(ConstInt(_INDEX, value=d, span=span) for d in shape)
        site.shapes[param.arg] = TensorType(dims_exprs, tensor.dtype)
    if missing:
        site.readable = False
        names = ", ".join(f"'{name}'" for name in missing)
        bag.error(
            "I002",
            f"this {what} gives {names} of '{kernel.name}' no shape and dtype "
            f"(write {missing[0]}=[128, 128]:FP32): the kernel is checked for every shape",
            span,
        )
    return site
