"""Workload definitions (Karta objects): the model, loading and validation.

The loader's names are resolved lazily (PEP 562): every module that reads the model imports this package
first, and reading the model must not load the parser, pydantic and PyYAML (see ``definition.compiled``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from workload_map.definition.model import (
    API_VERSION,
    KIND,
    ComponentDefinition,
    GroupVersionKind,
    Karta,
    LoadedDefinition,
    ResourceStatus,
    slug,
)

if TYPE_CHECKING:
    from workload_map.definition.loader import (
        definition_from_dict as definition_from_dict,
        load_documents as load_documents,
        load_paths as load_paths,
    )

_LOADER = ("definition_from_dict", "load_documents", "load_paths")

__all__ = [
    "API_VERSION",
    "KIND",
    "ComponentDefinition",
    "GroupVersionKind",
    "Karta",
    "LoadedDefinition",
    "ResourceStatus",
    "definition_from_dict",
    "load_documents",
    "load_paths",
    "slug",
]


def __getattr__(name: str) -> object:
    if name not in _LOADER:
        raise AttributeError(f"module 'workload_map.definition' has no attribute {name!r}")
    value = getattr(import_module("workload_map.definition.loader"), name)
    globals()[name] = value
    return value
