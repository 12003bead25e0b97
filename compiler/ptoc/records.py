"""Record classes: the subset of ``@dataclass`` this project uses, cheap to declare.

The standard decorator compiles four or five functions per class with ``exec``, recreates every
slots class and builds a docstring with ``inspect``: about 0.6 ms a class, most of the CLI's
start-up. ``record`` shares ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__``
and pickling between all classes and makes only ``__init__``, on a class's first
instantiation (a command builds a fraction of the classes it imports), from code compiled once
per shape of class.

Semantics follow ``dataclasses`` for what is supported: fields in definition order (a
redefined field keeps its place), defaults and ``default_factory``, ``kw_only`` fields,
``repr=False``, ``eq`` (tuple comparison between instances of the same class, ``__hash__`` set
to None on mutable classes and computed from the fields on frozen ones unless the class defines
its own), ``frozen`` (``FrozenInstanceError``), ``slots``, ``__match_args__``, ``__post_init__``
and pickling. ``fields`` and ``replace`` stand in for the ``dataclasses`` functions.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from operator import attrgetter
from types import CodeType, FunctionType, MemberDescriptorType
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

from .codecache import compiled

_T = TypeVar("_T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
#: The default of a parameter whose field has a ``default_factory``: call it.
_FACTORY: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to or deleting a field of a frozen record."""


class Field:
    """One field of a record class."""

    __slots__ = ("name", "type", "default", "default_factory", "kw_only", "repr")

    def __init__(self, default: Any, default_factory: Any, kw_only: bool, repr: bool) -> None:
        self.name = ""
        self.type: Any = None  # the annotation (a string under postponed annotations)
        self.default = default
        self.default_factory = default_factory
        self.kw_only = kw_only
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only})"


@overload
def field(*, default: _T, kw_only: bool = False, repr: bool = True) -> _T: ...
@overload
def field(*, default_factory: Callable[[], _T], kw_only: bool = False, repr: bool = True) -> _T: ...
@overload
def field(*, kw_only: bool = False, repr: bool = True) -> Any: ...
def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    kw_only: bool = False,
    repr: bool = True,
) -> Any:
    """A field with options, as ``dataclasses.field`` (the options this project uses)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, kw_only, repr)


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(
    *, frozen: bool = False, slots: bool = False, eq: bool = True
) -> Callable[[type[_T]], type[_T]]: ...
@dataclass_transform(field_specifiers=(field,))
def record(
    cls: type[Any] | None = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True
) -> Any:
    """Make ``cls`` a record class (as ``@dataclass`` with the same options would)."""

    def wrap(cls: type[Any]) -> type[Any]:
        return _process(cls, frozen, slots, eq)

    return wrap if cls is None else wrap(cls)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """The fields of a record class (or of an instance's class), in order."""
    cls: Any = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    try:
        found: dict[str, Field] = cls.__record_fields__
    except AttributeError:
        raise TypeError(f"{cls.__name__} is not a record class") from None
    return tuple(found.values())


def replace(obj: _T, /, **changes: Any) -> _T:
    """A new instance of ``obj``'s class with some fields changed (``__init__`` runs)."""
    for item in fields(obj):
        if item.name not in changes:
            changes[item.name] = getattr(obj, item.name)
    return type(obj)(**changes)  # type: ignore[no-any-return]


# --- class processing -------------------------------------------------------------------------


def _process(cls: Any, frozen: bool, slots: bool, eq: bool) -> Any:
    own = cls.__dict__
    all_fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        inherited = base.__dict__.get("__record_fields__")
        if inherited is not None:
            if base.__dict__["__record_frozen__"] != frozen:
                kind = "frozen" if frozen else "non-frozen"
                raise TypeError(f"cannot inherit {kind} record {cls.__name__} from {base.__name__}")
            all_fields.update(inherited)
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        value = own.get(name, MISSING)
        item = value if isinstance(value, Field) else Field(value, MISSING, False, True)
        item.name, item.type = name, annotation
        if isinstance(item.default, (list, dict, set)):
            raise ValueError(
                f"mutable default {type(item.default)} for field {name} is not allowed"
            )
        all_fields[name] = item
        if not slots:  # the class attribute holds the default, as with dataclasses
            if item.default is not MISSING:
                setattr(cls, name, item.default)
            elif value is not MISSING:
                delattr(cls, name)
    _check_order(cls, all_fields)
    if slots:
        cls = _with_slots(cls, all_fields)
    cls.__record_fields__ = all_fields
    cls.__record_frozen__ = frozen
    cls.__record_repr__ = tuple(f.name for f in all_fields.values() if f.repr)
    cls.__record_key__ = staticmethod(_key(tuple(all_fields)))
    cls.__init__ = _lazy_init(cls)
    if "__repr__" not in own:
        cls.__repr__ = _repr
    if "__match_args__" not in own:
        match_args = tuple(f.name for f in all_fields.values() if not f.kw_only)
        setattr(cls, "__match_args__", match_args)  # noqa: B010 (mypy forbids the assignment)
    if eq:
        if "__eq__" not in own:
            cls.__eq__ = _eq
        explicit_hash = own.get("__hash__", MISSING)
        if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own):
            cls.__hash__ = _hash if frozen else None
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
        if slots:
            cls.__getstate__ = _getstate
            cls.__setstate__ = _setstate
    return cls


