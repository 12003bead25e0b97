"""The dispatch tables: which rule lowers each kind of statement and expression. Adding a
construct is one rule in its module and one line here."""

from __future__ import annotations

import ast

from . import (
    assignments,
    branches,
    calls,
    jumps,
    loops,
    names,
    operators,
    returns,
    scopes,
)
from .core import ExpressionRule, Rules, StatementRule

EXPRESSIONS: dict[type[ast.expr], ExpressionRule] = {
    ast.Name: names.lower_name,
    ast.Constant: names.lower_constant,
    ast.Call: calls.lower_call,
    ast.BinOp: operators.lower_binop,
    ast.Compare: operators.lower_compare,
    ast.BoolOp: operators.lower_boolop,
    ast.UnaryOp: operators.lower_unary,
    ast.List: names.lower_sequence,
    ast.Tuple: names.lower_sequence,
    ast.Subscript: names.lower_subscript,
    ast.Attribute: names.lower_attribute,
    ast.Starred: names.lower_starred,
    ast.IfExp: names.lower_conditional,
}

STATEMENTS: dict[type[ast.stmt], StatementRule] = {
    ast.Assign: assignments.lower_assign_stmt,
    ast.AnnAssign: assignments.lower_annotated_assign,
    ast.Expr: assignments.lower_expr_stmt,
    ast.Return: returns.lower_return,
    ast.If: branches.lower_if,
    ast.For: loops.lower_for,
    ast.While: loops.lower_while,
    ast.With: scopes.lower_with,
    ast.Pass: assignments.lower_pass,
    ast.Break: jumps.lower_jump,
    ast.Continue: jumps.lower_jump,
    ast.AugAssign: assignments.unsupported_augassign,
}

RULES = Rules(
    expressions=EXPRESSIONS,
    other_expression=names.unsupported_expression,
    statements=STATEMENTS,
    other_statement=assignments.unsupported_statement,
)
