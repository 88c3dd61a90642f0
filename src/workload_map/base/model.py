"""Plain records without ``@dataclass``'s cost at import: :class:`Model`.

The standard dataclass writes and compiles five or six methods per class with ``exec``: ~1 ms a class on the
2-core CI machine. Every command loads the Karta model (28 classes) and most load the resolution and tree
records too (~20 more): a warm ``wmap get`` on the built-in example spent a fifth of its imports creating
dataclasses (bench/README.md). A :class:`Model` subclass costs a field table made once per class; its methods
are shared.
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


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Model:
    """A keyword-only record, frozen (and hashable) unless declared ``class X(Model, frozen=False)``.

    ``class X(Model, kw_only=False)`` also takes the fields by position, in declaration order.

    What ``@dataclass(frozen=True, kw_only=True)`` (or ``@dataclass(kw_only=True)``) gives: ``__init__`` by
    keyword with defaults and ``field(default_factory=...)``, ``__eq__`` between objects of the same class,
    ``__repr__``; frozen ones hash by their values, mutable ones are unhashable. Objects pickle by their
    ``__dict__`` (no ``__init__`` on the way back), which is how the compiled definition cache stores them.
    """

    FIELDS: ClassVar[tuple[str, ...]] = ()
    # name -> default, a _Factory, or _REQUIRED, in declaration order (workload_map.definition.schema reads it)
    _DEFAULTS: ClassVar[dict[str, Any]] = {}
    # The same table split for __init__: plain defaults copied at once, factories, required names.
    _PLAIN: ClassVar[dict[str, Any]] = {}
    _FACTORIES: ClassVar[tuple[tuple[str, Callable[[], Any]], ...]] = ()
    _KW_ONLY: ClassVar[bool] = True

    def __init_subclass__(cls, *, frozen: bool = True, kw_only: bool = True) -> None:
        cls._KW_ONLY = kw_only
        own = tuple(inspect.get_annotations(cls))
        cls.FIELDS = cls.FIELDS + own
        defaults = dict(cls._DEFAULTS)
        for name in own:
            default = cls.__dict__.get(name, _REQUIRED)
            defaults[name] = default
            if default is not _REQUIRED:
                delattr(cls, name)  # the object's own value, never a shared class attribute
        cls._DEFAULTS = defaults
        cls._PLAIN = {n: d for n, d in defaults.items() if d is not _REQUIRED and not isinstance(d, _Factory)}
        cls._FACTORIES = tuple((n, d.make) for n, d in defaults.items() if isinstance(d, _Factory))
        if frozen:
            cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
            cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # as a mutable dataclass with eq: unhashable

    def __init__(self, *by_position: Any, **values: Any) -> None:
        if by_position:
            values = self._by_position(by_position, values)
        own = self.__dict__
        own.update(self._PLAIN)
        for name, make in self._FACTORIES:
            if name not in values:
                own[name] = make()
        own.update(values)
        if len(own) != len(self.FIELDS):
            self._refuse(values)

    def _by_position(self, by_position: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
        name = type(self).__name__
        if self._KW_ONLY or len(by_position) > len(self.FIELDS):
            raise TypeError(f"{name}() takes at most {0 if self._KW_ONLY else len(self.FIELDS)} positional arguments")
        named = dict(zip(self.FIELDS, by_position, strict=False))
        twice = named.keys() & values.keys()
        if twice:
            raise TypeError(f"{name}() got multiple values for arguments {sorted(twice)}")
        return {**named, **values}

    def _refuse(self, values: dict[str, Any]) -> None:
        unknown = values.keys() - self._DEFAULTS.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {sorted(unknown)}")
        missing = [name for name in self.FIELDS if name not in self.__dict__]
        raise TypeError(f"{type(self).__name__}() missing required keyword argument {missing[0]!r}")

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
