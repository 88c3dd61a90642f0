"""The public API has one list: ``_EXPORTS`` in src/workload_map/__init__.py. ``__all__`` and the lazy lookup
are derived from it; the imports under ``TYPE_CHECKING`` (what type checkers read) must name the same things."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import workload_map as wm

INIT = Path(wm.__file__)


def _typing_imports() -> dict[str, str]:
    tree = ast.parse(INIT.read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    out: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            # `X as X` is the explicit re-export that mypy --strict needs to see X as public.
            assert alias.asname == alias.name, f"{node.module}.{alias.name} is not re-exported as itself"
            out[alias.name] = node.module
    return out


def test_typing_imports_are_the_export_table() -> None:
    table = {name: module for module, names in wm._EXPORTS.items() for name in names}
    assert _typing_imports() == table


def test_all_is_the_table_and_every_name_is_defined_where_the_table_says() -> None:
    assert wm.__all__ == sorted(name for names in wm._EXPORTS.values() for name in names)
    for module, names in wm._EXPORTS.items():
        loaded = importlib.import_module(module)
        for name in names:
            assert getattr(wm, name) is getattr(loaded, name)


def test_dir_shows_the_public_names_and_nothing_imported_for_internal_use() -> None:
    listed = dir(wm)
    assert set(wm.__all__) <= set(listed)
    assert [
        name for name in listed if name not in wm.__all__ and not (name.startswith("__") and name.endswith("__"))
    ] == []
