"""The mutator rebuilds from the declared child fields: only the path to a change is copied,
a leaf or an untouched subtree comes back as the very same object."""

from __future__ import annotations

from ir_builder import INDEX, add, assign, call, for_, function, i, iter_arg, scalar, while_

from ptoc.ir import Call, Expr, IRMutator, Var
from ptoc.ir.visitor import with_fields


def test_nothing_to_change_gives_the_same_objects() -> None:
    n = scalar("n")
    fn = function("f", [n], assign("a", add(n, i(1))), for_(scalar("k"), n, assign("b", n)))
    assert IRMutator().mutate(fn) is fn


def test_a_substituted_variable_copies_only_the_path_to_it() -> None:
    n, m = scalar("n"), scalar("m")
    untouched = assign("a", i(1))
    changed = assign("b", add(n, i(2)))
    fn = function("f", [n], untouched, changed)
    mutator = IRMutator()
    mutator.var_map[n] = m
    new = mutator.mutate(fn)
    assert new is not fn
    assert new.params == (m,)
    first, second = new.body.stmts
    assert first is untouched
    assert second is not changed
    assert second.value.lhs is m
    assert second.value.rhs is changed.value.rhs  # the constant is shared


def test_a_carried_value_whose_initial_value_changes_is_renewed_at_every_use() -> None:
    n, m = scalar("n"), scalar("m")
    acc = iter_arg("acc", INDEX, n)
    loop = while_(acc, assign("x", add(acc, i(1))), carry=[acc], results=[scalar("r")])
    mutator = IRMutator()
    mutator.var_map[n] = m
    new = mutator.mutate_stmt(loop)
    (new_acc,) = new.iter_args  # type: ignore[attr-defined]
    assert new_acc is not acc and new_acc.init_value is m
    assert new.condition is new_acc  # type: ignore[attr-defined]
    assert new.body.stmts[0].value.lhs is new_acc  # type: ignore[attr-defined]


def test_an_override_sees_rebuilt_children() -> None:
    class Renamer(IRMutator):
        def mutate_Call(self, node: Call) -> Expr:
            new = self.generic_mutate(node)
            return with_fields(new, kwargs=(("seen", len(new.args)),))

    n = scalar("n")
    stmt = assign("a", call("op", n, add(n, i(1))))
    new = Renamer().mutate_stmt(stmt)
    assert new.value.kwargs == (("seen", 2),)  # type: ignore[attr-defined]
    assert isinstance(new.var, Var)  # type: ignore[attr-defined]
