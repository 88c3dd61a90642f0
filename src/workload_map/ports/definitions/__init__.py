"""Port: definitions as the operator checks and serves them (validation, the registry in effect, the
built-in catalog, the Karta CRD's identity and index labels, the jq limits). Loading and the Karta model
are public (``workload_map.definition_from_dict``, ``LoadedDefinition``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.catalog import builtin_definitions as builtin_definitions
    from workload_map.crd import GROUP as GROUP, PLURAL as PLURAL, VERSION as VERSION
    from workload_map.crd.labels import (
        FIELD_MANAGER as FIELD_MANAGER,
        INDEX_LABELS as INDEX_LABELS,
        index_labels as index_labels,
        root_gvk_of as root_gvk_of,
    )
    from workload_map.definition.registry import DefinitionRegistry as DefinitionRegistry
    from workload_map.definition.validate import validate as validate
    from workload_map.errors import Severity as Severity
    from workload_map.jq import LIMITS as LIMITS

_EXPORTS: dict[str, tuple[str, ...]] = {
    "workload_map.catalog": ("builtin_definitions",),
    "workload_map.crd": ("GROUP", "PLURAL", "VERSION"),
    # the labels a Karta carries so that its root kind can be found by a label selector
    "workload_map.crd.labels": ("FIELD_MANAGER", "INDEX_LABELS", "index_labels", "root_gvk_of"),
    "workload_map.definition.registry": ("DefinitionRegistry",),
    "workload_map.definition.validate": ("validate",),
    "workload_map.errors": ("Severity",),
    # the budgets of one jq evaluation (the operator sets them from its flags)
    "workload_map.jq": ("LIMITS",),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
