"""Names a package exports without importing their modules until first used (PEP 562).

Start-up is measured per command (bench/README.md): ``wmap --help`` and ``get`` import a package for one
name and must not pay for the modules behind its other exports. Each such package keeps one table of its
lazy names and the module each comes from, and takes its ``__getattr__`` from here.
"""

from __future__ import annotations

from importlib import import_module

# typing.TYPE_CHECKING without importing typing or collections.abc: the package's own __init__ takes its
# __getattr__ from here on `wmap --help`'s path (served from the help cache in about the interpreter's start).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def lazy_exports(package: str, home: Mapping[str, str], namespace: dict[str, object]) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: each name of ``home`` is imported from the module it
    maps to on first access and kept in ``namespace`` (the package's globals), so later reads are plain
    lookups; any other name raises ``AttributeError`` as a missing module attribute does."""

    def lazy_attribute(name: str) -> object:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    return lazy_attribute
