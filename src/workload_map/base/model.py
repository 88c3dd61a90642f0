"""Plain records without ``@dataclass``'s cost at import: :class:`Model`.

The standard dataclass writes and compiles five or six methods per class with ``exec``: ~1 ms a class on the
2-core CI machine. Every command loads the Karta model (28 classes) and most load the resolution and tree
records too (~20 more): a warm ``wmap get`` on the built-in example spent a fifth of its imports creating
dataclasses (bench/README.md). A :class:`Model` subclass costs a field table made once per class; its methods
are shared and ``__init__`` is generated when a class makes its first object.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform

T = TypeVar("T")


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


_REQUIRED: Any = object()


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made for each object (a list, a dict, a model)."""
    made: Any = _Factory(default_factory)
    return made  # type: ignore[no-any-return]


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise AttributeError(f"{type(self).__name__} is frozen: cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise AttributeError(f"{type(self).__name__} is frozen: cannot delete field {name!r}")


def _first_init(self: Model, *args: Any, **kwargs: Any) -> None:
    # A generic __init__ costs 3-6x the generated one per object, and resolution makes several per pod;
    # generating one per class at its first object costs ~0.1 ms, paid only by the classes a command uses.
    init = _compile_init(type(self))
    type(self).__init__ = init  # type: ignore[method-assign]
    init(self, *args, **kwargs)


def _compile_init(cls: type[Model]) -> Callable[..., None]:
    names: dict[str, Any] = {"_UNSET": _REQUIRED}
    params: list[str] = []
    # a frozen record writes its __dict__ (its __setattr__ refuses); a mutable one its attributes (faster)
    body = ["    own = self.__dict__"] if cls._FROZEN else []
    target = "own[{!r}]" if cls._FROZEN else "self.{}"
    for name, default in cls._DEFAULTS.items():
        if default is _REQUIRED:
            params.append(name)
            body.append(f"    {target.format(name)} = {name}")
        elif isinstance(default, _Factory):
            names[f"_make_{name}"] = default.make
            params.append(f"{name}=_UNSET")
            body.append(f"    {target.format(name)} = _make_{name}() if {name} is _UNSET else {name}")
        else:
            names[f"_default_{name}"] = default
            params.append(f"{name}=_default_{name}")
            body.append(f"    {target.format(name)} = {name}")
    if params and cls._KW_ONLY:
        params.insert(0, "*")
    source = "def __init__(" + ", ".join(["self", *params]) + "):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(source, names)  # noqa: S102 - made from field names only
    init: Callable[..., None] = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Model:
    """A keyword-only record, frozen (and hashable) unless declared ``class X(Model, frozen=False)``.

    ``class X(Model, kw_only=False)`` also takes the fields by position, in declaration order. ``__init__``
    is generated at a class's first object.

    What ``@dataclass(frozen=True, kw_only=True)`` (or ``@dataclass(kw_only=True)``) gives: ``__init__`` by
    keyword with defaults and ``field(default_factory=...)``, ``__eq__`` between objects of the same class,
    ``__repr__``; frozen ones hash by their values, mutable ones are unhashable. Objects pickle by their
    ``__dict__`` (no ``__init__`` on the way back), which is how the compiled definition cache stores them.
    """

    FIELDS: ClassVar[tuple[str, ...]] = ()
    # name -> default, a _Factory, or _REQUIRED, in declaration order (workload_map.definition.schema reads it)
    _DEFAULTS: ClassVar[dict[str, Any]] = {}
    _KW_ONLY: ClassVar[bool] = True
    _FROZEN: ClassVar[bool] = True

    def __init_subclass__(cls, *, frozen: bool = True, kw_only: bool = True) -> None:
        cls._KW_ONLY = kw_only
        cls._FROZEN = frozen
        own = tuple(inspect.get_annotations(cls))
        cls.FIELDS = cls.FIELDS + own
        defaults = dict(cls._DEFAULTS)
        for name in own:
            default = cls.__dict__.get(name, _REQUIRED)
            defaults[name] = default
            if default is not _REQUIRED:
                delattr(cls, name)  # the object's own value, never a shared class attribute
        cls._DEFAULTS = defaults
        cls.__init__ = _first_init  # type: ignore[method-assign,assignment]
        if frozen:
            cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
            cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # as a mutable dataclass with eq: unhashable

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[name] for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Model)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self.__dict__[name]!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({shown})"

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes``."""
        return type(self)(**{**self.__dict__, **changes})
