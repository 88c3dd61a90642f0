"""workload-map: read any AI workload on Kubernetes through one declarative definition.

The public API is re-exported here (docs/library.md); everything under a module not listed is internal::

    import workload_map as wm

    with wm.open_dump("cluster.yaml", namespace=None) as view:
        for workload in view.workloads(status="Running"):
            print(workload.namespace, workload.name, workload.status.primary.value, workload.gpus)

Exports are resolved lazily (PEP 562): importing a submodule such as ``workload_map.cli.main`` runs
this file first, and ``wmap --help`` must not pay for pydantic, PyYAML and importlib.metadata.
``_EXPORTS`` is the one table of the public names; ``__all__`` and the lazy lookup come from it, and the
imports under ``TYPE_CHECKING`` (for type checkers only) are held equal to it by tests/library/test_exports.py.
"""

from __future__ import annotations

from workload_map.base.lazy import lazy_exports

# typing.TYPE_CHECKING without importing typing (~3 ms of `wmap --help`'s ~25 when it is served from the help
# cache); type checkers take any TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from workload_map._version import __version__ as __version__
    from workload_map.api.authoring import (
        draft_definition as draft_definition,
        draft_from_cluster as draft_from_cluster,
    )
    from workload_map.api.clusters import ClusterOptions as ClusterOptions
    from workload_map.api.definitions import effective_definitions as effective_definitions
    from workload_map.api.fleet import (
        ClusterFailure as ClusterFailure,
        ClusterWorkload as ClusterWorkload,
        Fleet as Fleet,
        FleetChange as FleetChange,
        FleetListing as FleetListing,
        kubeconfig_contexts as kubeconfig_contexts,
        open_fleet as open_fleet,
    )
    from workload_map.api.open import (
        open_cluster as open_cluster,
        open_dump as open_dump,
        open_objects as open_objects,
        watch_cluster as watch_cluster,
    )
    from workload_map.api.placement import fit as fit, fit_clusters as fit_clusters
    from workload_map.api.selectors import SelectorError as SelectorError, parse_selector as parse_selector
    from workload_map.api.validation import (
        ValidationReport as ValidationReport,
        test_samples as test_samples,
        validate_definitions as validate_definitions,
    )
    from workload_map.api.view import (
        Listing as Listing,
        PendingUpdate as PendingUpdate,
        View as View,
        emit_pod_groups as emit_pod_groups,
        one_target as one_target,
        queue_of as queue_of,
        split_target as split_target,
    )
    from workload_map.authoring import Draft as Draft
    from workload_map.checks.samples import SampleResult as SampleResult
    from workload_map.definition import (
        GroupVersionKind as GroupVersionKind,
        Karta as Karta,
        LoadedDefinition as LoadedDefinition,
        ResourceStatus as ResourceStatus,
        definition_from_dict as definition_from_dict,
        load_paths as load_paths,
    )
    from workload_map.definition.registry import KindInfo as KindInfo, display_type as display_type
    from workload_map.errors import (
        AmbiguousTypeError as AmbiguousTypeError,
        Finding as Finding,
        Location as Location,
        NotFoundError as NotFoundError,
        ResolveError as ResolveError,
        UnknownTypeError as UnknownTypeError,
        WorkloadMapError as WorkloadMapError,
    )
    from workload_map.gang.emit import Emission as Emission
    from workload_map.gang.model import GangPlan as GangPlan, PodGroupPlan as PodGroupPlan
    from workload_map.live.model import LiveModel as LiveModel
    from workload_map.placement import (
        Blocker as Blocker,
        Capacity as Capacity,
        ComponentRequirement as ComponentRequirement,
        CopyPlacement as CopyPlacement,
        FitResult as FitResult,
        GangGroupRequirement as GangGroupRequirement,
        NodeCapacity as NodeCapacity,
        NodeClaim as NodeClaim,
        PoolSummary as PoolSummary,
        QuotaState as QuotaState,
        WorkloadRequirements as WorkloadRequirements,
        rank_fits as rank_fits,
    )
    from workload_map.placement.figures import GpuFigures as GpuFigures, gpu_figures as gpu_figures
    from workload_map.queues import (
        Queue as Queue,
        QueuedWorkload as QueuedWorkload,
        QueueReport as QueueReport,
        ResourceQuota as ResourceQuota,
        named_queue as named_queue,
    )
    from workload_map.resolve.status import StatusResult as StatusResult
    from workload_map.resolve.writes import PodSpecChange as PodSpecChange
    from workload_map.sources.kube.connection import RequestCounter as RequestCounter
    from workload_map.tree.events import WorkloadEvent as WorkloadEvent
    from workload_map.tree.figures import (
        WorkloadFigures as WorkloadFigures,
        WorkloadTotals as WorkloadTotals,
        figures_of as figures_of,
    )
    from workload_map.tree.model import (
        ComponentNode as ComponentNode,
        InstanceNode as InstanceNode,
        PodCounts as PodCounts,
        WorkloadTree as WorkloadTree,
    )

