"""workload-map: read any AI workload on Kubernetes through one declarative definition.

The public API is re-exported here; everything under a module not listed is internal.

Exports are resolved lazily (PEP 562): importing a submodule such as ``workload_map.cli.main`` runs
this file first, and ``wmap --help`` must not pay for pydantic, PyYAML and importlib.metadata.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workload_map._version import __version__
    from workload_map.definition import (
        GroupVersionKind,
        Karta,
        LoadedDefinition,
        ResourceStatus,
        definition_from_dict,
        load_paths,
    )
    from workload_map.errors import Finding, Location, WorkloadMapError

_EXPORTS: dict[str, str] = {
    "Finding": "workload_map.errors",
    "GroupVersionKind": "workload_map.definition",
    "Karta": "workload_map.definition",
    "LoadedDefinition": "workload_map.definition",
    "Location": "workload_map.errors",
    "ResourceStatus": "workload_map.definition",
    "WorkloadMapError": "workload_map.errors",
    "__version__": "workload_map._version",
    "definition_from_dict": "workload_map.definition",
    "load_paths": "workload_map.definition",
}

__all__ = [
    "Finding",
    "GroupVersionKind",
    "Karta",
    "LoadedDefinition",
    "Location",
    "ResourceStatus",
    "WorkloadMapError",
    "__version__",
    "definition_from_dict",
    "load_paths",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workload_map' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
