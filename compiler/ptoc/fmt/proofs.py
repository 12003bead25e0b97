"""The proofs a formatted text must pass before it may replace the original.

Each proof returns ``None`` when it holds, or one sentence saying what differs. They compare:
(a) the ptoc IR of the original and of the result; (b) the Python AST of the canonicalised text
and of black's output, and that formatting again changes nothing; (c) the comments and
docstrings of the original and of the result.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter
from collections.abc import Callable, Sequence

from ..diagnostics import Severity
from ..frontend.analysis import ModuleAnalysis
from ..ir import structural_equal
from ..ir.function import Function, Program
from ..ir.span import Span
from .canonical import LEGACY_CODE

INTERNAL_CODES = frozenset({"E900", "E901"})

# --- (a) the IR -----------------------------------------------------------------------------------


def prove_same_ir(before: ModuleAnalysis, after: ModuleAnalysis) -> str | None:
    """Same programs, structurally equal (names included). When the original has errors, only
    its error-free functions are compared, and the result must have the same diagnostics."""
    internal = sorted(INTERNAL_CODES & {d.code for d in before.diagnostics})
    if internal:
        return (
            f"the front end could not analyse the original ({internal[0]}), so its IR cannot "
            f"be compared"
        )
    codes_before = diagnostic_codes(before)
    codes_after = diagnostic_codes(after)
    if codes_before != codes_after:
        return (
            f"the diagnostics changed (before: {describe_codes(codes_before)}; "
            f"after: {describe_codes(codes_after)})"
        )
    programs_before, programs_after = before.all_programs(), after.all_programs()
    names_before = [p.name for p in programs_before]
    names_after = [p.name for p in programs_after]
    if names_before != names_after:
        return f"the programs changed (before: {names_before}; after: {names_after})"
    errors = [d.span for d in before.diagnostics if d.severity is Severity.ERROR]
    for old, new in zip(programs_before, programs_after, strict=True):
        problem = compare_program(old, new, errors)
        if problem:
            return problem
    return None


def compare_program(old: Program, new: Program, errors: Sequence[Span]) -> str | None:
    if not errors:
        if structural_equal(old, new):
            return None
        changed = first_changed_function(old, new)
        where = f"function '{changed}'" if changed else f"program '{old.name}'"
        return f"the IR of {where} changed"
    old_names = [f.name for f in old.functions]
    new_names = [f.name for f in new.functions]
    if old_names != new_names:
        return (
            f"the functions of program '{old.name}' changed (before: {old_names}; after: "
            f"{new_names})"
        )
    for a, b in zip(old.functions, new.functions, strict=True):
        if has_error(a, errors):
            continue  # its IR holds error placeholders; the diagnostics were compared instead
        if not structural_equal(a, b):
            return f"the IR of function '{a.name}' changed"
    return None


def first_changed_function(old: Program, new: Program) -> str | None:
    for a, b in zip(old.functions, new.functions, strict=False):
        if a.name != b.name or not structural_equal(a, b):
            return a.name
    return None


def has_error(function: Function, errors: Sequence[Span]) -> bool:
    return any(function.span.covers(span) for span in errors)


def diagnostic_codes(analysis: ModuleAnalysis) -> Counter[str]:
    return Counter(d.code for d in analysis.diagnostics if d.code != LEGACY_CODE)


def describe_codes(codes: Counter[str]) -> str:
    if not codes:
        return "none"
    return ", ".join(
        f"{code} x{count}" if count > 1 else code for code, count in sorted(codes.items())
    )


# --- (b) the Python AST and stability -------------------------------------------------------------


def prove_same_python(source: str, formatted: str) -> str | None:
    """The two texts parse to the same AST, up to what black may legitimately change:
    whitespace at the edges of the lines of a standalone string (docstrings), ``del (a, b)``
    against ``del a, b``, and string prefixes such as ``u``."""
    try:
        old = Normaliser().visit(ast.parse(source))
    except (SyntaxError, ValueError) as exc:
        return f"the input does not parse ({exc})"
    try:
        new = Normaliser().visit(ast.parse(formatted))
    except (SyntaxError, ValueError) as exc:
        return f"black's output does not parse ({exc})"
    line = first_different_statement(old.body, new.body)
    if line is not None:
        return (
            f"black changed the meaning of the code (the statement at line {line} of its "
            f"output differs)"
        )
    return None


NESTED_BODIES = ("body", "orelse", "finalbody")


def first_different_statement(old: list[ast.stmt], new: list[ast.stmt]) -> int | None:
    """The line (in ``new``) of the innermost statement that differs, or None if none does."""
    for a, b in zip(old, new, strict=False):
        if dump(a) == dump(b):
            continue
        if type(a) is type(b):
            for field in NESTED_BODIES:
                inner_a, inner_b = getattr(a, field, None), getattr(b, field, None)
                if isinstance(inner_a, list) and isinstance(inner_b, list):
                    inner = first_different_statement(inner_a, inner_b)
                    if inner is not None:
                        return inner
        return b.lineno
    if len(old) > len(new):
        return new[-1].end_lineno if new else 1
    if len(new) > len(old):
        return new[len(old)].lineno
    return None


def dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=False)


class Normaliser(ast.NodeTransformer):
    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            node.value.value = normalise_docstring(node.value.value)
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        node.kind = None  # u"x" and "x" are the same string
        return node

    def visit_Delete(self, node: ast.Delete) -> ast.AST:
        flat: list[ast.expr] = []
        for target in node.targets:
            flat.extend(unwrap_tuples(target))
        node.targets = flat
        return self.generic_visit(node)


def unwrap_tuples(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Tuple):
        return [leaf for element in node.elts for leaf in unwrap_tuples(element)]
    return [node]


def normalise_docstring(text: str) -> str:
    """What black may change in a standalone string: indentation and trailing spaces."""
    return "\n".join(line.strip() for line in text.splitlines()).strip()


def prove_stable(formatted: str, reformat: Callable[[str], str]) -> str | None:
    try:
        again = reformat(formatted)
    except Exception as exc:  # black rejecting its own output is a failed proof, not a crash
        return f"formatting is not stable (black cannot format its own output: {first_line(exc)})"
    if again != formatted:
        return "formatting is not stable (formatting the result again changes it)"
    return None


# --- (c) comments and docstrings ------------------------------------------------------------------


def prove_same_comments(original: str, formatted: str) -> str | None:
    """The same comments in the same order (black may change the spaces around their text)
    and the same docstrings (up to indentation)."""
    try:
        old_comments, new_comments = comments(original), comments(formatted)
    except (tokenize.TokenError, SyntaxError) as exc:
        return f"the comments cannot be compared ({first_line(exc)})"
    if old_comments != new_comments:
        return f"the comments changed ({first_difference(old_comments, new_comments)})"
    try:
        old_docs, new_docs = docstrings(original), docstrings(formatted)
    except (SyntaxError, ValueError) as exc:
        return f"the docstrings cannot be compared ({first_line(exc)})"
    if old_docs != new_docs:
        return f"the docstrings changed ({first_difference(old_docs, new_docs)})"
    return None


def comments(text: str) -> list[str]:
    """The text of every comment, split at each ``#``: black may join the comments of lines
    it joins into one (``a,  # x`` and ``b)  # y`` become ``a, b)  # x  # y``)."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    pieces: list[str] = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            pieces.extend(comment_pieces(token.string))
    return pieces


def comment_pieces(comment: str) -> list[str]:
    """A comment's texts without ``#`` and the whitespace around them (black writes ``# x``
    for ``#x``, a no-break space after ``#`` as a plain one, ``#type:x`` as ``# type: x``)."""
    pieces = []
    for piece in comment.replace("\u00a0", " ").split("#"):
        piece = piece.strip()
        if piece.startswith("type:"):
            piece = "type: " + piece.removeprefix("type:").strip()
        if piece:
            pieces.append(piece)
    return pieces


def docstrings(text: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append(normalise_docstring(doc))
    return found


def first_difference(old: Sequence[str], new: Sequence[str]) -> str:
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return f"number {index + 1} was {shorten(a)!r}, is {shorten(b)!r}"
    return f"{len(old)} before, {len(new)} after"


def shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