# module -> the public names it defines; the only list of the public API.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "workload_map._version": ("__version__",),
    "workload_map.api.authoring": ("draft_definition", "draft_from_cluster"),
    "workload_map.api.clusters": ("ClusterOptions",),
    "workload_map.api.definitions": ("effective_definitions",),
    "workload_map.api.fleet": (
        "ClusterFailure",
        "ClusterWorkload",
        "Fleet",
        "FleetChange",
        "FleetListing",
        "kubeconfig_contexts",
        "open_fleet",
    ),
    "workload_map.api.open": ("open_cluster", "open_dump", "open_objects", "watch_cluster"),
    "workload_map.api.placement": ("fit", "fit_clusters"),
    "workload_map.api.selectors": ("parse_selector", "SelectorError"),
    "workload_map.api.validation": ("test_samples", "validate_definitions", "ValidationReport"),
    "workload_map.api.view": (
        "emit_pod_groups",
        "Listing",
        "one_target",
        "PendingUpdate",
        "queue_of",
        "split_target",
        "View",
    ),
    "workload_map.authoring": ("Draft",),
    "workload_map.sources.kube.connection": ("RequestCounter",),
    "workload_map.definition": (
        "definition_from_dict",
        "GroupVersionKind",
        "Karta",
        "load_paths",
        "LoadedDefinition",
        "ResourceStatus",
    ),
    "workload_map.errors": (
        "AmbiguousTypeError",
        "Finding",
        "Location",
        "NotFoundError",
        "ResolveError",
        "UnknownTypeError",
        "WorkloadMapError",
    ),
    "workload_map.gang.emit": ("Emission",),
    "workload_map.gang.model": ("GangPlan", "PodGroupPlan"),
    "workload_map.live.model": ("LiveModel",),
    "workload_map.placement": (
        "Blocker",
        "Capacity",
        "ComponentRequirement",
        "CopyPlacement",
        "FitResult",
        "GangGroupRequirement",
        "NodeCapacity",
        "NodeClaim",
        "PoolSummary",
        "QuotaState",
        "rank_fits",
        "WorkloadRequirements",
    ),
    "workload_map.definition.registry": ("display_type", "KindInfo"),
    "workload_map.queues": ("named_queue", "Queue", "QueuedWorkload", "QueueReport", "ResourceQuota"),
    "workload_map.resolve.status": ("StatusResult",),
    "workload_map.resolve.writes": ("PodSpecChange",),
    "workload_map.checks.samples": ("SampleResult",),
    "workload_map.tree.model": ("ComponentNode", "InstanceNode", "PodCounts", "WorkloadTree"),
    "workload_map.placement.figures": ("GpuFigures", "gpu_figures"),
    "workload_map.tree.figures": ("figures_of", "WorkloadFigures", "WorkloadTotals"),
    "workload_map.tree.events": ("WorkloadEvent",),
}
_MODULE_OF: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)  # noqa: PLE0605 - derived from the one table above; type checkers read the imports


__getattr__ = lazy_exports(__name__, _MODULE_OF, globals())


def __dir__() -> list[str]:
    """The public names and the module's own dunders, not what this file imports for its own use."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