def _check_order(cls: type[Any], all_fields: dict[str, Field]) -> None:
    """A positional field without a default cannot follow one with a default."""
    seen_default = False
    for item in all_fields.values():
        if item.kw_only:
            continue
        has_default = item.default is not MISSING or item.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(
                f"{cls.__name__}: non-default argument {item.name!r} follows default argument"
            )
        seen_default = seen_default or has_default


def _is_class_var(annotation: object) -> bool:
    if isinstance(annotation, str):  # postponed annotations (from __future__ import annotations)
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return getattr(annotation, "__origin__", annotation) is ClassVar


def _with_slots(cls: Any, all_fields: dict[str, Field]) -> Any:
    """``cls`` created again with a slot for each of its own fields (slots cannot be added to a
    class that exists)."""
    namespace = dict(cls.__dict__)
    inherited = {name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())}
    namespace["__slots__"] = tuple(name for name in all_fields if name not in inherited)
    for name in all_fields:
        namespace.pop(name, None)  # defaults live in __init__
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    qualname = getattr(cls, "__qualname__", None)
    new = type(cls)(cls.__name__, cls.__bases__, namespace)
    if qualname is not None:
        new.__qualname__ = qualname
    return new


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving an instance's field values as a tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _lazy_init(cls: type[Any]) -> Callable[..., None]:
    """An ``__init__`` that compiles the real one on the first call and replaces itself."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compile_init(cls)
        if cls.__dict__.get("__init__") is __init__:
            cls.__init__ = real
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_init(cls: type[Any]) -> Callable[..., None]:
    """The class's ``__init__``: its parameters are the fields (positional ones first); each
    value, or its factory's result, is assigned in that order, then ``__post_init__`` runs."""
    all_fields: dict[str, Field] = cls.__record_fields__
    frozen: bool = cls.__record_frozen__
    ordered = [f for f in all_fields.values() if not f.kw_only]
    positional = len(ordered)
    ordered += [f for f in all_fields.values() if f.kw_only]
    factories = tuple(f.default_factory is not MISSING for f in ordered)
    slots = _slot_setters(cls, ordered) if frozen else None
    shape = (frozen, slots is not None, hasattr(cls, "__post_init__"), factories)
    template = _TEMPLATES.get(shape)
    if template is None:
        template = _TEMPLATES[shape] = _template(*shape)
    # The template names field i `_fi` and takes every field positionally: rename its
    # parameters and the names it assigns (a constant when frozen, an attribute name otherwise),
    # and make the trailing ones keyword-only (the same bytecode).
    rename = {f"_f{i}": item.name for i, item in enumerate(ordered)}
    code = template.replace(
        co_argcount=1 + positional,
        co_kwonlyargcount=len(ordered) - positional,
        co_varnames=tuple(rename.get(name, name) for name in template.co_varnames),
        co_consts=tuple(rename.get(c, c) if isinstance(c, str) else c for c in template.co_consts),
        co_names=tuple(rename.get(name, name) for name in template.co_names),
        co_qualname=f"{cls.__qualname__}.__init__",
    )
    scope: dict[str, Any] = {"_FACTORY": _FACTORY, "_setattr": object.__setattr__}
    for i, setter in enumerate(slots or ()):
        scope[f"_set_{i}"] = setter
    defaults: list[Any] = []
    kwdefaults: dict[str, Any] = {}
    for i, item in enumerate(ordered):
        if item.default_factory is not MISSING:
            scope[f"_factory_{i}"] = item.default_factory
            default = _FACTORY
        elif item.default is not MISSING:
            default = item.default
        else:
            continue
        if i < positional:
            defaults.append(default)
        else:
            kwdefaults[item.name] = default
    init = FunctionType(code, scope, "__init__", tuple(defaults))
    init.__kwdefaults__ = kwdefaults or None
    return init


