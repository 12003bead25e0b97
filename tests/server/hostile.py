"""The hostile files of issue #14: huge, long-lined and deeply nested PyPTO sources."""

from __future__ import annotations

HEAD = "import pypto.language as pl\n\n\n"

SMALL_FUNCTION = """@pl.function
def f{i}(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    b = pl.add(a, a)
    return b


"""


def functions(count: int) -> str:
    """A module of ``count`` small functions."""
    return HEAD + "".join(SMALL_FUNCTION.format(i=i) for i in range(count))


def program(count: int) -> str:
    """One program of ``count`` functions."""
    body = "".join(
        f"    @pl.function\n    def f{i}(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], "
        f"pl.FP32]:\n"
        "        b = pl.add(a, a)\n        return b\n\n"
        for i in range(count)
    )
    return HEAD + "@pl.program\nclass Many:\n" + body


def megabytes(size: float) -> str:
    """About ``size`` MB of functions."""
    one = len(SMALL_FUNCTION.format(i=10000))
    return functions(int(size * 1_000_000 / one) + 1)


def long_list_line(size: int = 990_000) -> str:
    """A kernel after a module constant that is one line of ``size`` characters."""
    items = ", ".join(str(i % 10) for i in range(size // 3))
    return HEAD + f"TABLE = [{items}]\n\n\n" + SMALL_FUNCTION.format(i=0)


def nested_loops(depth: int) -> str:
    lines = ["@pl.function", "def deep(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:"]
    indent = "    "
    for level in range(depth):
        lines.append(f"{indent}for i{level} in pl.range(2):")
        indent += "    "
    lines.append(f"{indent}b = pl.add(a, a)")
    lines.append("    return a")
    return HEAD + "\n".join(lines) + "\n"


def deep_expression(depth: int, kind: str) -> str:
    """A kernel whose one statement nests ``depth`` deep: parentheses, calls or unary minus."""
    if kind == "parentheses":
        expression = "(" * depth + "1" + ")" * depth
    elif kind == "calls":
        expression = "f(" * depth + "1" + ")" * depth
    else:
        expression = "-" * depth + "1"
    return HEAD + f"x = {expression}\n\n\n" + SMALL_FUNCTION.format(i=0)


def trailing_comments(count: int) -> str:
    return functions(2) + "".join(f"# comment line {i}\n" for i in range(count))


HOSTILE = {
    "5MB": lambda: megabytes(5),
    "10000 functions": lambda: program(10_000),
    "1MB one-line list": long_list_line,
    "90 nested loops": lambda: nested_loops(90),
    "500 nested loops": lambda: nested_loops(500),
    "2000-deep parentheses": lambda: deep_expression(2000, "parentheses"),
    "2000-deep calls": lambda: deep_expression(2000, "calls"),
    "2000-deep unary": lambda: deep_expression(2000, "unary"),
    "2000 trailing comments": lambda: trailing_comments(2000),
}
