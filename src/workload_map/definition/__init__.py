"""Workload definitions (Karta objects): the model, loading and validation."""

from workload_map.definition.loader import LoadedDefinition, definition_from_dict, load_documents, load_paths
from workload_map.definition.model import (
    API_VERSION,
    KIND,
    ComponentDefinition,
    GroupVersionKind,
    Karta,
    ResourceStatus,
    slug,
)

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
