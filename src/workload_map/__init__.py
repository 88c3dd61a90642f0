"""workload-map: read any AI workload on Kubernetes through one declarative definition.

The public API is re-exported here (docs/library.md); everything under a module not listed is internal::

    import workload_map as wm

    with wm.open_dump("cluster.yaml", namespace=None) as view:
        for workload in view.workloads(status="Running"):
            print(workload.namespace, workload.name, workload.status.primary.value, workload.gpus)

Exports are resolved lazily (PEP 562): importing a submodule such as ``workload_map.cli.main`` runs
this file first, and ``wmap --help`` must not pay for pydantic, PyYAML and importlib.metadata.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workload_map._version import __version__
    from workload_map.api.authoring import draft_definition, draft_from_cluster
    from workload_map.api.definitions import effective_definitions
    from workload_map.api.fleet import (
        ClusterFailure,
        ClusterWorkload,
        Fleet,
        FleetChange,
        FleetListing,
        kubeconfig_contexts,
        open_fleet,
    )
    from workload_map.api.open import open_cluster, open_dump, open_objects, watch_cluster
    from workload_map.api.placement import fit, fit_clusters
    from workload_map.api.selectors import SelectorError, parse_selector
    from workload_map.api.validation import ValidationReport, test_samples, validate_definitions
    from workload_map.api.view import Listing, PendingUpdate, View, emit_pod_groups, one_target, split_target
    from workload_map.authoring import Draft
    from workload_map.cluster.connection import RequestCounter
    from workload_map.definition import (
        GroupVersionKind,
        Karta,
        LoadedDefinition,
        ResourceStatus,
        definition_from_dict,
        load_paths,
    )
    from workload_map.errors import (
        AmbiguousTypeError,
        Finding,
        Location,
        NotFoundError,
        ResolveError,
        UnknownTypeError,
        WorkloadMapError,
    )
    from workload_map.gang.emit import Emission
    from workload_map.gang.model import GangPlan, PodGroupPlan
    from workload_map.live.model import LiveModel
    from workload_map.placement import (
        Blocker,
        Capacity,
        ComponentRequirement,
        CopyPlacement,
        FitResult,
        GangGroupRequirement,
        NodeCapacity,
        NodeClaim,
        PoolSummary,
        QuotaState,
        WorkloadRequirements,
        rank_fits,
    )
    from workload_map.registry import KindInfo, display_type
    from workload_map.resolve.status import StatusResult
    from workload_map.resolve.writes import PodSpecChange
    from workload_map.sampletest import SampleResult
    from workload_map.tree.model import ComponentView, InstanceView, PodCounts, WorkloadTree

_EXPORTS: dict[str, str] = {
    "Draft": "workload_map.authoring",
    "draft_definition": "workload_map.api.authoring",
    "draft_from_cluster": "workload_map.api.authoring",
    "Blocker": "workload_map.placement",
    "Capacity": "workload_map.placement",
    "ComponentRequirement": "workload_map.placement",
    "CopyPlacement": "workload_map.placement",
    "FitResult": "workload_map.placement",
    "GangGroupRequirement": "workload_map.placement",
    "NodeCapacity": "workload_map.placement",
    "NodeClaim": "workload_map.placement",
    "PoolSummary": "workload_map.placement",
    "QuotaState": "workload_map.placement",
    "WorkloadRequirements": "workload_map.placement",
    "fit": "workload_map.api.placement",
    "fit_clusters": "workload_map.api.placement",
    "rank_fits": "workload_map.placement",
    "AmbiguousTypeError": "workload_map.errors",
    "ClusterFailure": "workload_map.api.fleet",
    "ClusterWorkload": "workload_map.api.fleet",
    "Fleet": "workload_map.api.fleet",
    "FleetChange": "workload_map.api.fleet",
    "FleetListing": "workload_map.api.fleet",
    "open_fleet": "workload_map.api.fleet",
    "kubeconfig_contexts": "workload_map.api.fleet",
    "ComponentView": "workload_map.tree.model",
    "Emission": "workload_map.gang.emit",
    "Finding": "workload_map.errors",
    "GangPlan": "workload_map.gang.model",
    "GroupVersionKind": "workload_map.definition",
    "InstanceView": "workload_map.tree.model",
    "Karta": "workload_map.definition",
    "KindInfo": "workload_map.registry",
    "Listing": "workload_map.api.view",
    "LoadedDefinition": "workload_map.definition",
    "Location": "workload_map.errors",
    "NotFoundError": "workload_map.errors",
    "PendingUpdate": "workload_map.api.view",
    "PodCounts": "workload_map.tree.model",
    "PodGroupPlan": "workload_map.gang.model",
    "PodSpecChange": "workload_map.resolve.writes",
    "RequestCounter": "workload_map.cluster.connection",
    "ResolveError": "workload_map.errors",
    "ResourceStatus": "workload_map.definition",
    "StatusResult": "workload_map.resolve.status",
    "UnknownTypeError": "workload_map.errors",
    "View": "workload_map.api.view",
    "WorkloadMapError": "workload_map.errors",
    "WorkloadTree": "workload_map.tree.model",
    "__version__": "workload_map._version",
    "definition_from_dict": "workload_map.definition",
    "effective_definitions": "workload_map.api.definitions",
    "display_type": "workload_map.registry",
    "emit_pod_groups": "workload_map.api.view",
    "load_paths": "workload_map.definition",
    "open_cluster": "workload_map.api.open",
    "open_dump": "workload_map.api.open",
    "open_objects": "workload_map.api.open",
    "watch_cluster": "workload_map.api.open",
    "LiveModel": "workload_map.live.model",
    "one_target": "workload_map.api.view",
    "parse_selector": "workload_map.api.selectors",
    "SelectorError": "workload_map.api.selectors",
    "split_target": "workload_map.api.view",
    "validate_definitions": "workload_map.api.validation",
    "test_samples": "workload_map.api.validation",
    "SampleResult": "workload_map.sampletest",
    "ValidationReport": "workload_map.api.validation",
}

__all__ = [
    "AmbiguousTypeError",
    "Blocker",
    "Capacity",
    "ClusterFailure",
    "ClusterWorkload",
    "ComponentRequirement",
    "ComponentView",
    "CopyPlacement",
    "Draft",
    "Emission",
    "Finding",
    "FitResult",
    "Fleet",
    "FleetChange",
    "FleetListing",
    "GangGroupRequirement",
    "GangPlan",
    "GroupVersionKind",
    "InstanceView",
    "Karta",
    "KindInfo",
    "Listing",
    "LiveModel",
    "LoadedDefinition",
    "Location",
    "NodeCapacity",
    "NodeClaim",
    "NotFoundError",
    "PendingUpdate",
    "PodCounts",
    "PodGroupPlan",
    "PodSpecChange",
    "PoolSummary",
    "QuotaState",
    "RequestCounter",
    "ResolveError",
    "ResourceStatus",
    "SampleResult",
    "SelectorError",
    "StatusResult",
    "UnknownTypeError",
    "ValidationReport",
    "View",
    "WorkloadMapError",
    "WorkloadRequirements",
    "WorkloadTree",
    "__version__",
    "definition_from_dict",
    "display_type",
    "draft_definition",
    "draft_from_cluster",
    "effective_definitions",
    "emit_pod_groups",
    "fit",
    "fit_clusters",
    "kubeconfig_contexts",
    "load_paths",
    "one_target",
    "open_cluster",
    "open_dump",
    "open_fleet",
    "open_objects",
    "parse_selector",
    "rank_fits",
    "split_target",
    "test_samples",
    "validate_definitions",
    "watch_cluster",
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
