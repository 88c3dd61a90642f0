"""Workload definitions (Karta objects): the model, loading and validation.

The loader's names are resolved lazily (PEP 562): every module that reads the model imports this package
first, and reading the model must not load the parser, pydantic and PyYAML (see ``definition.compiled``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.base.lazy import lazy_exports
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


__getattr__ = lazy_exports(__name__, dict.fromkeys(_LOADER, "workload_map.definition.loader"), globals())
