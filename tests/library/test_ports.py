"""The named ports (src/workload_map/ports/): each one's ``_EXPORTS`` is the one list of what it re-exports,
held equal to the imports type checkers read; every name resolves; a port imports nothing at load (a
command pays only for the names it uses)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import workload_map

PORTS_DIR = Path(workload_map.__file__).parent / "ports"
PORTS = sorted(f"workload_map.ports.{p.name}" for p in PORTS_DIR.iterdir() if (p / "__init__.py").exists())


def _typing_imports(module: str) -> dict[str, str]:
    path = Path(importlib.import_module(module).__file__ or "")
    tree = ast.parse(path.read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    out: dict[str, str] = {}
    for node in block.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.asname == alias.name:  # `X as X`: re-exported; a plain import is for annotations
                    out[alias.name] = node.module
    return out


def test_there_are_ports() -> None:
    assert "workload_map.ports.live" in PORTS and len(PORTS) >= 5


@pytest.mark.parametrize("port", PORTS)
def test_the_typing_imports_are_the_export_table(port: str) -> None:
    table = importlib.import_module(port)._EXPORTS
    assert _typing_imports(port) == {name: module for module, names in table.items() for name in names}


@pytest.mark.parametrize("port", PORTS)
def test_every_name_resolves_to_its_origin(port: str) -> None:
    loaded = importlib.import_module(port)
    for module, names in loaded._EXPORTS.items():
        origin = importlib.import_module(module)
        for name in names:
            assert getattr(loaded, name) is getattr(origin, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = loaded.no_such_name


def test_a_port_imports_nothing_until_a_name_is_used() -> None:
    probe = (
        "import sys\n"
        f"for port in {PORTS!r}:\n"
        "    __import__(port)\n"
        "mine = [m for m in sys.modules if m.startswith('workload_map.') and not m.startswith('workload_map.ports')]\n"
        "print(sorted(mine))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    # the ports' own classes (LiveReader, WorkloadGangs) import their types under TYPE_CHECKING only; the
    # package's own __init__ takes its lazy __getattr__ from base.lazy, as the ports do
    assert out.strip() == "['workload_map.base', 'workload_map.base.lazy']"
