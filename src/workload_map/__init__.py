"""workload-map: read any AI workload on Kubernetes through one declarative definition.

The public API is re-exported here; everything under a module not listed is internal.
"""

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