def slot_setter(cls: type[Any], name: str) -> Callable[[Any, Any], None] | None:
    """The ``__set__`` of field ``name``'s slot, if it has one: storing through it costs half
    of ``object.__setattr__`` (which looks the slot up by name every time)."""
    slot = getattr(cls, name, None)
    return slot.__set__ if isinstance(slot, MemberDescriptorType) else None


def _slot_setters(cls: type[Any], ordered: list[Field]) -> list[Callable[[Any, Any], None]] | None:
    """Each field's ``slot_setter``, when every field has one."""
    setters = []
    for item in ordered:
        setter = slot_setter(cls, item.name)
        if setter is None:
            return None
        setters.append(setter)
    return setters


#: Compiled ``__init__`` code by shape (frozen, stored through slots, has __post_init__, which
#: fields have a factory): classes of one shape share it, renamed (compiling is most of a
#: class's cost).
_TEMPLATES: dict[tuple[bool, bool, bool, tuple[bool, ...]], CodeType] = {}


def _template(frozen: bool, slots: bool, post_init: bool, factories: tuple[bool, ...]) -> CodeType:
    params = [f"_f{i}" for i in range(len(factories))]
    signature = ["self", *params]
    body = []
    for i, name in enumerate(params):
        value = f"_factory_{i}() if {name} is _FACTORY else {name}" if factories[i] else name
        if slots:
            body.append(f"_set_{i}(self, {value})")
        elif frozen:
            body.append(f"_setattr(self, {name!r}, {value})")
        else:
            body.append(f"self.{name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(signature)}):\n    " + "\n    ".join(body or ["pass"])
    scope: dict[str, Any] = {}
    exec(compiled(source), scope)
    code: CodeType = scope["__init__"].__code__
    return code


# --- behaviour shared by every record class ---------------------------------------------------

_repr_running: set[tuple[int, int]] = set()


def _repr(self: Any) -> str:
    key = (id(self), _thread.get_ident())
    if key in _repr_running:
        return "..."
    _repr_running.add(key)
    try:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    finally:
        _repr_running.discard(key)
    return f"{type(self).__qualname__}({values})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__record_key__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    cls = type(self)
    if name in cls.__record_fields__ or cls.__dict__.get("__setattr__") is _frozen_setattr:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    cls = type(self)
    if name in cls.__record_fields__ or cls.__dict__.get("__delattr__") is _frozen_delattr:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, name) for name in type(self).__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(type(self).__record_fields__, state, strict=True):
        object.__setattr__(self, name, value)
